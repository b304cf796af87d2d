"""The actions of inspection rules, and how one is run on a node.

Each action is a function of a :class:`Target` (the node being inspected
and the plugin data that will be stored with its inventory) and its args
(declared through :func:`.operations.declare` in :data:`ACTIONS`).  As in
Ironic:

* ``set-attribute``, ``extend-attribute`` (append to a list; ``unique``:
  only if absent), ``del-attribute``: a node field, or a key inside one,
  by ``path`` (``properties/cpu_arch`` or ``properties.cpu_arch``); the
  fields the conductor owns (UUID, states, traits, ...) are not a rule's;
* ``set-capability``, ``unset-capability``: a key of the node's
  ``properties/capabilities`` (``key:value,key:value``);
* ``add-trait``, ``remove-trait`` (one the node lacks is no matter);
* ``set-plugin-data``, ``extend-plugin-data``, ``unset-plugin-data``: a
  key of the plugin data by dotted ``path``;
* ``set-port-attribute``, ``extend-port-attribute``,
  ``del-port-attribute``: the same on a field of one of the node's ports,
  by its ``port_id`` (UUID);
* ``log`` (``msg`` at ``level``), ``fail`` (the inspection fails with
  ``msg``).

Node fields are changed on the node object, saved by the inspection's
end; traits and ports are written at once (their own transactions).
Ironic's ``api-call`` is not here.
"""

import copy
import dataclasses

from oslo_log import log

from ironic_steps.common.inspection_rules import operations
from ironic_steps.common.inspection_rules import variables
from ironic_steps.common import traits

LOG = log.getLogger(__name__)

#: Action name -> :class:`.operations.Operation`.
ACTIONS = {}
LOG_LEVELS = ('debug', 'info', 'warning', 'error', 'critical')
#: Node fields a rule may not change: who the node is, what the
#: conductor owns, and traits (which have their own actions).
PROTECTED_FIELDS = frozenset([
    'id', 'uuid', 'created_at', 'updated_at', 'traits', 'provision_state',
    'target_provision_state', 'provision_updated_at', 'power_state',
    'target_power_state', 'reservation', 'conductor_affinity',
    'conductor_group', 'driver_internal_info', 'clean_step', 'deploy_step',
    'service_step', 'inspection_started_at', 'inspection_finished_at',
    'last_error', 'maintenance', 'protected', 'allocation_id',
    'instance_uuid', 'shard', 'parent_node'])
#: Port fields a rule may not change: who the port is and whose.
PROTECTED_PORT_FIELDS = frozenset([
    'id', 'uuid', 'node_uuid', 'created_at', 'updated_at',
    'internal_info'])


class ActionError(operations.OperationError):
    """An action that cannot be run on this node (user text)."""


class RuleFailure(Exception):
    """A ``fail`` action ran: the inspection fails with ``message``."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


@dataclasses.dataclass
class Target:
    """What actions change: the node (an object with its fields as
    attributes and ``add_traits``/``remove_traits``), the plugin data
    stored with its inventory (a dict, changed in place) and its ports
    (``ports()``: objects with ``uuid``, their fields and ``save()``)."""

    node: object
    plugin_data: dict
    ports: object = tuple

    def port(self, port_id):
        """:raises ActionError: unless ``port_id`` is a port of the
        node."""
        for port in self.ports():
            if port.uuid == port_id:
                return port
        raise ActionError('node %s has no port %s' % (self.node.uuid,
                                                      port_id))


def _declare(name, formatted=()):
    return operations.declare(ACTIONS, name, formatted)


def split_path(path):
    """``'a/b/c'`` or ``'a.b.c'`` -> ['a', 'b', 'c']."""
    if not isinstance(path, str) or not path.strip('/.'):
        raise ActionError('path must be a non-empty string, got %r'
                          % (path,))
    if '/' in path:
        return path.strip('/').split('/')
    return path.split('.')


def _field(record, parts, protected):
    field = parts[0]
    if field in protected or field not in getattr(record, 'fields', ()):
        raise ActionError('%s is not a %s field a rule may change' % (
            field, 'node' if protected is PROTECTED_FIELDS else 'port'))
    return field


def _change(record, path, change, protected=PROTECTED_FIELDS):
    """Run ``change(container, key)`` on a copy of the field of
    ``record`` (the node, or a port) ``path`` starts with, then set the
    field: in-place changes of a field would go unnoticed by its save."""
    parts = split_path(path)
    field = _field(record, parts, protected)
    if len(parts) == 1:
        holder = {field: copy.deepcopy(getattr(record, field))}
        change(holder, field)
        value = holder[field]
    else:
        value = copy.deepcopy(getattr(record, field)) or {}
        current = value
        for part in parts[1:-1]:
            current = current.setdefault(part, {})
            if not isinstance(current, dict):
                raise ActionError('%s is not an object at %s' % (path, part))
        change(current, parts[-1])
    try:
        setattr(record, field, value)
    except (ValueError, TypeError) as exc:
        # The field's own type refuses the value (a string for an object).
        raise ActionError('cannot set field %s to %r: %s' % (
            field, value, exc)) from exc


def _put(value):
    def put(container, key):
        container[key] = value
    return put


def _append(path, value, unique):
    def extend(container, key):
        current = container.get(key)
        if current is None:
            current = container[key] = []
        if not isinstance(current, list):
            raise ActionError('%s is not a list' % path)
        if not unique or value not in current:
            current.append(value)
    return extend


def _delete(path):
    def delete(container, key):
        if len(split_path(path)) == 1:
            container[key] = None
        elif key in container:
            del container[key]
        else:
            raise ActionError('%s does not exist' % path)
    return delete


@_declare('set-attribute', formatted=['value'])
def _set_attribute(target, path, value):
    _change(target.node, path, _put(value))


@_declare('extend-attribute', formatted=['value'])
def _extend_attribute(target, path, value, unique=False):
    _change(target.node, path, _append(path, value, unique))


@_declare('del-attribute')
def _del_attribute(target, path):
    _change(target.node, path, _delete(path))


def _change_port(target, port_id, path, change):
    port = target.port(port_id)
    _change(port, path, change, PROTECTED_PORT_FIELDS)
    port.save()


@_declare('set-port-attribute', formatted=['value'])
def _set_port_attribute(target, port_id, path, value):
    _change_port(target, port_id, path, _put(value))


@_declare('extend-port-attribute', formatted=['value'])
def _extend_port_attribute(target, port_id, path, value, unique=False):
    _change_port(target, port_id, path, _append(path, value, unique))


@_declare('del-port-attribute')
def _del_port_attribute(target, port_id, path):
    _change_port(target, port_id, path, _delete(path))


def _capabilities(node):
    pairs = [pair.split(':', 1) for pair in
             ((node.properties or {}).get('capabilities') or '').split(',')
             if pair]
    return {pair[0]: pair[1] if len(pair) > 1 else '' for pair in pairs}


def _write_capabilities(node, capabilities):
    properties = dict(node.properties or {})
    properties['capabilities'] = ','.join(
        '%s:%s' % item for item in capabilities.items())
    node.properties = properties


@_declare('set-capability', formatted=['value'])
def _set_capability(target, name, value):
    capabilities = _capabilities(target.node)
    capabilities[name] = value
    _write_capabilities(target.node, capabilities)


@_declare('unset-capability')
def _unset_capability(target, name):
    capabilities = _capabilities(target.node)
    if capabilities.pop(name, None) is not None:
        _write_capabilities(target.node, capabilities)


@_declare('add-trait')
def _add_trait(target, name):
    problem = traits.problem(name)
    if problem is not None:
        raise ActionError('cannot add trait %r: %s' % (name, problem))
    target.node.add_traits([name])


@_declare('remove-trait')
def _remove_trait(target, name):
    if name in (target.node.traits or ()):
        target.node.remove_traits([name])
    else:
        LOG.warning('Node %s has no trait %s for a rule to remove',
                    target.node.uuid, name)


def _plugin_data_parent(plugin_data, path, create):
    parts = path.split('.') if isinstance(path, str) else []
    if not all(parts):
        raise ActionError('path must be a dotted key, got %r' % (path,))
    current = plugin_data
    for part in parts[:-1]:
        if part not in current and not create:
            return None, parts[-1]
        current = current.setdefault(part, {})
        if not isinstance(current, dict):
            raise ActionError('plugin data %s is not an object at %s' % (
                path, part))
    return current, parts[-1]


@_declare('set-plugin-data', formatted=['value'])
def _set_plugin_data(target, path, value):
    parent, key = _plugin_data_parent(target.plugin_data, path, True)
    parent[key] = value


@_declare('extend-plugin-data', formatted=['value'])
def _extend_plugin_data(target, path, value, unique=False):
    parent, key = _plugin_data_parent(target.plugin_data, path, True)
    current = parent.setdefault(key, [])
    if not isinstance(current, list):
        raise ActionError('plugin data %s is not a list' % path)
    if not unique or value not in current:
        current.append(value)


@_declare('unset-plugin-data')
def _unset_plugin_data(target, path):
    parent, key = _plugin_data_parent(target.plugin_data, path, False)
    if parent is None or key not in parent:
        LOG.warning('Plugin data %s of node %s is not there to unset',
                    path, target.node.uuid)
        return
    del parent[key]


@_declare('log', formatted=['msg'])
def _log(target, msg, level='info'):
    if not isinstance(level, str) or level.lower() not in LOG_LEVELS:
        raise ActionError('log level %r is not one of %s' % (
            level, ', '.join(LOG_LEVELS)))
    getattr(LOG, level.lower())('Inspection rule on node %s: %s',
                                target.node.uuid, msg)


@_declare('fail', formatted=['msg'])
def _fail(target, msg):
    raise RuleFailure(str(msg))


def find(op):
    """The action ``op`` names.

    :raises OperationError: for an unknown one.
    """
    return operations.find(ACTIONS, op, 'action')


def run(action, target, scope):
    """Run ``action`` (once per item of its loop) on ``target``, its args
    interpolated over ``scope`` (a :class:`.variables.Scope`).

    :raises OperationError: for an action that cannot run.
    :raises RuleFailure: for a ``fail`` action.
    """
    found = find(action['op'])
    named = found.named_args(action.get('args', {}))
    items = operations.loop_items(action)
    for item in ([None] if items is None else items):
        values = variables.resolve_args(
            found, named, scope.names(item, items is not None),
            items is not None)
        found.run(target, **values)
