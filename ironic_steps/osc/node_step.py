"""``openstack baremetal node step preview``: the plan before it runs."""

import json

from osc_lib.cli import format_columns
from osc_lib.command import command
from osc_lib import exceptions


def json_or_file(value, option):
    """``value`` as JSON, or the JSON in file ``@path`` (``-`` is stdin
    in ironicclient's commands; here only JSON or ``@path``)."""
    if value.startswith('@'):
        try:
            with open(value[1:], encoding='utf-8') as f:
                value = f.read()
        except OSError as exc:
            raise exceptions.CommandError(
                '%s: cannot read %s: %s' % (option, value[1:], exc))
    try:
        return json.loads(value)
    except ValueError as exc:
        raise exceptions.CommandError(
            '%s is neither JSON nor @file with JSON: %s' % (option, exc))


def _label(step):
    return '%s.%s' % (step['interface'], step['step'])


class PlanColumn(format_columns.ListColumn):
    """Steps, one per line for people; the API's dicts for ``-f json``."""

    def human_readable(self):
        lines = []
        for number, step in enumerate(self._value or (), 1):
            extras = ['priority %s' % step['priority'],
                      'from %s' % step['source']]
            if step.get('in_band'):
                extras.append('in-band: run by the agent')
            if step.get('timeout') is not None:
                extras.append('timeout %ss' % step['timeout'])
            if step.get('resumable') is False:
                extras.append('not resumable')
            if step.get('args'):
                extras.append('args %s' % json.dumps(step['args'],
                                                     sort_keys=True))
            lines.append('%d. %s (%s)' % (number, _label(step),
                                          ', '.join(extras)))
        return '\n'.join(lines)


class DisabledColumn(format_columns.ListColumn):

    def human_readable(self):
        return '\n'.join('%s: %s' % (_label(step), step['reason'])
                         for step in self._value or ())


class LinesColumn(format_columns.ListColumn):

    def human_readable(self):
        return '\n'.join(self._value or ())


class ResumeColumn(format_columns.DictColumn):
    """Where a resume would start, in one sentence for people."""

    def human_readable(self):
        resume = self._value
        if not resume:
            return ''
        if not resume.get('available'):
            return 'not possible: %s' % resume['reason']
        start = resume['start_step']
        return 'from step %d, %s.%s: %s' % (
            start['index'] + 1, start['interface'], start['step'],
            resume['reason'])


_COLUMNS = ('node', 'flow', 'steps', 'disabled', 'after_agent', 'errors',
            'resume')
_FORMATTERS = {'steps': PlanColumn, 'disabled': DisabledColumn,
               'after_agent': DisabledColumn,
               'errors': LinesColumn, 'resume': ResumeColumn}


class PreviewBaremetalNodeSteps(command.ShowOne):
    """Show the steps a deploy (or manual cleaning) of a node would run.

    Nothing on the node changes.  The plan is the one the deploy would
    run, from the service's own planner: the driver's steps, the deploy
    templates named by the node's instance_info/traits, and the steps
    given here.  Also shows the steps left out and why, the errors the
    request would be refused with, and where a resume of a failed deploy
    would start.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('node', metavar='<node>',
                            help='Name or UUID of the node.')
        flow = parser.add_mutually_exclusive_group()
        flow.add_argument(
            '--deploy-steps', metavar='<deploy-steps>',
            help='The deploy steps to preview with, as for "baremetal '
                 'node deploy --deploy-steps": JSON or @file holding it. '
                 'A step may also say "timeout" (seconds).')
        flow.add_argument(
            '--clean-steps', metavar='<clean-steps>',
            help='Preview manual cleaning with these clean steps (JSON or '
                 '@file holding it); implies --clean.')
        flow.add_argument(
            '--service-steps', metavar='<service-steps>',
            help='Preview servicing an active node with these service '
                 'steps (JSON or @file holding it).')
        parser.add_argument(
            '--clean', action='store_true',
            help='Preview manual cleaning instead of a deploy (needs '
                 '--clean-steps).')
        return parser

    def take_action(self, parsed_args):
        client = self.app.client_manager.baremetal_steps
        if parsed_args.clean or parsed_args.clean_steps is not None:
            if parsed_args.clean_steps is None:
                raise exceptions.CommandError(
                    '--clean needs --clean-steps: manual cleaning runs '
                    'exactly the steps given')
            flow, steps = 'clean', json_or_file(parsed_args.clean_steps,
                                                '--clean-steps')
        elif parsed_args.service_steps is not None:
            flow, steps = 'service', json_or_file(parsed_args.service_steps,
                                                  '--service-steps')
        else:
            flow = 'deploy'
            steps = (None if parsed_args.deploy_steps is None else
                     json_or_file(parsed_args.deploy_steps,
                                  '--deploy-steps'))
        preview = client.preview(parsed_args.node, flow, steps)
        return _COLUMNS, tuple(
            _FORMATTERS[name](preview.get(name)) if name in _FORMATTERS
            else preview.get(name) for name in _COLUMNS)
