"""Load hardware types and interfaces from entry points; build a driver.

A node's *driver* is its hardware type plus one implementation of each
interface type, named by the node's ``<type>_interface`` fields.  Loaded
objects are cached: interfaces are stateless by contract (see
:class:`ironic_steps.drivers.base.BaseInterface`).
"""

import functools
import threading
import types

import stevedore

from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps.drivers import hardware_type as hardware_type_module
from ironic_steps import release_mappings

HARDWARE_TYPES_NAMESPACE = 'ironic_steps.hardware.types'
INTERFACES_NAMESPACE = 'ironic_steps.hardware.interfaces.%s'

_LOCK = threading.Lock()


def _load(namespace, name):
    manager = stevedore.DriverManager(namespace, name, invoke_on_load=True)
    return manager.driver


@functools.lru_cache(maxsize=None)
def _cached(namespace, name):
    with _LOCK:
        return _load(namespace, name)


def hardware_type(name):
    """The enabled hardware type called ``name``.

    :raises DriverNotFound: if it is not enabled or not installed.
    """
    enabled = CONF.enabled_hardware_types
    if name not in enabled:
        raise exception.DriverNotFound(driver_name=name,
                                       enabled=', '.join(enabled))
    try:
        hw_type = _cached(HARDWARE_TYPES_NAMESPACE, name)
    except stevedore.exception.NoMatches as exc:
        raise exception.DriverNotFound(driver_name=name,
                                       enabled=', '.join(enabled)) from exc
    _check_in_pinned_release(name, hw_type)
    return hw_type


def _check_in_pinned_release(name, hw_type):
    """A hardware type newer than the pinned release is refused: the
    conductors of that release could not load it."""
    if not _in_pinned_release(hw_type):
        raise exception.NotInPinnedRelease(
            feature='Hardware type %s' % name,
            pinned=CONF.pin_release_version, needed=hw_type.since_release)


def _in_pinned_release(hw_type):
    """Whether a hardware type or an interface (its class may say
    ``since_release``) is in the pinned release."""
    since = getattr(hw_type, 'since_release', None)
    pinned = CONF.pin_release_version
    releases = release_mappings.RELEASES
    return not (since and pinned and (since not in releases or releases.index(
        pinned) < releases.index(since)))


def enabled_hardware_types():
    """Names of the enabled hardware types that are really installed and
    in the pinned release (what every conductor can load)."""
    installed = set(stevedore.ExtensionManager(
        HARDWARE_TYPES_NAMESPACE).names())
    return [name for name in CONF.enabled_hardware_types
            if name in installed
            and _in_pinned_release(_cached(HARDWARE_TYPES_NAMESPACE, name))]


def _supported(hw_type, interface_type):
    """The implementations of ``interface_type`` a node of ``hw_type`` may
    name: those the type supports, less those an ``[DEFAULT]
    enabled_<type>_interfaces`` option leaves out (only firmware has one,
    as in Ironic; every other type's are all enabled), the preferred
    default (``[DEFAULT] default_<type>_interface``, if enabled) first,
    else the type's default under the pin."""
    names = _former_default_first(hw_type, interface_type,
                                  hw_type.supported(interface_type))
    enabled = getattr(CONF, 'enabled_%s_interfaces' % interface_type, None)
    if enabled is not None:
        names = tuple(name for name in names if name in enabled)
    preferred = getattr(CONF, 'default_%s_interface' % interface_type, None)
    if preferred in names:
        names = (preferred,) + tuple(n for n in names if n != preferred)
    return names


def _former_default_first(hw_type, interface_type, names):
    """``names`` with the type's former default of ``interface_type``
    first while pinned before the release that changed it (see
    :attr:`AbstractHardwareType.former_defaults`)."""
    release, former = hw_type.former_defaults.get(interface_type,
                                                  (None, None))
    if (former not in names
            or not release_mappings.pinned_before(CONF, release)):
        return names
    return (former,) + tuple(name for name in names if name != former)


def served_hardware():
    """What this process's conductor serves: {hardware type: {interface
    type: (implementation, ...)}}, the default first, for each of
    :func:`enabled_hardware_types` (*served hardware*, as the conductor
    registry records it)."""
    served = {}
    for name in enabled_hardware_types():
        hw_type = _cached(HARDWARE_TYPES_NAMESPACE, name)
        served[name] = {}
        for interface_type in base.ALL_INTERFACES:
            names = tuple(
                implementation
                for implementation in _supported(hw_type, interface_type)
                if _in_pinned_release(_interface(interface_type,
                                                 implementation)))
            if names:
                served[name][interface_type] = names
    return served


def _interface(interface_type, name):
    return _cached(INTERFACES_NAMESPACE % interface_type, name)


def _default(hw_type, interface_type):
    """The implementation a node of ``hw_type`` gets when it names none:
    the first it supports that the pinned release has (a node made while
    pinned must be one the pinned release's conductors can load), or None.
    """
    supported = _supported(hw_type, interface_type)
    if not CONF.pin_release_version:
        return supported[0] if supported else None
    for name in supported:
        try:
            implementation = _interface(interface_type, name)
        except stevedore.exception.NoMatches:
            return name   # refused, naming it, where it is loaded
        if _in_pinned_release(implementation):
            return name
    return None


def default_interface(name, interface_type):
    """The default ``interface_type`` interface of hardware type ``name``
    (what a driver-level request, such as its RAID properties, reads).

    :raises DriverNotFound:
    :raises UnsupportedDriverExtension: if the type has none.
    """
    if _default(hardware_type(name), interface_type) is None:
        raise exception.UnsupportedDriverExtension(
            node='of hardware type %s' % name, extension=interface_type,
            interface='none')
    return interface_for(interface_type, name, None)


def interface_for(interface_type, driver, name):
    """The ``interface_type`` interface that a node of hardware type
    ``driver`` with that interface set to ``name`` (None: the default)
    uses, without building the node's whole driver.

    :raises DriverNotFound: or InterfaceNotFoundInEntrypoint.
    """
    name = name or _default(hardware_type(driver), interface_type)
    try:
        return _interface(interface_type, name)
    except stevedore.exception.NoMatches as exc:
        raise exception.InterfaceNotFoundInEntrypoint(
            name=name, interface_type=interface_type, hardware_type=driver,
            valid=', '.join(hardware_type(driver).supported(interface_type))
        ) from exc


class NoInterface(base.BaseInterface):
    """Stands in for an interface type a hardware type does not support.

    It offers no steps and validates anything; callers that must tell it
    from a real interface (node validation) check for this class.
    """

    def __init__(self, interface_type):
        self.interface_type = interface_type


def _interface_name(node, interface_type):
    field = '%s_interface' % interface_type
    # A node being created has unset fields; reading one would try to load.
    return getattr(node, field) if node.obj_attr_is_set(field) else None


def check_and_update_node_interfaces(node):
    """Fill a node's unset interfaces with defaults; check the set ones.

    :raises DriverNotFound: for an unknown hardware type.
    :raises InterfaceNotFoundInEntrypoint: for an unsupported interface.
    """
    hw_type = hardware_type(node.driver)
    for interface_type in base.ALL_INTERFACES:
        field = '%s_interface' % interface_type
        name = _interface_name(node, interface_type)
        supported = _supported(hw_type, interface_type)
        if name is None:
            name = _default(hw_type, interface_type)
            if name is not None:
                setattr(node, field, name)
        elif name not in supported:
            raise exception.InterfaceNotFoundInEntrypoint(
                name=name, interface_type=interface_type,
                hardware_type=node.driver,
                valid=', '.join(supported) or 'none')
        elif node.obj_attr_is_set(field) and field in node.obj_what_changed():
            implementation = _interface(interface_type, name)
            if not _in_pinned_release(implementation):
                raise exception.NotInPinnedRelease(
                    feature='The %s %s interface' % (name, interface_type),
                    pinned=CONF.pin_release_version,
                    needed=implementation.since_release)


def _stored_none(node, interface_type):
    """What a stored node whose ``<type>_interface`` is NULL has: it was
    written by a release without that interface type (a node created while
    pinned to 0.11 has no firmware interface), so the type's no-op one, as
    the migration that added the column gave every node then; None for a
    node being created (its field unset: it gets the default)."""
    field = '%s_interface' % interface_type
    if node.obj_attr_is_set(field) and getattr(node, field) is None:
        return hardware_type_module.NOOP_INTERFACES.get(interface_type)
    return None


def build_driver_for_task(node):
    """A namespace with one loaded interface per interface type."""
    hw_type = hardware_type(node.driver)
    interfaces = {}
    for interface_type in base.ALL_INTERFACES:
        name = (_interface_name(node, interface_type)
                or _stored_none(node, interface_type)
                or _default(hw_type, interface_type))
        if name is None:
            interfaces[interface_type] = NoInterface(interface_type)
            continue
        try:
            interfaces[interface_type] = _interface(interface_type, name)
        except stevedore.exception.NoMatches as exc:
            raise exception.InterfaceNotFoundInEntrypoint(
                name=name, interface_type=interface_type,
                hardware_type=node.driver,
                valid=', '.join(hw_type.supported(interface_type))) from exc
    return types.SimpleNamespace(hardware_type=hw_type, **interfaces)


def driver_properties(name):
    """What the default interfaces of hardware type ``name`` read from
    ``driver_info``: {property: description}.

    :raises DriverNotFound:
    """
    hw_type = hardware_type(name)
    properties = {}
    for interface_type in base.ALL_INTERFACES:
        default = _default(hw_type, interface_type)
        if default is not None:
            properties.update(_interface(interface_type,
                                         default).get_properties())
    return properties
