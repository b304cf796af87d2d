"""/v1/drivers: the hardware types the live conductors serve.

Every driver here is a hardware type (Ironic's ``dynamic`` drivers); there
are no ``classic`` ones.  A driver is listed when a live conductor serves
it, its hosts are the live conductors that serve it and its interfaces
those they registered: all the conductor registry's answers
(:mod:`ironic_steps.conductor.registry`), so what the API process itself
enables does not matter.  A driver's properties (what its interfaces read
from ``driver_info``) come from a conductor that serves it, which loads
drivers; the API does not.

From 1.77 ``?fields=a,b`` shows only those fields of a driver (and its
``links``), in the list as in a driver's own page; a name no driver has
at the request's version is refused (400, naming it).  Interface fields
may be chosen in the list too (Ironic refuses them there, since its plain
list lacks them).
"""

import flask

from ironic_steps.api import policy
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.common import interfaces
from ironic_steps.conductor import registry

blueprint = flask.Blueprint('drivers', __name__, url_prefix='/v1/drivers')

_DYNAMIC_VERSION = versions.at(versions.MINOR_30_DYNAMIC_DRIVERS)
_RAID_VERSION = versions.at(versions.MINOR_12_RAID_CONFIG)
#: The release that serves a driver's RAID properties and vendor methods.
_RELEASE = '0.6'
_FIELDS_VERSION = versions.at(versions.MINOR_77_DRIVER_FIELDS)
_PROPERTIES_LINK_VERSION = versions.at(
    versions.MINOR_14_LINKS_NODESTATES_DRIVERPROPERTIES)
#: Interfaces shown from a later version than the other ones, as Ironic.
_INTERFACE_VERSIONS = {
    'storage': versions.at(versions.MINOR_33_STORAGE_INTERFACE),
    'rescue': versions.at(versions.MINOR_38_RESCUE_INTERFACE),
    'bios': versions.at(versions.MINOR_40_BIOS_INTERFACE),
    'firmware': versions.at(versions.MINOR_86_FIRMWARE_INTERFACE),
}


def _served(name):
    """The live conductors, once checked that one serves ``name``.

    :raises DriverNotFound: naming the served types, if none does.
    """
    live = registry.live_conductors()
    if not live.hosts_serving(name):
        raise exception.DriverNotFound(
            driver_name=name, enabled=', '.join(live.hardware_types()))
    return live


def _driver(name, detail, base, live):
    version = flask.g.version
    driver = {'name': name, 'hosts': live.hosts_serving(name),
              'links': responses.links('drivers', name, base=base)}
    if version >= _PROPERTIES_LINK_VERSION:
        driver['properties'] = responses.links('drivers', name,
                                               'properties', base=base)
    if version < _DYNAMIC_VERSION:
        return driver
    driver['type'] = 'dynamic'
    if detail:
        offered = live.interfaces_of(name)
        for interface in interfaces.ALL_INTERFACES:
            if version < _INTERFACE_VERSIONS.get(interface, _DYNAMIC_VERSION):
                continue
            names = list(offered.get(interface, ()))
            driver['default_%s_interface' % interface] = (
                names[0] if names else None)
            driver['enabled_%s_interfaces' % interface] = names
    return driver


def _fields(args):
    """The fields ``?fields`` asks for, or None for all.

    :raises FeatureNotInVersion: (406) below 1.77.
    :raises InvalidParameterValue: for a name no driver has here.
    """
    if 'fields' not in args:
        return None
    versions.require(flask.g.version, versions.MINOR_77_DRIVER_FIELDS,
                     'fields on drivers')
    fields = [name.strip() for name in args['fields'].split(',')]
    known = _field_names(flask.g.version)
    unknown = sorted(set(fields) - known)
    if unknown:
        raise exception.InvalidParameterValue(
            err='fields: %s %s no field of a driver at API version %s; its '
                'fields: %s' % (
                    ', '.join(repr(name) for name in unknown),
                    'is' if len(unknown) == 1 else 'are',
                    versions.to_string(flask.g.version),
                    ', '.join(sorted(known - {'links'}))))
    return fields


def _field_names(version):
    """What a driver's page shows at ``version`` (see :func:`_driver`)."""
    names = {'name', 'hosts', 'links'}
    if version >= _PROPERTIES_LINK_VERSION:
        names.add('properties')
    if version >= _DYNAMIC_VERSION:
        names.add('type')
        for interface in interfaces.ALL_INTERFACES:
            if version >= _INTERFACE_VERSIONS.get(interface,
                                                  _DYNAMIC_VERSION):
                names.update(('default_%s_interface' % interface,
                              'enabled_%s_interfaces' % interface))
    return names


def _selected(driver, fields):
    if fields is None:
        return driver
    return {key: value for key, value in driver.items()
            if key in fields or key == 'links'}


@blueprint.get('')
def list_drivers():
    policy.authorize('baremetal:driver:get', flask.g.context)
    args = flask.request.args
    query.check_known(args, ('type', 'detail', 'fields'))
    driver_type = args.get('type')
    if driver_type not in (None, 'dynamic', 'classic'):
        raise exception.InvalidParameterValue(
            err="type must be 'dynamic' or 'classic', got %r" % driver_type)
    detail = bool(query.boolean(args, 'detail'))
    fields = _fields(args)
    if fields is not None and detail:
        raise exception.InvalidParameterValue(
            err='detail and fields cannot be given together: fields '
                'chooses what is shown')
    live = registry.live_conductors()
    names = [] if driver_type == 'classic' else live.hardware_types()
    base = responses.public_url()
    return responses.json_response({'drivers': [
        _selected(_driver(name, detail or fields is not None, base, live),
                  fields) for name in names]})


@blueprint.get('/<name>')
def show(name):
    policy.authorize('baremetal:driver:get', flask.g.context)
    query.check_known(flask.request.args, ('fields',))
    fields = _fields(flask.request.args)
    return responses.json_response(_selected(
        _driver(name, True, responses.public_url(), _served(name)), fields))


@blueprint.get('/<name>/properties')
def properties(name):
    """{property: description} of what the driver reads from driver_info."""
    policy.authorize('baremetal:driver:get_properties', flask.g.context)
    query.check_known(flask.request.args, ())
    _served(name)
    return responses.json_response(
        flask.g.rpcapi.get_driver_properties(flask.g.context, name))


@blueprint.get('/<name>/raid/logical_disk_properties')
def raid_logical_disk_properties(name):
    """{property: description} of a logical disk in a RAID layout (1.12)."""
    versions.hide_while_pinned_before(_RELEASE)
    versions.check_endpoint(flask.g.version, _RAID_VERSION,
                            flask.request.path)
    policy.authorize('baremetal:driver:get_raid_logical_disk_properties',
                     flask.g.context)
    query.check_known(flask.request.args, ())
    _served(name)
    return responses.json_response(
        flask.g.rpcapi.get_raid_logical_disk_properties(flask.g.context,
                                                        name))


@blueprint.get('/<name>/vendor_passthru/methods')
def vendor_passthru_methods(name):
    """The passthru methods of the driver's default vendor interface."""
    versions.hide_while_pinned_before(_RELEASE)
    policy.authorize('baremetal:driver:vendor_passthru', flask.g.context)
    query.check_known(flask.request.args, ())
    _served(name)
    return responses.json_response(
        flask.g.rpcapi.get_driver_vendor_passthru_methods(flask.g.context,
                                                          name))
