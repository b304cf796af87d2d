"""``openstack baremetal node deploy resume`` and ``... node service
resume``: go on from the failed step.

``openstack baremetal node deploy`` and ``... node service``
(python-ironicclient's) stay Ironic's: they start from the first step.
These commands ask ironic-steps for its extension instead.
"""

import time

from osc_lib.command import command
from osc_lib import exceptions

#: Seconds between two reads of the node while waiting.
_POLL_INTERVAL = 2


class _Resume(command.Command):
    #: The state the resumed flow failed into, and fails into again.
    failed_state = None

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('node', metavar='<node>',
                            help='Name or UUID of the node, in %s.'
                                 % self.failed_state)
        parser.add_argument(
            '--wait', type=int, dest='wait_timeout', default=None,
            metavar='<time-out>', const=0, nargs='?',
            help='Wait for the node to become active (or fail), at most '
                 '<time-out> seconds (0 or none: indefinitely).')
        return parser

    def take_action(self, parsed_args):
        client = self.app.client_manager.baremetal_steps
        client.resume(parsed_args.node)
        if parsed_args.wait_timeout is not None:
            self._wait_for_active(client, parsed_args.node,
                                  parsed_args.wait_timeout)

    def _wait_for_active(self, client, node, timeout):
        deadline = time.monotonic() + timeout if timeout else None
        while True:
            shown = client.node(node)
            state = shown['provision_state']
            if state == 'active':
                return
            if state == self.failed_state and not shown.get('reservation'):
                raise exceptions.CommandError('Node %s failed again: %s' % (
                    node, shown.get('last_error')))
            if deadline is not None and time.monotonic() > deadline:
                raise exceptions.CommandError(
                    'Node %s is still %s after %s seconds' % (node, state,
                                                              timeout))
            time.sleep(_POLL_INTERVAL)


class ResumeBaremetalNodeDeploy(_Resume):
    """Resume a failed deploy from the failed step.

    The steps before it are not run again, unless one of them is not
    resumable (its driver says so): then the deploy starts again at the
    earliest such step.  "baremetal node step preview <node>" says where.
    """

    failed_state = 'deploy failed'


class ResumeBaremetalNodeService(_Resume):
    """Resume a failed servicing from the failed step.

    The service steps before it are not run again, unless one of them is
    not resumable: then the servicing starts again at the earliest such
    step.  "baremetal node step preview <node> --service-steps <steps>"
    says where.
    """

    failed_state = 'service failed'
