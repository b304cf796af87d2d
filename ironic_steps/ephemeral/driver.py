"""The operator's side of a run: every node driven through the API.

The nodes are enrolled (with the inventory's deploy templates and
traits), then each is taken on as soon as it is ready, independently of
the others: ``manage``, ``provide``, ``active`` with its user deploy
steps.  A node settles ``active`` or failed (the failure states, or an
API refusal, or back where it was after an action: a failed
verification).  The enrolment comes first and whole: if the API refuses
any of it, nothing is provisioned.

A run starts this module as a process of its own beside its service
(``python -m ironic_steps.ephemeral.driver``): a client inside the
service's interpreter would take its share of the one GIL from the
service, which the same client in another process does not (1,000 nodes:
the client's requests and reads are about an eighth of the busy time).
It talks to the run over three channels:

* its standard input: one line, the API's endpoint, once the service is
  up (nothing: the service did not start; the driver ends at once);
* its standard output, the run's own: the live view (:mod:`progress`);
* ``--result-fd``: one JSON document at its end: what the API refused,
  whether the enrolment went through, how long each part took, and the
  signal that stopped it, if one did.

SIGINT or SIGTERM: no new action is started; the ones under way return.
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import signal
import subprocess
import sys
import threading
import time
import types
import urllib.parse

from ironic_steps.ephemeral import api_client
from ironic_steps.ephemeral import inventory
from ironic_steps.ephemeral import progress

#: The action that takes a node on from the state it rests in.
_NEXT_ACTION = {'enroll': 'manage', 'manageable': 'provide',
                'available': 'active'}
#: API requests in flight at once, by default: enough to hide each one's
#: round trip, as the shared workload does (1,000 nodes on a busy host:
#: driven in 68-74 s with 2, 57-60 s with 8).
CONCURRENCY = 8
#: Refusals that only mean "not now": the action is tried again.
_RETRY_STATUSES = (409, 503)
#: Seconds between two reads of every node, per node, and its bounds: a
#: read costs the service time in proportion to the nodes it returns
#: (1,000: 25 ms), so a few nodes are read often, many less often.
_POLL_PER_NODE = 0.0005
_POLL_BOUNDS = (0.05, 0.5)
_FIELDS = ('uuid', 'name', 'provision_state', 'last_error',
           'provision_updated_at')


def _utcnow():
    return datetime.datetime.now(datetime.timezone.utc)


def _parse_time(text):
    return None if text is None else datetime.datetime.fromisoformat(text)


class _Node:
    """What the driver knows of one inventory node."""

    def __init__(self, spec):
        self.spec = spec
        self.uuid = None
        self.actions = set()
        self.pending = None
        #: Why the driver stopped driving it (an API refusal), if it did.
        self.refused = None
        self.state = None
        #: When the last action was asked for, and when the node's state
        #: last changed (the API's clock, this machine's).
        self.acted_at = None
        self.state_changed_at = None

    @property
    def name(self):
        return self.spec.name

    def seen(self, row):
        self.state = row.provision_state
        self.state_changed_at = _parse_time(row.provision_updated_at)

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


class Operator:
    """Enrols and drives ``spec``'s nodes through the API of ``client``.

    :param resume: nodes the API has already are carried on: a failed
        deploy resumes from its failed step, a failed cleaning is managed
        again.
    """

    def __init__(self, spec, client, concurrency=CONCURRENCY, resume=False,
                 stream=None):
        self.inventory = spec
        self.client = client
        self.concurrency = concurrency
        self.resume = resume
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty()
        self.nodes = [_Node(node) for node in spec.nodes]
        self.stop = threading.Event()
        self.timings = {}
        self.poll_interval = min(max(_POLL_BOUNDS[0],
                                     _POLL_PER_NODE * len(self.nodes)),
                                 _POLL_BOUNDS[1])

    # --- enrolment ----------------------------------------------------------

    def enrol(self):
        """Create the templates and the nodes the API does not have yet.

        :returns: the API's refusals, each naming the inventory's file and
            entry; none: every node is enrolled.
        """
        mark = time.monotonic()
        known = {row.name: row.uuid for row in self.read(('uuid', 'name'))}
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
            node.uuid = known.get(node.name)
            if node.uuid is None:
                missing.append((number, node))
        with concurrent.futures.ThreadPoolExecutor(self.concurrency) as pool:
            refusals = list(pool.map(lambda item: self._create(*item),
                                     missing))
        problems.extend(refusal for refusal in refusals if refusal)
        self.timings['enrol_s'] = time.monotonic() - mark
        return problems

    def _create(self, number, node):
        if self.stop.is_set():
            return None   # a resume enrols it
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

    # --- driving --------------------------------------------------------------

    def read(self, fields):
        """Every node, as rows with ``fields`` as attributes, page by page.
        """
        rows = []
        path = '/v1/nodes?' + urllib.parse.urlencode(
            {'fields': ','.join(fields)})
        while path:
            page = self.client.get(path)
            rows.extend(types.SimpleNamespace(**node)
                        for node in page['nodes'])
            path = None
            if page.get('next') and page['nodes']:
                parts = urllib.parse.urlsplit(page['next'])
                path = parts.path + '?' + parts.query
        return rows

    def _look(self):
        # Each node's step progress is a field of decoded JSON: read only
        # for a terminal's table.
        rows = self.read(_FIELDS + (('driver_internal_info',)
                                    if self.live else ()))
        by_uuid = {row.uuid: row for row in rows}
        for node in self.nodes:
            row = by_uuid.get(node.uuid)
            if row is not None:
                node.seen(row)
        return rows

    def drive(self):
        """Take every node on until each has settled, or until
        :attr:`stop` is set."""
        mark = time.monotonic()
        display = progress.Display(len(self.nodes), self.stream)
        started = {}
        with concurrent.futures.ThreadPoolExecutor(self.concurrency) as pool:
            while True:
                rows = self._look()
                if not self.stop.is_set():
                    for node in self.nodes:
                        self._advance(node, pool, started)
                display.update(rows, started, time.monotonic() - mark)
                if self.stop.is_set() or all(
                        node.settled() and node.pending is None
                        for node in self.nodes):
                    break
                self.stop.wait(self.poll_interval)
            # Leaving the pool waits for the actions under way; queued ones
            # see the stop and return at once.
        display.finish(self._look(), time.monotonic() - mark)
        self.timings['drive_s'] = time.monotonic() - mark

    def _advance(self, node, pool, started):
        if node.pending is not None or node.refused is not None:
            return
        action = self._action_for(node)
        if action is None:
            return
        started.setdefault(node.name, time.monotonic())
        node.pending = action
        future = pool.submit(self._act, node, action)
        future.add_done_callback(lambda _: setattr(node, 'pending', None))

    def _action_for(self, node):
        state = node.state
        if self.resume:
            if state == 'deploy failed' and 'resume' not in node.actions:
                return 'resume'
            if state == 'clean failed' and 'manage' not in node.actions:
                return 'manage'
        action = _NEXT_ACTION.get(state)
        if action is None or action in node.actions:
            return None   # under way, settled, or back after a failure
        return action

    def _act(self, node, action):
        if self.stop.is_set():
            return   # queued before the stop: not started
        path = '/v1/nodes/%s' % node.uuid
        asked_at = _utcnow()
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
            return
        except Exception as exc:
            node.refused = '%s failed: %s' % (action, exc)
            return
        node.acted_at = asked_at
        node.actions.add(action)

    def refused(self):
        """Node name -> why the API would not take it on."""
        return {node.name: node.refused for node in self.nodes
                if node.refused}


# --- the process ----------------------------------------------------------------

class Process:
    """The run's side of a driver process, started at once so that it
    loads while the service starts.

    :param inventory: the inventory; the driver reads the run directory's
        copy, ``copy_path``, and names the file the operator named.
    :param stream: where the live view goes (the run's standard output).
    """

    def __init__(self, inventory, copy_path, concurrency, resume, stream):
        result_fd, child_fd = os.pipe()
        command = [sys.executable, '-m', 'ironic_steps.ephemeral.driver',
                   copy_path, '--named', inventory.path,
                   '--result-fd', str(child_fd),
                   '--concurrency', str(concurrency)]
        if resume:
            command.append('--resume')
        try:
            # A session of its own: a terminal's Ctrl-C reaches the run
            # alone, which passes it on as SIGTERM (that ends a driver
            # still loading at once, without a traceback).
            self._process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=stream,
                pass_fds=(child_fd,), text=True, start_new_session=True)
        finally:
            os.close(child_fd)
        self._result = os.fdopen(result_fd)

    def go(self, endpoint):
        """Drive the nodes through the API at ``endpoint``."""
        try:
            self._process.stdin.write(endpoint + '\n')
            self._process.stdin.close()
        except BrokenPipeError:
            pass   # it has ended (stopped while loading): it has no result

    def cancel(self):
        """End without driving anything (the service did not start)."""
        if not self._process.stdin.closed:
            self._process.stdin.close()

    def signal(self, signum):
        self._process.send_signal(signum)   # nothing once it has ended

    def result(self):
        """The driver's result, once it has given it (it may still be
        exiting); None if it ended without one (killed, or crashed)."""
        with self._result:
            text = self._result.read()
        return json.loads(text) if text else None

    def reap(self):
        """Its exit code, once it has exited."""
        self._result.close()   # unread, if the run ended early
        return self._process.wait()


def _parser():
    parser = argparse.ArgumentParser(
        prog='python -m ironic_steps.ephemeral.driver',
        description='Drive the nodes of an inventory through the API named '
                    'on standard input (started by ironic-steps run).')
    parser.add_argument('inventory')
    parser.add_argument('--named', help='the inventory\'s name in messages '
                                        '(default: its path)')
    parser.add_argument('--result-fd', type=int, required=True)
    parser.add_argument('--concurrency', type=int, default=CONCURRENCY)
    parser.add_argument('--resume', action='store_true')
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    stopped = []
    operator = None

    def stop(signum, _frame):
        stopped.append(signum)
        if operator is not None:
            operator.stop.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
    spec = inventory.load(args.inventory)
    spec.path = args.named or spec.path
    endpoint = sys.stdin.readline().strip()
    if not endpoint:
        return 0   # the service did not start: nothing to drive
    address = urllib.parse.urlsplit(endpoint)
    client = api_client.Client(address.hostname, address.port)
    operator = Operator(spec, client, args.concurrency, args.resume)
    if stopped:
        operator.stop.set()
    problems = operator.enrol()
    if not problems and not operator.stop.is_set():
        operator.drive()
    client.close()
    result = {'problems': problems, 'refused': operator.refused(),
              'timings': operator.timings,
              'interrupted_by': stopped[0] if stopped else None}
    with os.fdopen(args.result_fd, 'w') as out:
        json.dump(result, out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
