"""Inspection rules applied to a node as its inspection ends (API 1.96).

:func:`apply` is called once per inspection, for either inspect interface
(out-of-band ``redfish``, in-band ``agent``, ``fake``), after the
inventory is checked and the node's properties and ports recorded, and
before the inventory and plugin data are stored (so that what rules set
in the plugin data is kept, as in Ironic).  The rules are those of the
API (:class:`objects.InspectionRule`) of the phase ``main`` and those of
``[inspection_rules] built_in_rules`` (:func:`built_in_rules`), highest
``priority`` first (the API's in creation order on a tie, then the
built-in ones).  A rule whose conditions all hold has its actions run in
order (see :mod:`ironic_steps.common.inspection_rules.actions`); the rule
that fails (a ``fail`` action, or a condition or action that cannot run)
fails the inspection with an error naming it.

It saves nothing itself: the node's fields are saved with the end of the
flow (:mod:`inspection`), its traits at once by its trait methods.
While the services are pinned to a release before 0.13 no rule applies.
"""

from oslo_log import log
import yaml

from ironic_steps.common import exception
from ironic_steps.common.inspection_rules import actions
from ironic_steps.common.inspection_rules import conditions
from ironic_steps.common.inspection_rules import operations
from ironic_steps.common.inspection_rules import rule_format
from ironic_steps.common.inspection_rules import variables
from ironic_steps.conf import CONF
from ironic_steps import objects

LOG = log.getLogger(__name__)

PHASE = 'main'


def _synthetic_uuid(index):
    return '00000000-0000-0000-0000-%012x' % index


def built_in_rules(path):
    """The rules of the YAML file ``path`` (a list of rules), each
    checked; a rule without a UUID gets a synthetic one.

    :raises InspectionRulesFileInvalid: naming the file and the problem.
    """
    if not path:
        return []
    try:
        with open(path) as rules_file:
            written = yaml.safe_load(rules_file)
    except (OSError, yaml.YAMLError) as exc:
        raise exception.InspectionRulesFileInvalid(
            path=path, reason=exc) from exc
    if not isinstance(written, list):
        raise exception.InspectionRulesFileInvalid(
            path=path, reason='it must hold a list of rules')
    rules, synthetic = [], 0
    for index, rule in enumerate(written):
        try:
            rule_format.check_rule(rule, built_in=True)
        except rule_format.RuleFormatError as exc:
            raise exception.InspectionRulesFileInvalid(
                path=path, reason='rule %d: %s' % (index, exc)) from exc
        uuid = rule.get('uuid')
        if uuid is None:
            uuid, synthetic = _synthetic_uuid(synthetic), synthetic + 1
        rules.append({'uuid': uuid, 'priority': rule.get('priority', 0),
                      'sensitive': bool(rule.get('sensitive')),
                      'phase': rule.get('phase') or PHASE,
                      'conditions': rule.get('conditions') or [],
                      'actions': rule['actions']})
    return rules


def rules_to_apply(context):
    """Every rule of the ``main`` phase, in the order they apply."""
    stored = [{'uuid': rule.uuid, 'priority': rule.priority,
               'sensitive': rule.sensitive, 'conditions': rule.conditions,
               'actions': rule.actions}
              for rule in objects.InspectionRule.list(context, phase=PHASE)]
    rules = stored + built_in_rules(CONF.inspection_rules.built_in_rules)
    # sorted() is stable: ties keep creation order, built-in ones last.
    return sorted(rules, key=lambda rule: -rule['priority'])


def _apply_rule(rule, task, inventory, plugin_data):
    """Whether ``rule`` applied (its conditions held): then its actions
    ran."""
    node = task.node
    shown = variables.node_view(node)
    if variables.should_mask(rule['sensitive']):
        seen = variables.Scope(shown, variables.masked(inventory),
                               variables.masked(plugin_data))
    else:
        seen = variables.Scope(shown, inventory, plugin_data)
    for condition in rule['conditions'] or ():
        if not conditions.holds(condition, seen):
            LOG.debug('Inspection rule %s does not apply to node %s: %s '
                      'does not hold', rule['uuid'], node.uuid,
                      condition['op'])
            return False
    LOG.info('Inspection rule %s applies to node %s', rule['uuid'],
             node.uuid)
    target = actions.Target(node, plugin_data, lambda: objects.Port.list(
        task.context, filters={'node_uuid': node.uuid}))
    for action in rule['actions']:
        actions.run(action, target, seen)
    return True


def apply(task, inventory, plugin_data):
    """Apply every rule to ``task.node`` (see the module's docstring);
    ``plugin_data`` may be changed in place by them.

    :returns: the UUIDs of the rules that applied, in order.
    :raises HardwareInspectionFailure: naming the rule that failed.
    """
    node = task.node
    if objects.InspectionRule.get_target_version() is None:
        # Pinned to a release without rules: its conductors apply none.
        return []
    applied = []
    for rule in rules_to_apply(task.context):
        try:
            if _apply_rule(rule, task, inventory, plugin_data):
                applied.append(rule['uuid'])
        except actions.RuleFailure as exc:
            raise exception.HardwareInspectionFailure(
                node=node.uuid, error='inspection rule %s failed: %s' % (
                    rule['uuid'], exc.message)) from exc
        except (operations.OperationError,
                exception.IronicStepsException) as exc:
            raise exception.HardwareInspectionFailure(
                node=node.uuid, error='inspection rule %s could not be '
                'applied: %s' % (rule['uuid'], exc)) from exc
    return applied
