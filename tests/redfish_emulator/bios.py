"""BIOS settings as a real BMC keeps them: current, pending, applied on boot.

sushy-tools' fake backend has no BIOS (its views answer 501), and the
libvirt backend it has applies a PATCH at once.  A real BMC stages a PATCH
of ``Bios/Settings`` as *pending* attributes and applies them when the host
next boots (POST reads them), which is exactly what the redfish hardware
type's BIOS steps wait for.  This module owns:

- the attribute table (names, types, defaults, allowed values, bounds,
  lengths, flags), also served as the attribute registry the Bios resource
  names -- unless the emulator runs without one (``--no-bios-registry``,
  as some BMCs do: then the Bios resource names none);
- the state transitions on a system's record (``stage``, ``stage_reset``,
  ``apply_pending``), which ``systems.EmulatedSystems`` calls -- it decides
  *when* a boot happens, this module decides what a boot does to the BIOS;
- the views: ``/redfish/v1/Systems/{id}/Bios``, ``.../Bios/Settings`` (GET,
  PATCH) and ``.../Bios/Actions/Bios.ResetBios``.  The stock ``/BIOS``
  paths are answered by the same views.

A system record keeps ``bios`` (current), ``bios_pending`` (staged
attributes), ``bios_reset_pending`` (ResetBios asked), ``bios_apply_time``
and ``bios_applied`` (Time and Messages of the last application).
"""

import dataclasses
import datetime

import flask

from tests.redfish_emulator import errors

REGISTRY_ID = 'BiosAttributeRegistryP89.v1_0_0'
#: The application's setting: whether the Bios resource names a registry.
REGISTRY = 'EMULATOR_BIOS_REGISTRY'
APPLY_TIMES = ('OnReset', 'Immediate')


@dataclasses.dataclass(frozen=True)
class Attribute:
    name: str
    type: str  # Enumeration, Boolean, Integer or String (Redfish's names)
    default: object
    values: tuple = ()
    read_only: bool = False
    bounds: tuple = (None, None)
    display: str = ''
    lengths: tuple = (None, None)
    unique: bool = False

    def problem(self, value):
        """Why ``value`` cannot be set, or None."""
        if self.read_only:
            return 'PropertyNotWritable', '%s is read-only' % self.name
        if self.type == 'Enumeration' and value not in self.values:
            return ('PropertyValueNotInList', '%s=%r is not one of %s'
                    % (self.name, value, ', '.join(self.values)))
        if self.type == 'Boolean' and not isinstance(value, bool):
            return ('PropertyValueTypeError', '%s=%r is not a boolean'
                    % (self.name, value))
        if self.type == 'Integer':
            low, high = self.bounds
            if not isinstance(value, int) or isinstance(value, bool):
                return ('PropertyValueTypeError', '%s=%r is not an integer'
                        % (self.name, value))
            if not low <= value <= high:
                return ('PropertyValueOutOfRange', '%s=%r is outside %d..%d'
                        % (self.name, value, low, high))
        if self.type == 'String' and not isinstance(value, str):
            return ('PropertyValueTypeError', '%s=%r is not a string'
                    % (self.name, value))
        if self.type == 'String' and self.lengths[1] is not None and not (
                self.lengths[0] <= len(value) <= self.lengths[1]):
            return ('PropertyValueFormatError', '%s=%r is not %d to %d '
                    'characters long' % ((self.name, value) + self.lengths))
        return None

    def registry_entry(self):
        entry = {'AttributeName': self.name, 'Type': self.type,
                 'DisplayName': self.display or self.name,
                 'ReadOnly': self.read_only, 'CurrentValue': None,
                 'Hidden': False, 'Immutable': self.read_only,
                 # Every change waits for the next boot (see stage()).
                 'ResetRequired': True,
                 'IsSystemUniqueProperty': self.unique}
        if self.values:
            entry['Value'] = [{'ValueName': v, 'ValueDisplayName': v}
                              for v in self.values]
        if self.type == 'Integer':
            entry['LowerBound'], entry['UpperBound'] = self.bounds
        if self.type == 'String':
            entry['MinLength'], entry['MaxLength'] = self.lengths
        return entry


_ON_OFF = ('Enabled', 'Disabled')
ATTRIBUTES = {a.name: a for a in (
    Attribute('BootMode', 'Enumeration', 'Uefi', ('Uefi', 'Bios'),
              display='Boot Mode'),
    Attribute('ProcTurboMode', 'Enumeration', 'Enabled', _ON_OFF,
              display='Turbo Boost'),
    Attribute('LogicalProc', 'Enumeration', 'Enabled', _ON_OFF,
              display='Logical Processor'),
    Attribute('ProcVirtualization', 'Enumeration', 'Enabled', _ON_OFF,
              display='Virtualization Technology'),
    Attribute('SriovEnable', 'Enumeration', 'Disabled', _ON_OFF,
              display='SR-IOV Global Enable'),
    Attribute('EmbeddedSata', 'Enumeration', 'Raid',
              ('Ata', 'Ahci', 'Raid', 'Off'), display='Embedded SATA'),
    Attribute('NicBoot1', 'Enumeration', 'NetworkBoot',
              ('NetworkBoot', 'Disabled'), display='Embedded NIC 1 Boot'),
    Attribute('QuietBoot', 'Boolean', True, display='Quiet Boot'),
    Attribute('PowerOnDelay', 'Integer', 0, bounds=(0, 120),
              display='Power-on delay (s)'),
    Attribute('AssetTag', 'String', '', display='Asset Tag',
              lengths=(0, 32), unique=True),
    Attribute('NumCores', 'Integer', 16, read_only=True, bounds=(1, 64),
              display='Number of Cores'),
)}


def defaults():
    return {name: a.default for name, a in ATTRIBUTES.items()}


def initial_state():
    return {'bios': defaults(), 'bios_pending': {},
            'bios_reset_pending': False, 'bios_apply_time': None,
            'bios_applied': None}


def validate(attributes):
    """Refuse, naming every one, attributes a real BIOS would refuse."""
    unknown = sorted(set(attributes) - set(ATTRIBUTES))
    if unknown:
        raise errors.RedfishError(
            'Unknown BIOS attribute(s): %s. Known attributes: %s.'
            % (', '.join(unknown), ', '.join(sorted(ATTRIBUTES))),
            message_id='PropertyUnknown', args=unknown,
            related=['#/Attributes/%s' % name for name in unknown])
    problems = [(name,) + found for name, value in sorted(attributes.items())
                if (found := ATTRIBUTES[name].problem(value))]
    if problems:
        raise errors.RedfishError(
            'Invalid BIOS attribute value(s): %s.'
            % '; '.join(text for _name, _id, text in problems),
            message_id=problems[0][1],
            args=[name for name, _id, _text in problems],
            related=['#/Attributes/%s' % name for name, _i, _t in problems])


def stage(system, attributes, apply_time):
    """The changes to ``system`` for a PATCH of the settings resource."""
    validate(attributes)
    pending = dict(system['bios_pending'], **attributes)
    return {'bios_pending': pending, 'bios_apply_time': apply_time}


def stage_reset(system):
    """ResetBios: defaults on the next boot; earlier staged values go."""
    return {'bios_reset_pending': True, 'bios_pending': {}}


def pending_view(system):
    """What the settings resource shows: everything the next boot sets."""
    pending = defaults() if system['bios_reset_pending'] else {}
    pending.update(system['bios_pending'])
    return pending


def has_pending(system):
    return bool(system['bios_pending']) or system['bios_reset_pending']


def apply_pending(system, now):
    """The changes a boot makes: pending settings become current."""
    if not has_pending(system):
        return {}
    current = defaults() if system['bios_reset_pending'] else dict(
        system['bios'])
    applied = pending_view(system)
    current.update(applied)
    when = datetime.datetime.fromtimestamp(now, datetime.timezone.utc)
    return {'bios': current, 'bios_pending': {}, 'bios_reset_pending': False,
            'bios_apply_time': None,
            'bios_applied': {'Time': when.isoformat(timespec='seconds'),
                             'Messages': [{
                                 'MessageId': errors.BASE + 'Success',
                                 'Message': 'Applied BIOS attributes: %s.'
                                            % ', '.join(sorted(applied)),
                                 'Severity': 'OK'}]}}


# Views.  ``identity`` is the system id as the request wrote it: a name is
# redirected to the UUID by sushy-tools' AliasAccessError handling.

def _path(identity, tail=''):
    return '/redfish/v1/Systems/%s/Bios%s' % (identity, tail)


def _registry_named():
    """``AttributeRegistry`` of the Bios resources, if the emulator has
    one."""
    if flask.current_app.config.get(REGISTRY, True):
        return {'AttributeRegistry': REGISTRY_ID}
    return {}


def bios_resource(identity):
    system = flask.current_app.systems.bios_state(identity)
    settings = {'@odata.type': '#Settings.v1_3_0.Settings',
                'SettingsObject': {'@odata.id': _path(identity, '/Settings')},
                'SupportedApplyTimes': list(APPLY_TIMES)}
    if system['bios_applied']:
        settings.update(system['bios_applied'])
    return flask.jsonify({
        '@odata.type': '#Bios.v1_1_0.Bios',
        '@odata.id': _path(identity),
        'Id': 'Bios', 'Name': 'BIOS Configuration Current Settings',
        **_registry_named(),
        'Attributes': system['bios'],
        '@Redfish.Settings': settings,
        'Actions': {'#Bios.ResetBios': {
            'target': _path(identity, '/Actions/Bios.ResetBios')}},
    })


def bios_settings(identity):
    systems = flask.current_app.systems
    if flask.request.method == 'PATCH':
        body = errors.request_body()
        attributes = body.get('Attributes')
        if not isinstance(attributes, dict) or not attributes:
            raise errors.property_missing('Attributes', 'A BIOS settings '
                                          'PATCH')
        apply_time = (body.get('@Redfish.SettingsApplyTime') or {}).get(
            'ApplyTime', 'OnReset')
        if apply_time not in APPLY_TIMES:
            raise errors.value_not_in_list(
                '@Redfish.SettingsApplyTime/ApplyTime', apply_time,
                APPLY_TIMES)
        systems.stage_bios(identity, attributes, apply_time)
        return '', 204
    system = systems.bios_state(identity)
    return flask.jsonify({
        '@odata.type': '#Bios.v1_1_0.Bios',
        '@odata.id': _path(identity, '/Settings'),
        'Id': 'Settings', 'Name': 'BIOS Configuration Pending Settings',
        **_registry_named(),
        'Attributes': pending_view(system),
        '@Redfish.SettingsApplyTime': {
            '@odata.type': '#Settings.v1_3_0.PreferredApplyTime',
            'ApplyTime': system['bios_apply_time'] or 'OnReset',
            'ApplyTime@Redfish.AllowableValues': list(APPLY_TIMES)},
    })


def reset_bios(identity):
    flask.current_app.systems.stage_bios_reset(identity)
    return '', 204


def attribute_registry():
    return flask.jsonify({
        '@odata.type': '#AttributeRegistry.v1_1_1.AttributeRegistry',
        '@odata.id': '/redfish/v1/Systems/Bios/BiosRegistry',
        'Id': REGISTRY_ID, 'Name': 'BIOS Attribute Registry',
        'Language': 'en', 'OwningEntity': 'ironic-steps emulator',
        'RegistryVersion': '1.1.1',
        'RegistryEntries': {'Attributes': [
            a.registry_entry() for a in ATTRIBUTES.values()]},
    })


def install(app, replace_view):
    """Serve the views at /Bios and in place of the stock /BIOS ones."""
    for tail, endpoint, view, methods in (
            ('', 'bios', bios_resource, ['GET']),
            ('/Settings', 'bios_settings', bios_settings, ['GET', 'PATCH']),
            ('/Actions/Bios.ResetBios', 'system_reset_bios', reset_bios,
             ['POST'])):
        replace_view(endpoint, view)
        app.add_url_rule('/redfish/v1/Systems/<identity>/Bios' + tail,
                         endpoint='emulator_' + endpoint, view_func=view,
                         methods=methods)
    replace_view('bios_registry', attribute_registry)
