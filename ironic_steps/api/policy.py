"""Who may do what through the API: oslo.policy rules, defined in code.

Three roles, as Keystone names them: ``admin`` and ``member`` may read and
change nodes (and their traits), deploy templates and runbooks, ``reader``
may only read (nodes, their traits and BIOS settings, templates,
runbooks, ...).  Agents
heartbeat without credentials.  Operators override any rule in
``[oslo_policy] policy_file``; ``oslopolicy-sample-generator --namespace
ironic-steps`` lists them all (see :func:`list_rules`).

Who may run one step is the operator's to say, with a rule
``baremetal:step:execute:<interface>.<step>`` in the policy file
(:func:`authorize_steps`), as in Ironic 39: checked for the caller's deploy
and clean steps, for the steps of a deploy template or a runbook as its
author writes them, and for a runbook's steps when a node is to run them.

Where the roles come from is :mod:`ironic_steps.api.auth`'s business.
"""

import threading

from oslo_policy import policy

from ironic_steps.api import errors
from ironic_steps.common import step_kinds
from ironic_steps.conf import CONF
from ironic_steps import release_mappings

# Written out in roles rather than through alias rules: each level of
# rule:... indirection costs a request about 0.05 ms in oslo.policy.
_READ = 'role:admin or role:member or role:reader'
_WRITE = 'role:admin or role:member'
_ADMIN = 'role:admin'


def _rule(name, check, description, *operations):
    return policy.DocumentedRuleDefault(
        name, check, description,
        [{'method': method, 'path': path} for method, path in operations])


def _resource_rules(name, what, collection, ident):
    """get/list/create/update/delete of one kind of record."""
    top = '/' + collection
    item = '%s/{%s}' % (top, ident)
    return [
        _rule('baremetal:%s:get' % name, _READ, 'Show a %s.' % what,
              ('GET', item)),
        _rule('baremetal:%s:list' % name, _READ, 'List %s.' % collection,
              ('GET', top), ('GET', top + '/detail')),
        _rule('baremetal:%s:create' % name, _WRITE, 'Create a %s.' % what,
              ('POST', top)),
        _rule('baremetal:%s:update' % name, _WRITE, 'Change a %s.' % what,
              ('PATCH', item)),
        _rule('baremetal:%s:delete' % name, _WRITE, 'Delete a %s.' % what,
              ('DELETE', item)),
    ]


_RESOURCE_RULES = (
    _resource_rules('chassis', 'chassis', 'chassis', 'chassis_id')
    + _resource_rules('port', 'port', 'ports', 'port_id')
    + _resource_rules('portgroup', 'portgroup', 'portgroups',
                      'portgroup_ident')
    # Connectors and targets share Ironic's baremetal:volume:* rules.
    + [_rule('baremetal:volume:%s' % action, check,
             '%s volume connectors and targets.' % verb, *operations)
       for action, check, verb, operations in (
           ('get', _READ, 'Show', (('GET', '/volume/connectors/{id}'),
                                   ('GET', '/volume/targets/{id}'))),
           ('list', _READ, 'List', (('GET', '/volume/connectors'),
                                    ('GET', '/volume/targets'))),
           ('create', _WRITE, 'Create', (('POST', '/volume/connectors'),
                                         ('POST', '/volume/targets'))),
           ('update', _WRITE, 'Change', (
               ('PATCH', '/volume/connectors/{id}'),
               ('PATCH', '/volume/targets/{id}'))),
           ('delete', _WRITE, 'Delete', (
               ('DELETE', '/volume/connectors/{id}'),
               ('DELETE', '/volume/targets/{id}'))))]
    + [_rule('baremetal:node:vif:list', _READ, "List a node's VIFs.",
             ('GET', '/nodes/{node_ident}/vifs')),
       _rule('baremetal:node:vif:attach', _WRITE,
             'Attach a VIF to a port or portgroup of a node.',
             ('POST', '/nodes/{node_ident}/vifs')),
       _rule('baremetal:node:vif:detach', _WRITE, 'Detach a VIF from a node.',
             ('DELETE', '/nodes/{node_ident}/vifs/{vif_id}'))]
)

_RULES = [
    _rule('baremetal:node:get', _READ, 'Show a node and its states.',
          ('GET', '/nodes/{node_ident}'),
          ('GET', '/nodes/{node_ident}/states')),
    _rule('baremetal:node:list', _READ, 'List nodes.',
          ('GET', '/nodes'), ('GET', '/nodes/detail')),
    _rule('baremetal:node:create', _WRITE, 'Create a node.',
          ('POST', '/nodes')),
    _rule('baremetal:node:update', _WRITE, 'Change a node\'s fields.',
          ('PATCH', '/nodes/{node_ident}')),
    _rule('baremetal:node:delete', _WRITE, 'Delete a node.',
          ('DELETE', '/nodes/{node_ident}')),
    _rule('baremetal:node:set_provision_state', _WRITE,
          'Manage, provide, deploy, rebuild, clean, abort or tear down a '
          'node.',
          ('PUT', '/nodes/{node_ident}/states/provision')),
    _rule('baremetal:node:set_power_state', _WRITE,
          'Power a node on or off, or reboot it.',
          ('PUT', '/nodes/{node_ident}/states/power')),
    _rule('baremetal:node:set_raid_state', _WRITE,
          'Set the target RAID configuration of a node.',
          ('PUT', '/nodes/{node_ident}/states/raid')),
    _rule('baremetal:node:set_boot_mode', _WRITE,
          'Set the boot mode of a node.',
          ('PUT', '/nodes/{node_ident}/states/boot_mode')),
    _rule('baremetal:node:set_secure_boot', _WRITE,
          'Turn secure boot on or off on a node.',
          ('PUT', '/nodes/{node_ident}/states/secure_boot')),
    _rule('baremetal:node:set_maintenance', _WRITE,
          'Put a node in maintenance.',
          ('PUT', '/nodes/{node_ident}/maintenance')),
    _rule('baremetal:node:clear_maintenance', _WRITE,
          'Take a node out of maintenance.',
          ('DELETE', '/nodes/{node_ident}/maintenance')),
    _rule('baremetal:node:validate', _WRITE,
          'Check what each interface of a node needs.',
          ('GET', '/nodes/{node_ident}/validate')),
    _rule('baremetal:node:traits:list', _READ, 'List a node\'s traits.',
          ('GET', '/nodes/{node_ident}/traits')),
    _rule('baremetal:node:traits:set', _WRITE,
          'Add a trait to a node, or replace all its traits.',
          ('PUT', '/nodes/{node_ident}/traits'),
          ('PUT', '/nodes/{node_ident}/traits/{trait}')),
    _rule('baremetal:node:traits:delete', _WRITE,
          'Remove one or all traits of a node.',
          ('DELETE', '/nodes/{node_ident}/traits'),
          ('DELETE', '/nodes/{node_ident}/traits/{trait}')),
    _rule('baremetal:node:bios:get', _READ,
          'List and show the BIOS settings cached for a node.',
          ('GET', '/nodes/{node_ident}/bios'),
          ('GET', '/nodes/{node_ident}/bios/{setting_name}')),
    _rule('baremetal:node:get_boot_device', _READ,
          'Show the boot device of a node, and the devices it supports.',
          ('GET', '/nodes/{node_ident}/management/boot_device'),
          ('GET', '/nodes/{node_ident}/management/boot_device/supported')),
    _rule('baremetal:node:set_boot_device', _WRITE,
          'Set the boot device of a node.',
          ('PUT', '/nodes/{node_ident}/management/boot_device')),
    _rule('baremetal:node:get_console', _READ,
          'Show whether the console of a node is enabled.',
          ('GET', '/nodes/{node_ident}/states/console')),
    _rule('baremetal:node:set_console_state', _WRITE,
          'Enable or disable the console of a node.',
          ('PUT', '/nodes/{node_ident}/states/console')),
    _rule('baremetal:node:vendor_passthru', _WRITE,
          'List the vendor passthru methods of a node.',
          ('GET', '/nodes/{node_ident}/vendor_passthru/methods')),
    _rule('baremetal:node:x-steps:history:get', _READ,
          'Read the step history of a node (an ironic-steps extension).',
          ('GET', '/nodes/{node_ident}/x-steps/history')),
    _rule('baremetal:node:history:get', _READ,
          'List and show the events in the history of a node.',
          ('GET', '/nodes/{node_ident}/history'),
          ('GET', '/nodes/{node_ident}/history/{event_ident}')),
    _rule('baremetal:node:inventory:get', _READ,
          'Show what the last inspection of a node found.',
          ('GET', '/nodes/{node_ident}/inventory')),
    _rule('baremetal:node:firmware:get', _READ,
          'List the firmware components of a node and their versions.',
          ('GET', '/nodes/{node_ident}/firmware')),
    _rule('baremetal:node:vmedia:attach', _WRITE,
          'Attach an image as a virtual media device of a node.',
          ('POST', '/nodes/{node_ident}/vmedia')),
    _rule('baremetal:node:vmedia:detach', _WRITE,
          'Detach the virtual media devices of a node.',
          ('DELETE', '/nodes/{node_ident}/vmedia')),
    _rule('baremetal:node:vmedia:get', _READ,
          'List the virtual media devices of a node.',
          ('GET', '/nodes/{node_ident}/vmedia')),
    _rule('baremetal:node:update:shard', _ADMIN,
          'Set or change the shard of a node (a PATCH of /shard).',
          ('PATCH', '/nodes/{node_ident}')),
    _rule('baremetal:node:update:parent_node', _WRITE,
          'Set or change the parent node of a node (a PATCH of '
          '/parent_node).',
          ('PATCH', '/nodes/{node_ident}')),
    _rule('baremetal:node:update:disable_power_off', _ADMIN,
          'Allow or forbid powering a node off (a PATCH of '
          '/disable_power_off).',
          ('PATCH', '/nodes/{node_ident}')),
    _rule('baremetal:shards:get', _READ,
          'List the shards of nodes and how many nodes each has.',
          ('GET', '/shards')),
    _rule('baremetal:node:ipa_heartbeat', '@',
          'An agent reports in; open to all, agents have no credentials '
          '(they prove themselves with their agent token).',
          ('POST', '/heartbeat/{node_ident}')),
    _rule('baremetal:driver:ipa_lookup', '@',
          'An agent looks its node up and gets its agent token, once; '
          'open to all, agents have no credentials.',
          ('GET', '/lookup')),
    _rule('baremetal:driver:ipa_continue_inspection', '@',
          'An agent posts the inventory of a node inspected in band; open '
          'to all, agents have no credentials.',
          ('POST', '/continue_inspection')),
    _rule('baremetal:driver:get', _READ, 'List and show drivers.',
          ('GET', '/drivers'), ('GET', '/drivers/{driver_name}')),
    _rule('baremetal:driver:get_properties', _READ,
          'Show what a driver reads from driver_info.',
          ('GET', '/drivers/{driver_name}/properties')),
    _rule('baremetal:driver:get_raid_logical_disk_properties', _READ,
          'Show what a logical disk of a driver\'s RAID layout may say.',
          ('GET', '/drivers/{driver_name}/raid/logical_disk_properties')),
    _rule('baremetal:driver:vendor_passthru', _WRITE,
          'List the vendor passthru methods of a driver.',
          ('GET', '/drivers/{driver_name}/vendor_passthru/methods')),
    _rule('baremetal:conductor:get', _READ, 'List and show conductors.',
          ('GET', '/conductors'), ('GET', '/conductors/{hostname}')),
    _rule('baremetal:deploy_template:get', _READ,
          'List and show deploy templates.',
          ('GET', '/deploy_templates'), ('GET', '/deploy_templates/detail'),
          ('GET', '/deploy_templates/{deploy_template_ident}')),
    _rule('baremetal:deploy_template:create', _WRITE,
          'Create a deploy template.', ('POST', '/deploy_templates')),
    _rule('baremetal:deploy_template:update', _WRITE,
          'Change a deploy template.',
          ('PATCH', '/deploy_templates/{deploy_template_ident}')),
    _rule('baremetal:deploy_template:delete', _WRITE,
          'Delete a deploy template.',
          ('DELETE', '/deploy_templates/{deploy_template_ident}')),
    _rule('baremetal:runbook:get', _READ,
          'Show a runbook and its traits.',
          ('GET', '/runbooks/{runbook_ident}'),
          ('GET', '/runbooks/{runbook_ident}/traits')),
    _rule('baremetal:runbook:list', _READ, 'List runbooks.',
          ('GET', '/runbooks'), ('GET', '/runbooks/detail')),
    _rule('baremetal:runbook:create', _WRITE, 'Create a runbook.',
          ('POST', '/runbooks')),
    _rule('baremetal:runbook:update', _WRITE,
          'Change a runbook or its traits.',
          ('PATCH', '/runbooks/{runbook_ident}'),
          ('PUT', '/runbooks/{runbook_ident}/traits'),
          ('PUT', '/runbooks/{runbook_ident}/traits/{trait}'),
          ('DELETE', '/runbooks/{runbook_ident}/traits'),
          ('DELETE', '/runbooks/{runbook_ident}/traits/{trait}')),
    _rule('baremetal:runbook:update:owner', _ADMIN,
          'Change the owner of a runbook (a PATCH of /owner).',
          ('PATCH', '/runbooks/{runbook_ident}')),
    _rule('baremetal:runbook:update:public', _ADMIN,
          'Make a runbook public or private (a PATCH of /public).',
          ('PATCH', '/runbooks/{runbook_ident}')),
    _rule('baremetal:runbook:delete', _WRITE, 'Delete a runbook.',
          ('DELETE', '/runbooks/{runbook_ident}')),
    _rule('baremetal:runbook:use', _WRITE,
          'Run a runbook on a node (the clean target with a runbook).',
          ('PUT', '/nodes/{node_ident}/states/provision')),
    *_RESOURCE_RULES,
    _rule('baremetal:allocation:get', _READ, 'Show an allocation.',
          ('GET', '/allocations/{allocation_id}'),
          ('GET', '/nodes/{node_ident}/allocation')),
    _rule('baremetal:allocation:list', _READ, 'List allocations.',
          ('GET', '/allocations')),
    _rule('baremetal:allocation:create', _WRITE,
          'Create an allocation: ask for a node, or backfill a deployed '
          'one.', ('POST', '/allocations')),
    _rule('baremetal:allocation:update', _WRITE,
          'Change the name and extra of an allocation.',
          ('PATCH', '/allocations/{allocation_id}')),
    _rule('baremetal:allocation:delete', _WRITE,
          'Delete an allocation, releasing its node.',
          ('DELETE', '/allocations/{allocation_id}'),
          ('DELETE', '/nodes/{node_ident}/allocation')),
]

_enforcer = None
_enforcer_lock = threading.Lock()

#: (rule, roles) -> True: the grants of the rules in code, remembered.
#: Each of those rules checks roles only (a test holds them to that), so
#: its answer depends on the caller's roles alone; asking oslo.policy
#: costs a request about 0.1 ms.  Refusals are not remembered.
_granted = {}
_MAX_GRANTS = 1024


def list_rules():
    """Every default rule (the ``oslo.policy.policies`` entry point)."""
    return list(_RULES)


def get_enforcer():
    """The process-wide enforcer, built on first use."""
    global _enforcer
    with _enforcer_lock:
        if _enforcer is None:
            enforcer = policy.Enforcer(CONF)
            enforcer.register_defaults(list_rules())
            enforcer.load_rules()
            if enforcer.policy_path is None:
                # No policy file: the rules in code are all there is, so
                # stop looking for one on every request (~0.07 ms each).
                # A file added later takes effect at the next restart.
                enforcer.use_conf = False
            _enforcer = enforcer
        return _enforcer


def get_oslo_policy_enforcer():
    """For the oslopolicy-* tools (the ``oslo.policy.enforcer`` entry point)."""
    CONF([], project='ironic-steps')
    return get_enforcer()


def reset():
    """Forget the enforcer, so that the next check reloads (tests)."""
    global _enforcer
    with _enforcer_lock:
        _enforcer = None
        _granted.clear()


#: The rule an operator may write, in the policy file, to say who may run
#: one step (``interface.step``), as in Ironic 39.  There is no default:
#: without the rule, whoever may make the request may run the step.
STEP_RULE = 'baremetal:step:execute:%s'
#: The first release that checks step rules (older API services do not).
STEP_RULES_SINCE = '0.9'


def authorize_steps(context, steps, node=None):
    """Check the step rules the policy file has for ``steps``.

    :param steps: step dicts as a request gives them (the caller's deploy
        or clean steps, a deploy template's); what is not a well-formed
        step is left to the planner, which refuses it (400).
    :param node: a callable returning the node the steps would run on:
        read only when some rule applies, so that a rule may compare
        ``node.owner`` and ``node.lessee`` with the caller's project.
    :raises Forbidden: naming the rule (and so the step) of the first
        step the caller may not run.
    """
    if release_mappings.pinned_before(CONF, STEP_RULES_SINCE):
        return
    enforcer = get_enforcer()
    if not enforcer.use_conf:
        return   # no policy file: only the rules in code, none per step
    enforcer.load_rules()
    rules = [STEP_RULE % label for step in steps if isinstance(step, dict)
             and isinstance(step.get('interface'), str)
             and isinstance(step.get('step'), str)
             for label in step_kinds.labels(step['interface'], step['step'])]
    rules = [rule for rule in rules if rule in enforcer.rules]
    if not rules:
        return
    target = dict(context.to_policy_values())
    if node is not None:
        row = node()
        target.update({'node.owner': row.owner, 'node.lessee': row.lessee})
    for rule in rules:
        # enforce(), not authorize(): these rules exist only in the file.
        enforcer.enforce(rule, target, context, do_raise=True,
                         exc=errors.Forbidden, policy=rule,
                         roles=', '.join(context.roles) or '(none)')


def authorize(rule, context, target=None):
    """:raises Forbidden: unless ``context`` may do ``rule``."""
    enforcer = get_enforcer()
    # Only without a policy file: a file may hold rules of any kind, and
    # oslo.policy reloads it when it changes.
    key = ((rule, frozenset(context.roles))
           if target is None and not enforcer.use_conf else None)
    if key is not None and key in _granted:
        return
    enforcer.authorize(
        rule, target or {}, context, do_raise=True, exc=errors.Forbidden,
        policy=rule, roles=', '.join(context.roles) or '(none)')
    if key is not None and len(_granted) < _MAX_GRANTS:
        _granted[key] = True
