"""One ephemeral run: a short-lived service deploys an inventory.

::

    run = Run(inventory, run_dir, database_url)
    exit_code = run.execute()      # 0: every node active

The run starts the all-in-one service in this process on an empty
database (a new SQLite file in the run directory, or the empty server
database it is given), its API on a free loopback port, and a driver
process (:mod:`driver`) that enrols every node through that API and takes
it to ``active`` as an operator would.

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
import time

from oslo_log import log

from ironic_steps.common import context as ctx
from ironic_steps.common import exception
from ironic_steps.common import private_files
from ironic_steps.common import state_machine
from ironic_steps.common import states
from ironic_steps.conf import CONF
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps.ephemeral import api_client
from ironic_steps.ephemeral import driver
from ironic_steps.ephemeral import evidence
from ironic_steps import objects
from ironic_steps import service
from ironic_steps import version

LOG = log.getLogger(__name__)

EXIT_OK = 0
EXIT_FAILED = 1
#: As argparse: the command line or the inventory cannot be run.
EXIT_USAGE = 2

#: Node fields a resume brings in line with the run's inventory.
_EDITABLE = ('driver_info', 'properties', 'instance_info')


class RunError(Exception):
    """The run cannot start or go on; the message says why."""


def default_run_dir():
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime(
        '%Y%m%dT%H%M%SZ')
    base = os.path.join(CONF.state_path, 'runs')
    private_files.make_directory(base)
    return tempfile.mkdtemp(prefix=stamp + '-', dir=base)   # 0700


def _utc_now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat()


class Run:
    """An ephemeral run of ``inventory`` in ``run_dir``.

    :param database_url: an empty server database to run on; None: a new
        SQLite file in the run directory.
    :param resume: carry on from the evidence already in ``run_dir``.
    """

    def __init__(self, inventory, run_dir, database_url=None, resume=False,
                 concurrency=driver.CONCURRENCY, stream=None):
        self.inventory = inventory
        self.run_dir = run_dir
        self.resume = resume
        self.sqlite = database_url is None
        self.database_url = database_url or evidence.sqlite_url(
            os.path.join(run_dir, evidence.LIVE_DATABASE))
        self.concurrency = concurrency
        self.stream = stream or sys.stdout
        self.service = None
        self.client = None
        self.endpoint = None
        self.driver = None
        #: Seconds each part of the run took, for the report.
        self.timings = {}
        #: Node name -> why the API would not take it on.
        self.refused = {}
        self.interrupted = None
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
            self.driver = driver.Process(
                self.inventory, os.path.join(self.run_dir, evidence.INVENTORY),
                self.concurrency, self.resume, self.stream)
            self._start_service()
            self.timings['start_s'] = time.monotonic() - clock
            self.say('Run directory: %s' % self.run_dir)
            self.say('API (read while the run lasts): %s' % self.endpoint)
            problems = self._bring_in_line() if self.resume else []
            if problems:
                self.driver.cancel()
            else:
                self.driver.go(self.endpoint)
            result = self._driven()
            outcome = self._outcome(problems, result)
        finally:
            if self.driver is not None:
                self.driver.cancel()   # if it never had the endpoint
            self._finish(started, clock, outcome or 'crashed')
            if self.driver is not None:
                self.driver.reap()
        return self._exit_code(outcome)

    def _driven(self):
        """The driver's result, once it has given it; None if it ended
        without one."""
        result = self.driver.result()
        if result is None:
            if not self.interrupted:
                code = self.driver.reap()
                LOG.error('The driver process ended with %s and no result',
                          code)
                self.say('The run\'s driver process ended unexpectedly '
                         '(exit code %s); the nodes are left as they are'
                         % code)
            return None
        self.timings.update(result['timings'])
        self.refused = result['refused']
        for name, why in sorted(self.refused.items()):
            LOG.warning('Node %s: %s', name, why)
        if result['interrupted_by'] and not self.interrupted:
            self.interrupted = result['interrupted_by']
        return result

    def _outcome(self, problems, result):
        problems = problems + (result['problems'] if result else [])
        if problems:
            self._tell_refused(problems)
            return 'refused'
        if self._unfinished():
            return ('interrupted' if self.interrupted else
                    'failed' if result else None)
        # Even if interrupted: after the last node settled, nothing is left.
        return 'succeeded'

    def _tell_refused(self, problems):
        for problem in problems:
            LOG.error('%s', problem)
            self.say(problem)
        self.say('The API refused the inventory: nothing was provisioned.')

    def _unfinished(self):
        """The inventory's nodes that are not active (in its order)."""
        active = {row.name for row in objects.Node.list_fields(
            self._context, ('name', 'provision_state'))
            if row.provision_state == states.ACTIVE}
        return [node.name for node in self.inventory.nodes
                if node.name not in active or node.name in self.refused]

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
            if self.driver is not None:
                self.driver.signal(signal.SIGTERM)
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
        # Its own client speaks HTTP, on loopback.
        CONF.set_override('enable_ssl_api', False, group='api')
        CONF.set_override('port', 0, group='api')
        CONF.set_override('rpc_transport', 'none')
        self.service = service.Service(api=True, conductor=True)
        self.service.start()
        self.client = api_client.Client('127.0.0.1', self.service.port)
        self.endpoint = self.client.endpoint

    # --- a resume ------------------------------------------------------------

    def _bring_in_line(self):
        """On a resume, the fields of the enrolled nodes not active yet as
        the run directory's inventory has them now: how a node is fixed
        before its failed deploy resumes.  Read here, from the database,
        where secrets are not masked as the API masks them.

        :returns: the API's refusals, each naming the file and the node.
        """
        known = {row.name: row for row in objects.Node.list_fields(
            self._context, ('uuid', 'name', 'provision_state') + _EDITABLE)}
        problems = []
        for number, spec in enumerate(self.inventory.nodes, 1):
            row = known.get(spec.name)
            if row is None or row.provision_state == states.ACTIVE:
                continue   # enrolled by the driver; or done, as it is
            wanted = spec.create_body()
            patch = [{'op': 'replace', 'path': '/' + field,
                      'value': wanted[field]}
                     for field in _EDITABLE
                     if wanted[field] != (getattr(row, field) or {})]
            if not patch:
                continue
            try:
                self.client.request('PATCH', '/v1/nodes/%s' % row.uuid,
                                    patch)
            except api_client.APIError as exc:
                problems.append(
                    '%s: node %s (#%d): the API refused the change: %s' % (
                        self.inventory.path, spec.name, number, exc.message))
                continue
            LOG.info('Node %s changed as the inventory now says: %s',
                     spec.name,
                     ', '.join(change['path'][1:] for change in patch))
        return problems

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
                'refused': self.refused}
        mark = time.monotonic()
        report = evidence.build_report(
            self._context, meta,
            order=[node.name for node in self.inventory.nodes])
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
        total = len(self.inventory.nodes)
        entries = {entry['name']: entry for entry in report['nodes']}
        unfinished = [node.name for node in self.inventory.nodes
                      if node.name in self.refused or entries.get(
                          node.name, {}).get('provision_state')
                      != states.ACTIVE]
        if outcome == 'succeeded':
            self.say('All %d nodes are active.' % total)
        elif outcome == 'interrupted':
            self.say('Interrupted by %s: %d of %d nodes did not finish: %s'
                     % (signal.Signals(self.interrupted).name,
                        len(unfinished), total, ', '.join(unfinished)))
            self.say('Carry on with: ironic-steps run --resume %s'
                     % self.run_dir)
        else:
            for name in unfinished:
                self.say('FAILED %s: %s' % (name, self._why(
                    self.refused.get(name), entries.get(name))))
        self.say('Evidence kept in %s (%s, %s, %s)' % (
            self.run_dir, evidence.REPORT, evidence.DUMP, evidence.LOG))

    @staticmethod
    def _why(refused, entry):
        if refused:
            return refused
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
        operator = driver.Operator(inventory, run.client, stream=stream)
        problems = operator.enrol()
        if problems:
            run._tell_refused(problems)
            return EXIT_FAILED
        for node in operator.nodes:
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
        len(inventory.nodes) - failed, len(inventory.nodes)))
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
