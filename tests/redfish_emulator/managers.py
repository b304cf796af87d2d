"""The Manager resource: the stock view, with the BMC's firmware version.

sushy-tools backs each system with a Manager of the same id and always
reports its ``FirmwareVersion`` as ``1.00``.  A real BMC reports the
version it runs, which changes after a BMC firmware update (``updates``).
This module wraps the stock GET view so that ``FirmwareVersion`` is the
one the system's record keeps (``BmcVersion``, ``systems.FIRST_BMC_VERSION``
until updated); the rest of the body, and PATCH, stay the stock ones.
"""

import flask

from tests.redfish_emulator import systems


def _decorate(response, identity):
    if response.status_code != 200:
        return response
    body = response.get_json()
    app = flask.current_app
    uuid = app.systems.uuid(identity)
    body['FirmwareVersion'] = app.systems.get_versions(uuid).get(
        'BmcVersion', systems.FIRST_BMC_VERSION)
    return flask.jsonify(body)


def install(app, replace_view):
    stock_view = app.view_functions['manager_resource']

    def manager_resource(identity):
        response = stock_view(identity=identity)
        if flask.request.method == 'GET':
            return _decorate(flask.make_response(response), identity)
        return response

    replace_view('manager_resource', manager_resource)
