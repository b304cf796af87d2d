"""A run's client of the API it started: JSON over HTTP on loopback.

The run drives its nodes through the REST API, as an operator would, so
every body is judged by the API's own rules and every change is one an
operator could have made.  A keep-alive connection per thread.
"""

import http.client
import json
import threading

#: The newest microversion the run needs (user deploy steps: 1.69).
MICROVERSION = '1.69'


class APIError(Exception):
    """The API refused a request; ``status`` and the API's own message."""

    def __init__(self, method, path, status, message):
        super().__init__('%s %s: %d %s' % (method, path, status, message))
        self.status = status
        self.message = message


def _message(data):
    """The faultstring of an Ironic error body, else the body itself."""
    try:
        outer = json.loads(data)
        return json.loads(outer['error_message'])['faultstring']
    except (ValueError, KeyError, TypeError):
        return data.decode('utf-8', 'replace').strip() or '(no message)'


class Client:

    def __init__(self, host, port, timeout=60):
        self.host, self.port, self.timeout = host, port, timeout
        self._local = threading.local()

    @property
    def endpoint(self):
        return 'http://%s:%d' % (self.host, self.port)

    def _connection(self):
        connection = getattr(self._local, 'connection', None)
        if connection is None:
            connection = http.client.HTTPConnection(self.host, self.port,
                                                    timeout=self.timeout)
            self._local.connection = connection
        return connection

    def request(self, method, path, body=None):
        """The decoded JSON answer (None if empty).

        :raises APIError: on any answer but 2xx.
        """
        headers = {'X-OpenStack-Ironic-API-Version': MICROVERSION}
        data = None
        if body is not None:
            data = json.dumps(body)
            headers['Content-Type'] = 'application/json'
        for attempt in (1, 2):
            connection = self._connection()
            try:
                connection.request(method, path, body=data, headers=headers)
                response = connection.getresponse()
                payload = response.read()
                break
            except (http.client.HTTPException, ConnectionError):
                # A keep-alive connection the server closed (idle timeout):
                # once more on a new one.
                connection.close()
                self._local.connection = None
                if attempt == 2:
                    raise
        if not 200 <= response.status < 300:
            raise APIError(method, path, response.status, _message(payload))
        return json.loads(payload) if payload else None

    def get(self, path):
        return self.request('GET', path)

    def post(self, path, body):
        return self.request('POST', path, body)

    def put(self, path, body=None):
        return self.request('PUT', path, body)

    def close(self):
        connection = getattr(self._local, 'connection', None)
        if connection is not None:
            connection.close()
