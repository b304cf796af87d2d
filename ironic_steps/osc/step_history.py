"""``openstack baremetal node step history``: what steps ran on a node.

Reads ``GET /v1/nodes/{node}/x-steps/history``, an ironic-steps extension
(see its api-ref), through the plugin's client, on the endpoint and with the
credentials and ``--os-*`` options of every ``openstack baremetal``
command.
"""

import logging

from osc_lib.command import command

LOG = logging.getLogger(__name__)

_FLOWS = ('deploy', 'clean', 'service')
#: (heading, key of an entry); the first of them without --long.
_COLUMNS = (('Step', 'step'), ('Flow', 'flow'), ('Outcome', 'outcome'),
            ('Started At', 'started_at'), ('Duration', 'duration'),
            ('Error', 'error'))
_LONG_COLUMNS = _COLUMNS + (('Flow Run', 'flow_run'),
                            ('Priority', 'priority'), ('Args', 'args'),
                            ('Finished At', 'finished_at'))


def _shown(entry, key):
    if key == 'step':
        return '%s.%s' % (entry['interface'], entry['step'])
    if key == 'duration':
        # Seconds, to the millisecond: enough to compare steps.
        return round(entry['duration'], 3)
    return entry.get(key)


class ListStepHistory(command.Lister):
    """List the deploy, clean and service steps a node ran, oldest
    first."""

    log = LOG

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('node', metavar='<node>',
                            help='Name or UUID of the node.')
        parser.add_argument('--flow', choices=_FLOWS,
                            help='Only the steps of deploys, cleanings or '
                                 'servicings.')
        parser.add_argument('--flow-run', metavar='<uuid>',
                            help='Only the steps of one deploy or cleaning '
                                 '(the flow_run of its step_progress, or '
                                 'of an entry with --long).')
        parser.add_argument('--long', action='store_true',
                            help='Also show the flow run, priority, '
                                 'arguments (secrets masked) and end of '
                                 'each step.')
        return parser

    def take_action(self, parsed_args):
        client = self.app.client_manager.baremetal_steps
        filters = {}
        if parsed_args.flow:
            filters['flow'] = parsed_args.flow
        if parsed_args.flow_run:
            filters['flow_run'] = parsed_args.flow_run
        body = client.history(parsed_args.node, **filters)
        columns = _LONG_COLUMNS if parsed_args.long else _COLUMNS
        return ([heading for heading, _key in columns],
                [[_shown(entry, key) for _heading, key in columns]
                 for entry in body['history']])
