"""Version discovery: GET / (every major version) and GET /v1."""

import flask

from ironic_steps.api import responses
from ironic_steps.api import versions

blueprint = flask.Blueprint('root', __name__)

_DESCRIPTION = ('ironic-steps: bare-metal provisioning with deploy steps, '
                'serving the OpenStack Ironic API.')
_RESOURCES = ('nodes', 'drivers', 'heartbeat')
#: Resources listed from a later version than the others.
_LATER_RESOURCES = {
    'deploy_templates': (1, versions.MINOR_55_DEPLOY_TEMPLATES),
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
    for resource in _RESOURCES:
        body[resource] = responses.links(resource + '/', base=base)
    for resource, since in _LATER_RESOURCES.items():
        if flask.g.version >= since:
            body[resource] = responses.links(resource + '/', base=base)
    return responses.json_response(body)
