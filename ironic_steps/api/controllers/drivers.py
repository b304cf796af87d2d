"""/v1/drivers: the enabled hardware types.

Every driver here is a hardware type (Ironic's ``dynamic`` drivers); there
are no ``classic`` ones.  Every live conductor serves every enabled type,
so the hosts of each are the conductors heartbeating in the database.
"""

import datetime

import flask
from oslo_utils import timeutils

from ironic_steps.api import policy
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps.db import api as db_api
from ironic_steps.drivers import base as drivers_base
from ironic_steps.drivers import driver_factory

blueprint = flask.Blueprint('drivers', __name__, url_prefix='/v1/drivers')

_DYNAMIC_VERSION = (1, versions.MINOR_30_DYNAMIC_DRIVERS)
#: Interfaces shown from a later version than the other ones.
_INTERFACE_VERSIONS = {'bios': (1, versions.MINOR_40_BIOS_INTERFACE)}


def _live_conductors():
    seen_after = timeutils.utcnow() - datetime.timedelta(
        seconds=CONF.conductor.heartbeat_timeout)
    return db_api.get_instance().get_online_conductors(seen_after)


def _driver(name, detail, base, hosts):
    version = flask.g.version
    driver = {'name': name, 'hosts': hosts,
              'links': responses.links('drivers', name, base=base)}
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
    hosts = _live_conductors()
    return responses.json_response(
        {'drivers': [_driver(name, detail, base, hosts)
                     for name in names]})


@blueprint.get('/<name>')
def show(name):
    policy.authorize('baremetal:driver:get', flask.g.context)
    query.check_known(flask.request.args, ())
    enabled = driver_factory.enabled_hardware_types()
    if name not in enabled:
        raise exception.DriverNotFound(driver_name=name,
                                       enabled=', '.join(enabled))
    return responses.json_response(
        _driver(name, True, responses.public_url(), _live_conductors()))
