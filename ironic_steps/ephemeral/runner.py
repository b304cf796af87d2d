"""One ephemeral run: a short-lived service deploys an inventory.

::

    run = Run(inventory, run_dir, database_url)
    exit_code = run.execute()      # 0: every node active

The run starts the all-in-one service in this process on an empty
database (a new SQLite file in the run directory, or the empty server
database it is given), its API on a free loopback port, and drives every
node through that API as an operator would: enrol (with the inventory's
deploy templates and traits), ``manage``, ``provide``, ``active`` with the
node's user deploy steps.  Each node goes on as soon as it is ready,
independently of the others; a node settles ``active`` or failed (the
failure states, or an API refusal, or back where it was after an action:
a failed verification).  The enrolment comes first and whole: if the API
refuses any node, nothing is provisioned.

At the end, or on SIGINT / SIGTERM (no new action is started; the service
stops as it always does: running steps end or park), the run keeps its
evidence (:mod:`evidence`) and removes its live database.  ``resume``
restores that evidence and carries on where the run stood: nodes not
enrolled yet are enrolled, waiting ones are taken over by the conductor,
a failed deploy resumes from its failed step (x-steps) and a failed
cleaning or verification is tried again.
"""

import datetime
import os
import shutil
import signal
import sys
import tempfile
import threading
import time

import futurist
from futurist import waiters
from oslo_log import log
from oslo_utils import timeutils

from ironic_steps.common import context as ctx
from ironic_steps.common import exception
from ironic_steps.common import state_machine
from ironic_steps.common import states
from ironic_steps.conf import CONF
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps.ephemeral import api_client
from ironic_steps.ephemeral import evidence
from ironic_steps.ephemeral import progress
from ironic_steps import objects
from ironic_steps import service
from ironic_steps import version

LOG = log.getLogger(__name__)

EXIT_OK = 0
EXIT_FAILED = 1
#: As argparse: the command line or the inventory cannot be run.
EXIT_USAGE = 2

#: The action that takes a node on from the state it rests in.
_NEXT_ACTION = {'enroll': 'manage', 'manageable': 'provide',
                'available': 'active'}
#: Refusals that only mean "not now": the action is tried again.
_RETRY_STATUSES = (409, 503)
_POLL_INTERVAL = 0.5
#: Node fields a resume brings in line with the run's inventory.
_EDITABLE = ('driver_info', 'properties', 'instance_info')
_ROW_FIELDS = ('uuid', 'name', 'provision_state', 'last_error',
               'provision_updated_at')


class RunError(Exception):
    """The run cannot start or go on; the message says why."""


class _Node:
    """What the run knows of one inventory node."""

    def __init__(self, spec):
        self.spec = spec
        self.uuid = None
        self.actions = set()
        self.pending = None
        self.started = None
        #: Why the run stopped driving it (an API refusal), if it did.
        self.refused = None
        self.state = None
        self.last_error = None
        #: When the last action was asked for, and when the node's state
        #: last changed (naive UTC, as stored).
        self.acted_at = None
        self.state_changed_at = None

    @property
    def name(self):
        return self.spec.name

    def seen(self, row):
        self.state, self.last_error = row.provision_state, row.last_error
        self.state_changed_at = row.provision_updated_at

    def _read_since_acting(self):
        # A read may predate the last action: it says nothing then.
        return self.acted_at is None or (
            self.state_changed_at is not None
            and self.state_changed_at >= self.acted_at)

    def settled(self):
        """Active, failed, refused, or resting again where its action
        was taken from (a failed verification leaves it in enroll)."""
        if self.refused is not None:
            return True
        return self._read_since_acting() and (
            self.state in progress.SETTLED
            or _NEXT_ACTION.get(self.state) in self.actions)

    def succeeded(self):
        return self.state == 'active' and self.refused is None


def _let_go(pool, futures=()):
    """Shut ``pool`` down once ``futures`` are done, without waiting for
    its idle threads: futurist wakes them once a second to see they should
    stop, a second per pool at the end of every run."""
    waiters.wait_for_all(futures)
    pool.shutdown(wait=False)


def default_run_dir():
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime(
        '%Y%m%dT%H%M%SZ')
    base = os.path.join(CONF.state_path, 'runs')
    os.makedirs(base, exist_ok=True)
    return tempfile.mkdtemp(prefix=stamp + '-', dir=base)


def _utc_now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat()


class Run:
    """An ephemeral run of ``inventory`` in ``run_dir``.

    :param database_url: an empty server database to run on; None: a new
        SQLite file in the run directory.
    :param resume: carry on from the evidence already in ``run_dir``.
    """

    def __init__(self, inventory, run_dir, database_url=None, resume=False,
                 concurrency=2, stream=None):
        self.inventory = inventory
        self.run_dir = run_dir
        self.resume = resume
        self.sqlite = database_url is None
        self.database_url = database_url or evidence.sqlite_url(
            os.path.join(run_dir, evidence.LIVE_DATABASE))
        self.concurrency = concurrency
        self.stream = stream or sys.stdout
        self.nodes = [_Node(spec) for spec in inventory.nodes]
        self.service = None
        self.client = None
        self.endpoint = None
        #: Seconds each part of the run took, for the report.
        self.timings = {}
        self._submitted = []
        self.interrupted = None
        self._stop = threading.Event()
        self._context = ctx.get_admin_context()

    # --- the life of a run ------------------------------------------------

    def say(self, text):
        self.stream.write(text + '\n')
        self.stream.flush()

    def execute(self):
        self._prepare_database()
        started, clock = _utc_now(), time.monotonic()
        self._install_signal_handlers()
        outcome = None
        try:
            self._start_service()
            self.timings['start_s'] = time.monotonic() - clock
            self.say('Run directory: %s' % self.run_dir)
            self.say('API (read while the run lasts): %s' % self.endpoint)
            mark = time.monotonic()
            enrolled = self._enrol()
            self.timings['enrol_s'] = time.monotonic() - mark
            if enrolled:
                mark = time.monotonic()
                self._drive(clock)
                self.timings['drive_s'] = time.monotonic() - mark
                done = all(node.succeeded() for node in self.nodes)
                # Interrupted after the last node settled: nothing is left.
                outcome = ('succeeded' if done else 'interrupted'
                           if self.interrupted else 'failed')
            else:
                outcome = 'refused'
        finally:
            self._stop.set()
            self._finish(started, clock, outcome or 'crashed')
        return self._exit_code(outcome)

    def _exit_code(self, outcome):
        if outcome == 'succeeded':
            return EXIT_OK
        if outcome == 'interrupted':
            return 128 + self.interrupted
        return EXIT_FAILED

    def _install_signal_handlers(self):
        def stop(signum, _frame):
            if self.interrupted is None:
                self.interrupted = signum
            self._stop.set()
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, stop)

    def _prepare_database(self):
        if self.resume:
            dump = os.path.join(self.run_dir, evidence.DUMP)
            if not os.path.exists(dump):
                raise RunError('%s has no %s to resume from' % (
                    self.run_dir, evidence.DUMP))
        if self.sqlite:
            if os.path.exists(self._live_file()):
                raise RunError(
                    '%s holds a live database (%s): another run is using '
                    'this directory, or one ended without saving its '
                    'evidence; nothing was changed' % (
                        self.run_dir, evidence.LIVE_DATABASE))
        elif evidence.tables(self.database_url):
            raise RunError(
                'The database %s is not empty: a run starts from an empty '
                'one, and removes every table at its end; nothing was '
                'changed' % evidence.shown_url(self.database_url))
        if self.resume:
            try:
                evidence.restore(os.path.join(self.run_dir, evidence.DUMP),
                                 self.database_url)
            except Exception:
                evidence.remove(self.database_url)   # the dump stays
                raise

    def _live_file(self):
        return os.path.join(self.run_dir, evidence.LIVE_DATABASE)

    def _start_service(self):
        CONF.set_override('connection', self.database_url, group='database')
        CONF.set_override('host_ip', '127.0.0.1', group='api')
        CONF.set_override('port', 0, group='api')
        CONF.set_override('rpc_transport', 'none')
        self.service = service.Service(api=True, conductor=True)
        self.service.start()
        self.client = api_client.Client('127.0.0.1', self.service.port)
        self.endpoint = self.client.endpoint

    # --- enrolment ----------------------------------------------------------

    def _enrol(self):
        """Create the templates and the nodes not in the database yet.

        :returns: whether the API took every one.
        """
        known = {row.name: row for row in objects.Node.list_fields(
            self._context, ('uuid', 'name', 'provision_state') + _EDITABLE)}
        problems = []
        if not self.resume:
            for template in self.inventory.deploy_templates:
                try:
                    self.client.post('/v1/deploy_templates', template)
                except api_client.APIError as exc:
                    problems.append('%s: deploy template %s: the API '
                                    'refused it: %s' % (
                                        self.inventory.path,
                                        template.get('name'), exc.message))
        missing = []
        for number, node in enumerate(self.nodes, 1):
            if node.name in known:
                node.uuid = known[node.name].uuid
                problems.extend(self._apply_edits(number, node,
                                                  known[node.name]))
            else:
                missing.append((number, node))
        pool = futurist.ThreadPoolExecutor(self.concurrency)
        try:
            refusals = list(pool.map(lambda item: self._create(*item),
                                     missing))
        finally:
            _let_go(pool)
        problems.extend(refusal for refusal in refusals if refusal)
        for problem in problems:
            self.say(problem)
        if problems:
            self.say('The API refused the inventory: nothing was '
                     'provisioned.')
        return not problems

    def _apply_edits(self, number, node, row):
        """On a resume, the fields of an enrolled node not active yet as
        the run directory's inventory has them now: how a node is fixed
        before its failed deploy resumes.  Problems, as :meth:`_create`'s.
        """
        if row.provision_state == states.ACTIVE:
            return []   # done: what its deploy wrote stays as it is
        wanted = node.spec.create_body()
        patch = [{'op': 'replace', 'path': '/' + field,
                  'value': wanted[field]}
                 for field in _EDITABLE
                 if wanted[field] != (getattr(row, field) or {})]
        if not patch:
            return []
        try:
            self.client.request('PATCH', '/v1/nodes/%s' % node.uuid, patch)
        except api_client.APIError as exc:
            return ['%s: node %s (#%d): the API refused the change: %s' % (
                self.inventory.path, node.name, number, exc.message)]
        LOG.info('Node %s changed as the inventory now says: %s', node.name,
                 ', '.join(change['path'][1:] for change in patch))
        return []

    def _create(self, number, node):
        where = '%s: node %s (#%d)' % (self.inventory.path, node.name,
                                       number)
        try:
            created = self.client.post('/v1/nodes', node.spec.create_body())
            node.uuid = created['uuid']
            traits = node.spec.all_traits()
            if traits:
                self.client.put('/v1/nodes/%s/traits' % node.uuid,
                                {'traits': traits})
        except api_client.APIError as exc:
            return '%s: the API refused it: %s' % (where, exc.message)
        return None

    # --- driving the nodes ----------------------------------------------------

    def _read(self, with_progress=False):
        # Each node's progress is decoded JSON: read only for a terminal
        # (a fifth of the run's time, read for 1,000 nodes twice a second).
        rows = objects.Node.list_fields(
            self._context, _ROW_FIELDS + (('driver_internal_info',)
                                          if with_progress else ()))
        by_uuid = {row.uuid: row for row in rows}
        for node in self.nodes:
            row = by_uuid.get(node.uuid)
            if row is not None:
                node.seen(row)
        return rows

    def _drive(self, clock):
        display = progress.Display(len(self.nodes), self.stream)
        started = {}
        pool = futurist.ThreadPoolExecutor(self.concurrency)
        try:
            while True:
                rows = self._read(display.live)
                if not self._stop.is_set():
                    for node in self.nodes:
                        self._advance(node, pool, started)
                display.update(rows, started, time.monotonic() - clock)
                if self._stop.is_set() or all(node.settled() and
                                              node.pending is None
                                              for node in self.nodes):
                    break
                self._stop.wait(_POLL_INTERVAL)
        finally:
            # Queued actions see the stop and return at once.
            _let_go(pool, self._submitted)
        display.finish(self._read(display.live), time.monotonic() - clock)

    def _advance(self, node, pool, started):
        if node.pending is not None or node.refused is not None:
            return
        action = self._action_for(node)
        if action is None:
            return
        started.setdefault(node.name, time.monotonic())
        node.pending = action
        future = pool.submit(self._act, node, action)
        self._submitted.append(future)
        future.add_done_callback(lambda _: setattr(node, 'pending', None))

    def _action_for(self, node):
        state = node.state
        if self.resume:
            if state == states.DEPLOYFAIL and 'resume' not in node.actions:
                return 'resume'
            if state == states.CLEANFAIL and 'manage' not in node.actions:
                return 'manage'
        action = _NEXT_ACTION.get(state)
        if action is None or action in node.actions:
            return None   # under way, settled, or back after a failure
        return action

    def _act(self, node, action):
        if self._stop.is_set():
            return   # queued before the stop: not started
        path = '/v1/nodes/%s' % node.uuid
        asked_at = timeutils.utcnow()
        try:
            if action == 'resume':
                self.client.post(path + '/x-steps/resume', None)
            else:
                body = {'target': action}
                if action == 'active' and node.spec.deploy_steps:
                    body['deploy_steps'] = node.spec.deploy_steps
                self.client.put(path + '/states/provision', body)
        except api_client.APIError as exc:
            if exc.status in _RETRY_STATUSES:
                return   # tried again at the next look
            node.refused = '%s refused: %s' % (action, exc.message)
            LOG.warning('Node %s: %s', node.name, node.refused)
            return
        except Exception as exc:
            node.refused = '%s failed: %s' % (action, exc)
            LOG.exception('Node %s: %s', node.name, node.refused)
            return
        node.acted_at = asked_at
        node.actions.add(action)

    # --- the end ----------------------------------------------------------------

    def _finish(self, started, clock, outcome):
        if self.service is None:
            # It did not start: nothing ran, and the database holds a
            # schema or a copy of the dump at most.
            sqlalchemy_api.configure()
            evidence.remove(self.database_url)
            return
        timings = self.timings
        mark = time.monotonic()
        self.service.stop()
        self.client.close()
        timings['stop_s'] = time.monotonic() - mark
        meta = {'run_dir': os.path.abspath(self.run_dir),
                'inventory': self.inventory.path,
                'ironic_steps': version.version_info.version_string(),
                'database': ('sqlite' if self.sqlite else
                             evidence.shown_url(self.database_url)),
                'started_at': started, 'finished_at': _utc_now(),
                'wall_seconds': round(time.monotonic() - clock, 3),
                'outcome': outcome, 'resumed': self.resume,
                'interrupted_by': (signal.Signals(self.interrupted).name
                                   if self.interrupted else None),
                'refused': {node.name: node.refused for node in self.nodes
                            if node.refused}}
        mark = time.monotonic()
        report = evidence.build_report(
            self._context, meta, order=[node.name for node in self.nodes])
        timings['report_s'] = time.monotonic() - mark
        sqlalchemy_api.configure()   # let go of the database
        mark = time.monotonic()
        try:
            evidence.dump(self.database_url,
                          os.path.join(self.run_dir, evidence.DUMP))
        except evidence.EvidenceError as exc:
            # Without its dump, the live database is the only evidence.
            self.say('%s; the database is kept as it is: %s' % (
                exc, evidence.shown_url(self.database_url)))
            dumped = False
        else:
            dumped = True
        timings['dump_s'] = time.monotonic() - mark
        report['timings'] = {phase: round(seconds, 3)
                             for phase, seconds in timings.items()}
        evidence.write_report(report, self.run_dir)
        if dumped:
            evidence.remove(self.database_url)
        self._summarise(report, outcome)

    def _summarise(self, report, outcome):
        self.say('')
        self.say(evidence.table(report))
        self.say('')
        unfinished = [node for node in self.nodes if not node.succeeded()]
        if outcome == 'succeeded':
            self.say('All %d nodes are active.' % len(self.nodes))
        elif outcome == 'interrupted':
            self.say('Interrupted by %s: %d of %d nodes did not finish: %s'
                     % (signal.Signals(self.interrupted).name,
                        len(unfinished), len(self.nodes),
                        ', '.join(node.name for node in unfinished)))
            self.say('Carry on with: ironic-steps run --resume %s'
                     % self.run_dir)
        else:
            for node in unfinished:
                self.say('FAILED %s: %s' % (node.name, self._why(
                    node, report)))
        self.say('Evidence kept in %s (%s, %s, %s)' % (
            self.run_dir, evidence.REPORT, evidence.DUMP, evidence.LOG))

    @staticmethod
    def _why(node, report):
        if node.refused:
            return node.refused
        entry = next((item for item in report['nodes']
                      if item['name'] == node.name), None)
        if entry is None:
            return 'not enrolled'
        step = entry.get('deploy_step') or {}
        at = ('at step %s.%s: ' % (step.get('interface'), step.get('step'))
              if step.get('step') else '')
        return '%s, %s%s' % (entry['provision_state'], at,
                             entry.get('last_error') or 'no error recorded')


# --- dry run ------------------------------------------------------------------

def dry_run(inventory, stream=None):
    """Show each node's plan from a service on a throwaway database; no
    node is provisioned and no hardware is reached.

    :returns: the exit code: 0 if every node's deploy would start.
    """
    stream = stream or sys.stdout
    scratch = tempfile.mkdtemp(prefix='ironic-steps-dry-run-')
    run = Run(inventory, scratch, stream=stream)
    # No power state checks: they would reach the hardware.
    CONF.set_override('sync_power_state_interval', 0, group='conductor')
    failed = 0
    try:
        run._prepare_database()
        run._start_service()
        if not run._enrol():
            return EXIT_FAILED
        for node in run.nodes:
            body = {'flow': 'deploy'}
            if node.spec.deploy_steps:
                body['deploy_steps'] = node.spec.deploy_steps
            plan = run.client.post('/v1/nodes/%s/x-steps/preview'
                                   % node.uuid, body)
            errors = _errors_beyond_state(plan['errors'], node.uuid)
            failed += bool(errors)
            stream.write(_plan_text(node.name, plan, errors))
    finally:
        if run.service is not None:
            run.service.stop()
        sqlalchemy_api.configure()
        shutil.rmtree(scratch, ignore_errors=True)
    stream.write('%d of %d nodes would deploy.\n' % (
        len(run.nodes) - failed, len(run.nodes)))
    return EXIT_FAILED if failed else EXIT_OK


def _errors_beyond_state(errors, uuid):
    """The preview's errors but the one every enrolled node has: not
    available yet (the run makes it so)."""
    try:
        state_machine.next_state(states.ENROLL, states.EVENT_DEPLOY,
                                 node=uuid)
    except exception.IronicStepsException as exc:
        expected = str(exc)
    else:
        expected = None
    return [error for error in errors if error != expected]


def _plan_text(name, plan, errors):
    lines = ['%s: %d steps' % (name, len(plan['steps']))]
    for step in plan['steps']:
        lines.append('  %4s  %s.%s  (%s)%s' % (
            step['priority'], step['interface'], step['step'],
            step['source'],
            '  args %s' % step['args'] if step.get('args') else ''))
    for error in errors:
        lines.append('  ERROR: %s' % error)
    return '\n'.join(lines) + '\n'
