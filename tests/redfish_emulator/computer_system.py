"""The ComputerSystem resource: the stock view, plus what our backend adds.

sushy-tools renders ``/redfish/v1/Systems/{id}`` from a template that
always reads back ``BootSourceOverrideEnabled: Continuous``, links the BIOS
at ``/BIOS`` and lists only the stock reset types; its PATCH ignores the
override frequency and does not check values.  Rather than copy the
template, this module wraps the stock view:

- GET: the stock body, with the override frequency the backend keeps
  (Once / Continuous / Disabled), ``None`` and ``BiosSetup`` among the
  allowed targets, the BIOS linked at ``/Bios``, every reset type
  ``systems.EmulatedSystems`` supports, the health the backend keeps
  (``Status/Health``), and, for tests, what each boot booted from
  (``Oem/Emulator/BootSources``);
- PATCH: checks target, mode and frequency first (400 naming the bad value,
  nothing changed), lets the stock view set target and mode, then records
  the frequency.  A target set while the override is Disabled, without a
  frequency, becomes a one-time (``Once``) override, as on common BMCs.
  For tests, ``Oem/Emulator/Health`` sets the System's health (``OK``,
  ``Warning``, ``Critical``), as a failing fan would.

The one-time override is consumed by the next boot (``systems``).
"""

import flask

from tests.redfish_emulator import errors
from tests.redfish_emulator import systems

_TARGETS = ('None', 'Pxe', 'Cd', 'Hdd', 'BiosSetup')
_MODES = ('UEFI', 'Legacy')
_HEALTH = ('OK', 'Warning', 'Critical')


def _allowed_targets(boot):
    return _TARGETS + (('UefiHttp',) if boot.get('BootSourceOverrideMode')
                       == 'UEFI' else ())


def _decorate(response, identity):
    if response.status_code != 200:
        return response
    body = response.get_json()
    boot = body['Boot']
    boot['BootSourceOverrideEnabled'] = flask.current_app.systems \
        .get_boot_override(identity)
    boot['BootSourceOverrideEnabled@Redfish.AllowableValues'] = list(
        systems.BOOT_OVERRIDES)
    boot['BootSourceOverrideTarget@Redfish.AllowableValues'] = list(
        _allowed_targets(boot))
    if boot.get('HttpBootUri') == 'None':  # the template's str(None)
        boot['HttpBootUri'] = None
    if 'Bios' in body:
        body['Bios'] = {'@odata.id': '/redfish/v1/Systems/%s/Bios' % identity}
    body['Actions']['#ComputerSystem.Reset'][
        'ResetType@Redfish.AllowableValues'] = list(systems.RESET_TYPES)
    body['Status'] = {**(body.get('Status') or {}),
                      'Health': flask.current_app.systems.get_health(
                          identity)}
    body['Oem'] = {'Emulator': {
        'BootSources': flask.current_app.systems.boot_sources(identity)}}
    return flask.jsonify(body)


def _patch(stock_view, identity):
    app = flask.current_app
    body = errors.request_body()
    health = ((body.pop('Oem', None) or {}).get('Emulator') or {}).get(
        'Health')
    if health is not None:
        if health not in _HEALTH:
            raise errors.value_not_in_list('Oem/Emulator/Health', health,
                                           _HEALTH)
        app.systems.set_health(identity, health)
        if not body:
            return '', 204
    boot = body.get('Boot') or {}
    if not boot and 'IndicatorLED' not in body:
        raise errors.property_missing('Boot', 'A ComputerSystem PATCH')
    target = boot.get('BootSourceOverrideTarget')
    mode = boot.get('BootSourceOverrideMode')
    enabled = boot.get('BootSourceOverrideEnabled')
    allowed = _allowed_targets({'BootSourceOverrideMode':
                                mode or app.systems.get_boot_mode(identity)})
    if target is not None and target not in allowed:
        raise errors.value_not_in_list('Boot/BootSourceOverrideTarget',
                                       target, allowed)
    if mode is not None and mode not in _MODES:
        raise errors.value_not_in_list('Boot/BootSourceOverrideMode', mode,
                                       _MODES)
    if enabled is not None and enabled not in systems.BOOT_OVERRIDES:
        raise errors.value_not_in_list('Boot/BootSourceOverrideEnabled',
                                       enabled, systems.BOOT_OVERRIDES)
    if set(boot) - {'BootSourceOverrideEnabled'} or set(body) - {'Boot'}:
        response = stock_view(identity=identity)
        if response.status_code >= 300:
            return response
    if enabled is None and target is not None:
        current = app.systems.get_boot_override(identity)
        enabled = ('Disabled' if target == 'None' else
                   'Once' if current == 'Disabled' else None)
    if enabled is not None:
        app.systems.set_boot_override(identity, enabled)
    return '', 204


def install(app, replace_view):
    stock_view = app.view_functions['system_resource']

    def system_resource(identity):
        if flask.request.method == 'PATCH':
            return _patch(stock_view, identity)
        return _decorate(stock_view(identity=identity), identity)

    replace_view('system_resource', system_resource)
