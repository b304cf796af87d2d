"""Version discovery: GET / (every major version) and GET /v1."""

import flask

from ironic_steps.api import responses
from ironic_steps.api import versions

blueprint = flask.Blueprint('root', __name__)

_DESCRIPTION = ('ironic-steps: bare-metal provisioning with deploy steps, '
                'serving the OpenStack Ironic API.')
#: Resources /v1 links to -> the version that shows them.
_RESOURCES = {
    'nodes': versions.MIN_VERSION,
    'drivers': versions.MIN_VERSION,
    'lookup': versions.at(versions.MINOR_22_LOOKUP_HEARTBEAT),
    'heartbeat': versions.at(versions.MINOR_22_LOOKUP_HEARTBEAT),
    'conductors': versions.at(versions.MINOR_49_CONDUCTORS),
    'deploy_templates': versions.at(versions.MINOR_55_DEPLOY_TEMPLATES),
    'continue_inspection': versions.at(
        versions.MINOR_84_CONTINUE_INSPECTION),
}


def _version():
    return {'id': 'v1',
            'links': [{'href': responses.public_url() + '/v1/',
                       'rel': 'self'}],
            'status': 'CURRENT',
            'min_version': versions.to_string(versions.MIN_VERSION),
            'version': versions.to_string(versions.max_version())}


@blueprint.get('/')
def root():
    version = _version()
    return responses.json_response({
        'name': 'OpenStack Ironic API',
        'description': _DESCRIPTION,
        'versions': [version],
        'default_version': version,
    })


@blueprint.get('/v1')
def v1():
    base = responses.public_url()
    body = {
        'id': 'v1',
        'links': [{'href': base + '/v1/', 'rel': 'self'},
                  {'href': 'https://docs.openstack.org/ironic/latest/'
                           'contributor/webapi.html',
                   'rel': 'describedby', 'type': 'text/html'}],
        'media_types': [{'base': 'application/json',
                         'type': 'application/vnd.openstack.ironic.v1+json'}],
        'version': _version(),
    }
    for resource, needed in _RESOURCES.items():
        if needed <= flask.g.version:
            body[resource] = responses.links(resource + '/', base=base)
    return responses.json_response(body)
