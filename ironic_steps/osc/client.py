"""A small HTTP client of the x-steps extension and the node reads its
commands need, over the session OpenStackClient built."""

import json
from urllib import parse

from osc_lib import exceptions


class StepsClient:
    """Calls ``/v1/nodes/{node}/...`` on ``endpoint`` with ``session``."""

    #: Node names need 1.5; asking for 1.69 (this service's maximum) keeps
    #: every read of a node as the baremetal commands see it.
    API_VERSION = '1.69'

    def __init__(self, session, endpoint):
        self.session = session
        self.endpoint = endpoint.rstrip('/')
        if not self.endpoint.endswith('/v1'):
            self.endpoint += '/v1'

    def _request(self, method, path, body=None):
        response = self.session.request(
            self.endpoint + path, method, json=body, raise_exc=False,
            headers={'X-OpenStack-Ironic-API-Version': self.API_VERSION,
                     'Accept': 'application/json'})
        if response.status_code >= 400:
            raise exceptions.CommandError(_error_text(response))
        return response.json() if response.content else None

    def preview(self, node, flow, steps=None):
        body = {'flow': flow}
        if steps is not None:
            body['%s_steps' % flow] = steps
        return self._request('POST', '/nodes/%s/x-steps/preview' % node,
                             body)

    def resume(self, node):
        self._request('POST', '/nodes/%s/x-steps/resume' % node)

    def node(self, node):
        return self._request('GET', '/nodes/%s' % node)

    def history(self, node, **filters):
        """The step history of ``node`` (``flow``, ``flow_run``)."""
        path = '/nodes/%s/x-steps/history' % parse.quote(node, safe='')
        if filters:
            path += '?' + parse.urlencode(filters)
        return self._request('GET', path)


def _error_text(response):
    """The API's message (Ironic's error format), else the status line."""
    try:
        fault = json.loads(response.json()['error_message'])
        message = fault['faultstring']
    except (ValueError, KeyError, TypeError):
        message = response.text or response.reason
    if response.status_code == 404 and 'x-steps' in response.url:
        message += (' (the service may predate the x-steps extension, or '
                    'be pinned to a release before it)')
    return '%s (HTTP %s)' % (message, response.status_code)
