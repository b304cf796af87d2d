"""Serves Keystone's WSGI application on 127.0.0.1: ``python keystone_wsgi.py
PORT``, with ``OS_KEYSTONE_CONFIG_FILES`` naming its configuration.

Run by the Python of the Keystone venv (``tools/keystone-venv``) for
:mod:`tests.functional.keystone`, never imported by the tests.  The
standard library's WSGI server, one thread per connection: the tests ask
Keystone for a few hundred tokens at most, and a server from PyPI would
add an install, a fork and a control socket for nothing they need.
"""

import socketserver
import sys
from wsgiref import simple_server


class _Server(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True


class _QuietHandler(simple_server.WSGIRequestHandler):

    def log_message(self, *args):
        """Keystone logs its requests itself."""


def main():
    port = int(sys.argv[1])
    # Keystone reads the command line as its own options.
    del sys.argv[1:]
    from keystone.wsgi import api
    server = simple_server.make_server(
        '127.0.0.1', port, api.application, server_class=_Server,
        handler_class=_QuietHandler)
    server.serve_forever()


if __name__ == '__main__':
    main()
