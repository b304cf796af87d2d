"""/v1/drivers: the enabled hardware types.

Every driver here is a hardware type (Ironic's ``dynamic`` drivers); there
are no ``classic`` ones.  Every live conductor serves every enabled type,
so the hosts of each are the live conductors.  A driver's properties (what
its interfaces read from ``driver_info``) come from a conductor, which
loads drivers; the API does not.
"""

import flask

from ironic_steps.api import policy
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.drivers import base as drivers_base
from ironic_steps.drivers import driver_factory
from ironic_steps import objects

blueprint = flask.Blueprint('drivers', __name__, url_prefix='/v1/drivers')

_DYNAMIC_VERSION = versions.at(versions.MINOR_30_DYNAMIC_DRIVERS)
_PROPERTIES_LINK_VERSION = versions.at(
    versions.MINOR_14_LINKS_NODESTATES_DRIVERPROPERTIES)
#: Interfaces shown from a later version than the other ones, as Ironic.
_INTERFACE_VERSIONS = {
    'storage': versions.at(versions.MINOR_33_STORAGE_INTERFACE),
    'rescue': versions.at(versions.MINOR_38_RESCUE_INTERFACE),
    'bios': versions.at(versions.MINOR_40_BIOS_INTERFACE),
}


def _enabled(name):
    """:raises DriverNotFound: unless ``name`` is an enabled type."""
    enabled = driver_factory.enabled_hardware_types()
    if name not in enabled:
        raise exception.DriverNotFound(driver_name=name,
                                       enabled=', '.join(enabled))


def _driver(name, detail, base, hosts):
    version = flask.g.version
    driver = {'name': name, 'hosts': hosts,
              'links': responses.links('drivers', name, base=base)}
    if version >= _PROPERTIES_LINK_VERSION:
        driver['properties'] = responses.links('drivers', name,
                                               'properties', base=base)
    if version < _DYNAMIC_VERSION:
        return driver
    driver['type'] = 'dynamic'
    if detail:
        hardware_type = driver_factory.hardware_type(name)
        for interface in drivers_base.ALL_INTERFACES:
            if version < _INTERFACE_VERSIONS.get(interface, _DYNAMIC_VERSION):
                continue
            driver['default_%s_interface' % interface] = (
                hardware_type.default(interface))
            driver['enabled_%s_interfaces' % interface] = list(
                hardware_type.supported(interface))
    return driver


@blueprint.get('')
def list_drivers():
    policy.authorize('baremetal:driver:get', flask.g.context)
    args = flask.request.args
    query.check_known(args, ('type', 'detail'))
    driver_type = args.get('type')
    if driver_type not in (None, 'dynamic', 'classic'):
        raise exception.InvalidParameterValue(
            err="type must be 'dynamic' or 'classic', got %r" % driver_type)
    detail = bool(query.boolean(args, 'detail'))
    names = ([] if driver_type == 'classic'
             else driver_factory.enabled_hardware_types())
    base = responses.public_url()
    hosts = objects.Conductor.alive_hostnames()
    return responses.json_response(
        {'drivers': [_driver(name, detail, base, hosts)
                     for name in names]})


@blueprint.get('/<name>')
def show(name):
    policy.authorize('baremetal:driver:get', flask.g.context)
    query.check_known(flask.request.args, ())
    _enabled(name)
    return responses.json_response(
        _driver(name, True, responses.public_url(),
                objects.Conductor.alive_hostnames()))


@blueprint.get('/<name>/properties')
def properties(name):
    """{property: description} of what the driver reads from driver_info."""
    policy.authorize('baremetal:driver:get_properties', flask.g.context)
    query.check_known(flask.request.args, ())
    _enabled(name)
    return responses.json_response(
        flask.g.rpcapi.get_driver_properties(flask.g.context, name))
