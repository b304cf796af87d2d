"""The default policy rules, in code: Ironic 39's secure RBAC personas.

Who is who (oslo.policy check strings, built from the persona below):

* a **system** caller has a system-scoped token (Keystone), or is the
  ``noauth`` caller or an HTTP basic user without a project
  (:mod:`ironic_steps.api.auth`): admin, member and reader, each able to do
  less than the one before, on every node;
* a **project** caller has a project-scoped token (or an HTTP basic user
  given a project): admin, manager, member and reader of the project,
  which sees a node when the project is its ``owner`` or its ``lessee``.
  The owner's members do more than the lessee's (the owner lends the
  node); only system callers see and change the infrastructure fields;
* the ``service`` role (another service, e.g. Nova's or Metal3's account)
  does what a system member does.

The targets are those of Ironic: ``node.owner`` and ``node.lessee`` for a
node and everything that hangs off it, ``allocation.owner`` for an
allocation.  Which rule each endpoint checks, and with what target, is
:mod:`ironic_steps.api.tenancy`'s; enforcing them is
:mod:`ironic_steps.api.policy`'s.  This module only says what the rules
are, for the enforcer and the sample generator.
"""

from oslo_policy import policy

# Written out, not through rule:... aliases: each level of indirection
# costs a request about 0.05 ms in oslo.policy.
SYSTEM_ADMIN = 'role:admin and system_scope:all'
SYSTEM_MEMBER = ('(role:member and system_scope:all) or '
                 '(role:admin and system_scope:all) or '
                 '(role:service and system_scope:all)')
SYSTEM_READER = ('(role:reader and system_scope:all) or ' + SYSTEM_MEMBER)

_OWNER = 'project_id:%(node.owner)s'
_LESSEE = 'project_id:%(node.lessee)s'
_OWNER_OR_LESSEE = '(%s or %s)' % (_OWNER, _LESSEE)
PROJECT_SERVICE = 'role:service and ' + _OWNER
OWNER_ADMIN = '(role:admin or role:manager) and ' + _OWNER
LESSEE_ADMIN = '(role:admin or role:manager) and ' + _LESSEE
OWNER_MEMBER = '(role:admin or role:manager or role:member) and ' + _OWNER
OWNER_READER = ('(role:admin or role:manager or role:member or '
                'role:reader) and ' + _OWNER)
PROJECT_MEMBER = ('(role:admin or role:manager or role:member) and '
                  + _OWNER_OR_LESSEE)
PROJECT_READER = ('(role:admin or role:manager or role:member or '
                  'role:reader) and ' + _OWNER_OR_LESSEE)


def _any(*checks):
    return ' or '.join('(%s)' % check for check in checks)


# The combinations Ironic's defaults use, named as Ironic names them.
SYSTEM_OR_PROJECT_READER = _any(SYSTEM_READER, PROJECT_READER,
                                PROJECT_SERVICE)
SYSTEM_OR_PROJECT_MEMBER = _any(SYSTEM_MEMBER, PROJECT_MEMBER,
                                PROJECT_SERVICE)
SYSTEM_OR_OWNER_READER = _any(SYSTEM_READER, OWNER_READER, PROJECT_SERVICE)
SYSTEM_OR_OWNER_MEMBER = _any(SYSTEM_MEMBER, OWNER_MEMBER, PROJECT_SERVICE)
SYSTEM_OR_OWNER_ADMIN = _any(SYSTEM_MEMBER, OWNER_ADMIN, PROJECT_SERVICE)
SYSTEM_ADMIN_OR_OWNER_ADMIN = _any(SYSTEM_ADMIN, OWNER_ADMIN,
                                   PROJECT_SERVICE)
SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN = _any(
    SYSTEM_MEMBER, OWNER_MEMBER, LESSEE_ADMIN, PROJECT_SERVICE)
SYSTEM_OR_OWNER_OR_LESSEE_ADMIN = _any(SYSTEM_MEMBER, OWNER_ADMIN,
                                       LESSEE_ADMIN, PROJECT_SERVICE)
#: Project callers may ask for a list: it is filtered to their nodes.
API_READER = 'role:reader or role:member or role:admin or role:service'
_ALLOCATION_OWNER = 'project_id:%(allocation.owner)s'
ALLOCATION_READER = _any(SYSTEM_READER, '(role:admin or role:manager or '
                         'role:member or role:reader) and '
                         + _ALLOCATION_OWNER)
ALLOCATION_MEMBER = _any(SYSTEM_MEMBER, '(role:admin or role:manager or '
                         'role:member) and ' + _ALLOCATION_OWNER)

SYSTEM = ['system']
BOTH = ['system', 'project']


def rule(name, check, description, operations, scope_types=BOTH):
    """A documented rule; ``operations``: (method, path) pairs."""
    return policy.DocumentedRuleDefault(
        name, check, description,
        [{'method': method, 'path': path} for method, path in operations],
        scope_types=scope_types)


def _node(path=''):
    return '/nodes/{node_ident}' + path


_ANY_PATCH = [('PATCH', _node())]

NODE_RULES = [
    rule('baremetal:node:get', SYSTEM_OR_PROJECT_READER,
         'Show a node and its states. A project caller who may not '
         'see a node is answered 404 for it, as if it did not exist.',
         [('GET', _node()), ('GET', _node('/states'))]),
    rule('baremetal:node:list', API_READER,
         'List nodes: a project caller sees the nodes its project owns '
         'or leases.', [('GET', '/nodes'), ('GET', '/nodes/detail')]),
    rule('baremetal:node:list_all', SYSTEM_READER,
         'List every node, whoever owns it.',
         [('GET', '/nodes'), ('GET', '/nodes/detail')]),
    rule('baremetal:node:get:filter_threshold', SYSTEM_READER,
         'Whoever passes this rule sees every field of a node; others '
         'see last_error, reservation, driver_info and '
         'driver_internal_info only as the rules below allow.',
         [('GET', _node()), ('GET', '/nodes/detail')]),
    rule('baremetal:node:get:last_error', SYSTEM_OR_OWNER_READER,
         "See a node's last_error (below the filter threshold).",
         [('GET', _node()), ('GET', '/nodes/detail')]),
    rule('baremetal:node:get:reservation', SYSTEM_OR_OWNER_READER,
         "See which conductor holds a node's lock (below the filter "
         'threshold).', [('GET', _node()), ('GET', '/nodes/detail')]),
    rule('baremetal:node:get:driver_info', SYSTEM_OR_OWNER_READER,
         "See a node's driver_info (below the filter threshold).",
         [('GET', _node()), ('GET', '/nodes/detail')]),
    rule('baremetal:node:get:driver_internal_info', SYSTEM_OR_OWNER_READER,
         "See a node's driver_internal_info (below the filter threshold).",
         [('GET', _node()), ('GET', '/nodes/detail')]),
    rule('baremetal:node:create', _any(SYSTEM_ADMIN,
                                       'role:service and system_scope:all'),
         'Create a node, owned by whoever the request says.',
         [('POST', '/nodes')], SYSTEM),
    rule('baremetal:node:create:self_owned_node',
         'role:admin or role:service',
         'Create a node owned by the caller\'s own project (API 1.80), '
         'for a project caller refused baremetal:node:create.',
         [('POST', '/nodes')], ['project']),
    rule('baremetal:node:update', SYSTEM_OR_PROJECT_MEMBER,
         "Change a node's fields that no rule below names.", _ANY_PATCH),
    rule('baremetal:node:update_extra', SYSTEM_OR_PROJECT_MEMBER,
         "Change a node's extra.", _ANY_PATCH),
    rule('baremetal:node:update_instance_info',
         SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
         "Change a node's instance_info.", _ANY_PATCH),
    rule('baremetal:node:update_owner_provisioned', SYSTEM_ADMIN,
         'Change the owner of a node that is deployed (active).',
         _ANY_PATCH),
    rule('baremetal:node:disable_cleaning', SYSTEM_ADMIN,
         'Turn automated cleaning off for a node (automated_clean false).',
         _ANY_PATCH),
] + [
    rule('baremetal:node:update:' + field, check,
         "Change a node's %s." % what, _ANY_PATCH, scopes)
    for field, check, what, scopes in (
        ('driver_info', SYSTEM_OR_OWNER_MEMBER, 'driver_info', BOTH),
        ('properties', SYSTEM_OR_OWNER_MEMBER, 'properties', BOTH),
        ('chassis_uuid', SYSTEM_ADMIN, 'chassis', SYSTEM),
        ('instance_uuid', SYSTEM_OR_OWNER_MEMBER, 'instance_uuid', BOTH),
        ('lessee', SYSTEM_OR_OWNER_MEMBER, 'lessee', BOTH),
        ('owner', SYSTEM_MEMBER, 'owner', SYSTEM),
        ('driver_interfaces', SYSTEM_OR_OWNER_ADMIN,
         'driver or any of its *_interface fields', BOTH),
        ('network_data', SYSTEM_OR_OWNER_MEMBER, 'network_data', BOTH),
        ('conductor_group', SYSTEM_MEMBER, 'conductor_group', SYSTEM),
        ('name', SYSTEM_OR_OWNER_MEMBER, 'name', BOTH),
        ('retired', SYSTEM_OR_OWNER_MEMBER, 'retired and retired_reason',
         BOTH),
        ('shard', SYSTEM_ADMIN, 'shard', SYSTEM),
        ('parent_node', SYSTEM_MEMBER, 'parent node', SYSTEM),
        # API 1.95: a node that must never be powered off.
        ('disable_power_off', SYSTEM_ADMIN, 'disable_power_off', SYSTEM))
] + [
    rule('baremetal:node:delete', SYSTEM_ADMIN, 'Delete a node.',
         [('DELETE', _node())], SYSTEM),
    rule('baremetal:node:delete:self_owned_node',
         '(role:admin or role:manager) and ' + _OWNER,
         "Delete a node the caller's project owns (API 1.80), for a "
         'project caller refused baremetal:node:delete.',
         [('DELETE', _node())], ['project']),
    rule('baremetal:node:validate', SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
         'Check what each interface of a node needs.',
         [('GET', _node('/validate'))]),
    rule('baremetal:node:set_provision_state',
         SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
         'Manage, provide, deploy, rebuild, clean, abort or tear down a '
         'node.', [('PUT', _node('/states/provision'))]),
    rule('baremetal:node:set_power_state', SYSTEM_OR_PROJECT_MEMBER,
         'Power a node on or off, or reboot it.',
         [('PUT', _node('/states/power'))]),
    rule('baremetal:node:set_raid_state', SYSTEM_OR_OWNER_MEMBER,
         'Set the target RAID configuration of a node.',
         [('PUT', _node('/states/raid'))]),
    rule('baremetal:node:set_boot_mode', SYSTEM_OR_PROJECT_MEMBER,
         'Set the boot mode of a node.',
         [('PUT', _node('/states/boot_mode'))]),
    rule('baremetal:node:set_secure_boot', SYSTEM_OR_PROJECT_MEMBER,
         'Turn secure boot on or off on a node.',
         [('PUT', _node('/states/secure_boot'))]),
    rule('baremetal:node:set_maintenance',
         SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
         'Put a node in maintenance.', [('PUT', _node('/maintenance'))]),
    rule('baremetal:node:clear_maintenance',
         SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
         'Take a node out of maintenance.',
         [('DELETE', _node('/maintenance'))]),
    rule('baremetal:node:get_boot_device', SYSTEM_OR_OWNER_ADMIN,
         'Show the boot device of a node, and the devices it supports.',
         [('GET', _node('/management/boot_device')),
          ('GET', _node('/management/boot_device/supported'))]),
    rule('baremetal:node:set_boot_device', SYSTEM_OR_OWNER_ADMIN,
         'Set the boot device of a node.',
         [('PUT', _node('/management/boot_device'))]),
    rule('baremetal:node:inject_nmi', SYSTEM_OR_OWNER_ADMIN,
         'Send a node a non-maskable interrupt.',
         [('PUT', _node('/management/inject_nmi'))]),
    rule('baremetal:node:get_console', SYSTEM_OR_OWNER_MEMBER,
         'Show whether the console of a node is enabled.',
         [('GET', _node('/states/console'))]),
    rule('baremetal:node:set_console_state', SYSTEM_OR_OWNER_MEMBER,
         'Enable or disable the console of a node.',
         [('PUT', _node('/states/console'))]),
    rule('baremetal:node:vendor_passthru', SYSTEM_ADMIN,
         'List the vendor passthru methods of a node.',
         [('GET', _node('/vendor_passthru/methods'))], SYSTEM),
    rule('baremetal:node:vif:list', SYSTEM_OR_PROJECT_READER,
         "List a node's VIFs.", [('GET', _node('/vifs'))]),
    rule('baremetal:node:vif:attach', SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
         'Attach a VIF to a port or portgroup of a node.',
         [('POST', _node('/vifs'))]),
    rule('baremetal:node:vif:detach', SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
         'Detach a VIF from a node.', [('DELETE', _node('/vifs/{vif_id}'))]),
    rule('baremetal:node:traits:list', SYSTEM_OR_PROJECT_READER,
         "List a node's traits.", [('GET', _node('/traits'))]),
    rule('baremetal:node:traits:set', SYSTEM_OR_OWNER_ADMIN,
         'Add a trait to a node, or replace all its traits.',
         [('PUT', _node('/traits')), ('PUT', _node('/traits/{trait}'))]),
    rule('baremetal:node:traits:delete', SYSTEM_OR_OWNER_ADMIN,
         'Remove one or all traits of a node.',
         [('DELETE', _node('/traits')),
          ('DELETE', _node('/traits/{trait}'))]),
    rule('baremetal:node:bios:get', SYSTEM_OR_PROJECT_READER,
         'List and show the BIOS settings cached for a node.',
         [('GET', _node('/bios')), ('GET', _node('/bios/{setting_name}'))]),
    rule('baremetal:node:x-steps:history:get', SYSTEM_OR_OWNER_READER,
         'Read the step history of a node (an ironic-steps extension).',
         [('GET', _node('/x-steps/history'))]),
    rule('baremetal:node:history:get', SYSTEM_OR_OWNER_READER,
         'List and show the events in the history of a node.',
         [('GET', _node('/history')),
          ('GET', _node('/history/{event_ident}'))]),
    rule('baremetal:node:inventory:get', SYSTEM_OR_OWNER_READER,
         'Show what the last inspection of a node found.',
         [('GET', _node('/inventory'))]),
    rule('baremetal:node:firmware:get', SYSTEM_OR_PROJECT_READER,
         'List the firmware components of a node and their versions.',
         [('GET', _node('/firmware'))]),
    rule('baremetal:node:vmedia:attach', SYSTEM_OR_PROJECT_MEMBER,
         'Attach an image as a virtual media device of a node.',
         [('POST', _node('/vmedia'))]),
    rule('baremetal:node:vmedia:detach', SYSTEM_OR_PROJECT_MEMBER,
         'Detach the virtual media devices of a node.',
         [('DELETE', _node('/vmedia'))]),
    rule('baremetal:node:vmedia:get', SYSTEM_OR_PROJECT_READER,
         'List the virtual media devices of a node.',
         [('GET', _node('/vmedia'))]),
    rule('baremetal:shards:get', SYSTEM_READER,
         'List the shards of nodes and how many nodes each has.',
         [('GET', '/shards')], SYSTEM),
]


def _resource_rules(name, what, collection, ident, checks, scopes=BOTH):
    """get/list/list_all/create/update/delete of one kind of record.

    ``checks``: the (get, create, update, delete) check strings.
    """
    top = '/' + collection
    item = '%s/{%s}' % (top, ident)
    get, create, update, delete = checks
    return [
        rule('baremetal:%s:get' % name, get, 'Show a %s.' % what,
             [('GET', item)], scopes),
        rule('baremetal:%s:list' % name,
             API_READER if scopes == BOTH else SYSTEM_READER,
             'List %s (a project caller: those of its nodes).' % collection,
             [('GET', top), ('GET', top + '/detail')], scopes),
        rule('baremetal:%s:list_all' % name, SYSTEM_READER,
             'List every %s, whoever owns its node.' % what,
             [('GET', top), ('GET', top + '/detail')], SYSTEM),
        rule('baremetal:%s:create' % name, create, 'Create a %s.' % what,
             [('POST', top)], scopes),
        rule('baremetal:%s:update' % name, update, 'Change a %s.' % what,
             [('PATCH', item)], scopes),
        rule('baremetal:%s:delete' % name, delete, 'Delete a %s.' % what,
             [('DELETE', item)], scopes),
    ]


_PORT_CHECKS = (SYSTEM_OR_PROJECT_READER, SYSTEM_ADMIN_OR_OWNER_ADMIN,
                SYSTEM_OR_OWNER_ADMIN, SYSTEM_ADMIN_OR_OWNER_ADMIN)
_VOLUME_CHECKS = (SYSTEM_OR_PROJECT_READER, SYSTEM_OR_OWNER_OR_LESSEE_ADMIN,
                  SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
                  SYSTEM_OR_OWNER_OR_LESSEE_ADMIN)
_VOLUME_PATHS = {'connectors': 'volume/connectors',
                 'targets': 'volume/targets'}

RESOURCE_RULES = (
    _resource_rules('chassis', 'chassis', 'chassis', 'chassis_id',
                    (SYSTEM_READER, SYSTEM_ADMIN, SYSTEM_MEMBER,
                     SYSTEM_ADMIN), SYSTEM)
    + _resource_rules('port', 'port', 'ports', 'port_id', _PORT_CHECKS)
    + _resource_rules('portgroup', 'portgroup', 'portgroups',
                      'portgroup_ident', _PORT_CHECKS)
    # Connectors and targets share Ironic's baremetal:volume:* rules.
    + _resource_rules('volume', 'volume connector or target',
                      'volume/{connectors,targets}', 'id', _VOLUME_CHECKS))


def _system_rules(name, what, collection, ident, reads, writes):
    """Rules of records only system callers see (as in Ironic)."""
    top = '/' + collection
    item = '%s/{%s}' % (top, ident)
    return [
        rule('baremetal:%s:get' % name, reads, 'List and show %s.' % what,
             [('GET', top), ('GET', top + '/detail'), ('GET', item)],
             SYSTEM),
        rule('baremetal:%s:create' % name, writes, 'Create a %s.' % name,
             [('POST', top)], SYSTEM),
        rule('baremetal:%s:update' % name, writes, 'Change a %s.' % name,
             [('PATCH', item)], SYSTEM),
        rule('baremetal:%s:delete' % name, writes, 'Delete a %s.' % name,
             [('DELETE', item)], SYSTEM),
    ]


_ALLOCATION = '/allocations/{allocation_id}'
_RUNBOOK_WRITER = 'role:admin or role:manager or role:member or role:service'

OTHER_RULES = [
    rule('baremetal:node:ipa_heartbeat', '@',
         'An agent reports in; open to all, agents have no credentials '
         '(they prove themselves with their agent token).',
         [('POST', '/heartbeat/{node_ident}')]),
    rule('baremetal:driver:ipa_lookup', '@',
         'An agent looks its node up and gets its agent token, once; '
         'open to all, agents have no credentials.', [('GET', '/lookup')]),
    rule('baremetal:driver:ipa_continue_inspection', '@',
         'An agent posts the inventory of a node inspected in band; open '
         'to all, agents have no credentials.',
         [('POST', '/continue_inspection')]),
    rule('baremetal:driver:get', SYSTEM_READER, 'List and show drivers.',
         [('GET', '/drivers'), ('GET', '/drivers/{driver_name}')], SYSTEM),
    rule('baremetal:driver:get_properties', SYSTEM_READER,
         'Show what a driver reads from driver_info.',
         [('GET', '/drivers/{driver_name}/properties')], SYSTEM),
    rule('baremetal:driver:get_raid_logical_disk_properties', SYSTEM_READER,
         "Show what a logical disk of a driver's RAID layout may say.",
         [('GET', '/drivers/{driver_name}/raid/logical_disk_properties')],
         SYSTEM),
    rule('baremetal:driver:vendor_passthru', SYSTEM_ADMIN,
         'List the vendor passthru methods of a driver.',
         [('GET', '/drivers/{driver_name}/vendor_passthru/methods')],
         SYSTEM),
    rule('baremetal:conductor:get', SYSTEM_READER,
         'List and show conductors.',
         [('GET', '/conductors'), ('GET', '/conductors/{hostname}')],
         SYSTEM),
    *_system_rules('deploy_template', 'deploy templates',
                   'deploy_templates', 'deploy_template_ident',
                   SYSTEM_READER, SYSTEM_ADMIN),
    # Inspection rules (API 1.96): the deployment's, as in Ironic.
    *_system_rules('inspection_rule', 'inspection rules',
                   'inspection_rules', 'rule_id', SYSTEM_READER,
                   SYSTEM_ADMIN),
    # Runbooks: which runbooks a project caller sees and changes (public
    # ones and its project's) is runbook_access's, as Ironic's
    # runbook.owner rules say; these rules say which roles may.
    rule('baremetal:runbook:get', API_READER,
         'Show a runbook and its traits.',
         [('GET', '/runbooks/{runbook_ident}'),
          ('GET', '/runbooks/{runbook_ident}/traits')]),
    rule('baremetal:runbook:list', API_READER, 'List runbooks.',
         [('GET', '/runbooks'), ('GET', '/runbooks/detail')]),
    rule('baremetal:runbook:create', _RUNBOOK_WRITER, 'Create a runbook.',
         [('POST', '/runbooks')]),
    rule('baremetal:runbook:update', _RUNBOOK_WRITER,
         'Change a runbook or its traits.',
         [('PATCH', '/runbooks/{runbook_ident}'),
          ('PUT', '/runbooks/{runbook_ident}/traits'),
          ('PUT', '/runbooks/{runbook_ident}/traits/{trait}'),
          ('DELETE', '/runbooks/{runbook_ident}/traits'),
          ('DELETE', '/runbooks/{runbook_ident}/traits/{trait}')]),
    rule('baremetal:runbook:update:owner', 'role:admin',
         'Change the owner of a runbook (a PATCH of /owner).',
         [('PATCH', '/runbooks/{runbook_ident}')]),
    rule('baremetal:runbook:update:public', 'role:admin',
         'Make a runbook public or private (a PATCH of /public).',
         [('PATCH', '/runbooks/{runbook_ident}')]),
    rule('baremetal:runbook:delete', _RUNBOOK_WRITER, 'Delete a runbook.',
         [('DELETE', '/runbooks/{runbook_ident}')]),
    rule('baremetal:runbook:use', _RUNBOOK_WRITER,
         'Run a runbook on a node (the clean target with a runbook).',
         [('PUT', _node('/states/provision'))]),
    rule('baremetal:allocation:get', ALLOCATION_READER,
         'Show an allocation. A project caller who may not see it is '
         'answered 404.',
         [('GET', _ALLOCATION), ('GET', _node('/allocation'))]),
    rule('baremetal:allocation:list', API_READER,
         'List allocations (a project caller: those its project owns).',
         [('GET', '/allocations')]),
    rule('baremetal:allocation:list_all', SYSTEM_READER,
         'List every allocation, whoever owns it.',
         [('GET', '/allocations')], SYSTEM),
    rule('baremetal:allocation:create',
         _any(SYSTEM_MEMBER, 'role:admin or role:manager or role:member'),
         'Create an allocation: ask for a node, or backfill a deployed '
         "one. A project caller's allocation is its project's, and takes "
         'a node its project owns or leases.', [('POST', '/allocations')]),
    rule('baremetal:allocation:create_restricted', SYSTEM_MEMBER,
         'Create an allocation for another owner than the caller\'s '
         'project.', [('POST', '/allocations')], SYSTEM),
    rule('baremetal:allocation:update', ALLOCATION_MEMBER,
         'Change the name and extra of an allocation.',
         [('PATCH', _ALLOCATION)]),
    rule('baremetal:allocation:delete', ALLOCATION_MEMBER,
         'Delete an allocation, releasing its node.',
         [('DELETE', _ALLOCATION), ('DELETE', _node('/allocation'))]),
]


def all_rules():
    """Every default rule, for the enforcer and the sample generator."""
    return NODE_RULES + RESOURCE_RULES + OTHER_RULES
