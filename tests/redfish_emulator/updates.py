"""Firmware updates: UpdateService.SimpleUpdate as a task.

sushy-tools' SimpleUpdate needs the libvirt backend (with the fake one it
answers 500), requires ``Targets``, and answers 204 pointing at a static
task.  A real BMC answers 202 with a task that runs for a while and then
completes -- the system reporting the new ``BiosVersion``, or its Manager
the new ``FirmwareVersion`` -- or ends in ``Exception`` with a message.
This module owns that action and its effect.

- ``ImageURI`` is required; ``Targets`` is optional (every system when
  absent) and names systems (``/redfish/v1/Systems/{id}``), as Ironic
  sends them when a BMC has several.  Any other target is refused, 400.
- Which firmware an image is for is in the image, as on a real BMC: here,
  an image whose file name starts with ``bmc`` is BMC firmware (the
  targets' Managers), any other BIOS firmware.
- The task runs ``EMULATOR_UPDATE_SECONDS``.  An ``ImageURI`` containing
  ``fail`` ends it in ``Exception``.  Otherwise every target's
  ``BiosVersion`` (or ``BmcVersion``, see ``managers``) becomes the version
  in the image's file name (``.../bios-2.3.1.bin`` -> ``2.3.1``) or, when
  it names none, the old version with its minor number raised.
- The UpdateService's FirmwareInventory (which sushy-tools links but does
  not serve) lists what each system runs: ``BIOS-{system}`` and
  ``BMC-{system}``, SoftwareInventory resources whose ``Version`` is the
  one an update changed.
"""

import posixpath
import re
from urllib import parse

import flask
from sushy_tools import error as stock_error

from tests.redfish_emulator import errors
from tests.redfish_emulator import systems as systems_module
from tests.redfish_emulator import tasks

UPDATE_SECONDS = 'EMULATOR_UPDATE_SECONDS'
"""Config key: how long a firmware update task runs."""
_VERSION = re.compile(r'(\d+\.\d+(?:\.\d+)*)')


def new_version(image_uri, old_version):
    name = posixpath.basename(parse.urlparse(image_uri).path)
    found = _VERSION.search(name)
    if found:
        return found.group(1).rstrip('.')
    parts = old_version.split('.')
    if len(parts) < 2:
        parts.append('0')
    parts[1] = str(int(parts[1]) + 1)
    return '.'.join(parts)


def _target_systems(targets):
    systems = flask.current_app.systems
    if targets is None:
        return sorted(systems.systems)
    if not isinstance(targets, list):
        raise errors.RedfishError('Targets must be a list of URIs.',
                                  message_id='PropertyValueTypeError',
                                  args=[targets, 'Targets'],
                                  related=['#/Targets'])
    uuids = []
    known = ['/redfish/v1/Systems/%s' % uuid for uuid in systems.systems]
    for target in targets:
        prefix, _sep, name = str(target).rstrip('/').rpartition('/')
        if prefix != '/redfish/v1/Systems':
            raise errors.RedfishError(
                'Target %s is not a system; targets name the systems '
                'whose firmware (BIOS, or their BMC\'s) the image is for. '
                'Systems are: %s.' % (target, ', '.join(known)),
                message_id='ActionParameterNotSupported',
                args=[target, 'Targets'], related=['#/Targets'])
        try:
            uuids.append(systems.uuid(name))
        except stock_error.NotFound:
            raise errors.value_not_in_list('Targets', target,
                                           known) from None
    return uuids


def simple_update():
    app = flask.current_app
    body = errors.request_body()
    image_uri = body.get('ImageURI')
    if not image_uri or not isinstance(image_uri, str):
        raise errors.RedfishError(
            'SimpleUpdate requires the parameter ImageURI.',
            message_id='ActionParameterMissing',
            args=['UpdateService.SimpleUpdate', 'ImageURI'],
            related=['#/ImageURI'])
    systems = _target_systems(body.get('Targets'))
    task = app.tasks.start(
        'firmware-update', 'Update firmware from %s' % image_uri,
        app.config.get(UPDATE_SECONDS, 1),
        system=systems[0] if len(systems) == 1 else None,
        payload={'image_uri': image_uri, 'systems': systems})
    return tasks.accepted(task)


def _apply(app, task):
    image_uri = task['payload']['image_uri']
    if 'fail' in image_uri:
        raise tasks.TaskFailed(
            'Firmware image %s failed verification; nothing was changed.'
            % image_uri)
    done = []
    name = posixpath.basename(parse.urlparse(image_uri).path)
    key, what = (('BmcVersion', 'BMC') if name.lower().startswith('bmc')
                 else ('BiosVersion', 'BIOS'))
    for uuid in task['payload']['systems']:
        old = app.systems.get_versions(uuid).get(
            key, systems_module.FIRST_BMC_VERSION)
        version = new_version(image_uri, old)
        app.systems.set_versions(uuid, {key: version})
        done.append('%s %s -> %s' % (uuid, old, version))
    return 'Updated %s firmware: %s.' % (what, '; '.join(done))


tasks.EFFECTS['firmware-update'] = _apply


_INVENTORY = '/redfish/v1/UpdateService/FirmwareInventory'
#: Inventory id prefix -> (version key, what it is, its resource's path).
_COMPONENTS = {'BIOS': ('BiosVersion', 'BIOS', '/redfish/v1/Systems/%s'),
               'BMC': ('BmcVersion', 'BMC firmware',
                       '/redfish/v1/Managers/%s')}


def firmware_inventory():
    members = [{'@odata.id': '%s/%s-%s' % (_INVENTORY, prefix, uuid)}
               for uuid in sorted(flask.current_app.systems.systems)
               for prefix in sorted(_COMPONENTS)]
    return flask.jsonify({
        '@odata.type': '#SoftwareInventoryCollection.'
                       'SoftwareInventoryCollection',
        '@odata.id': _INVENTORY, 'Name': 'Firmware Inventory',
        'Members': members, 'Members@odata.count': len(members)})


def firmware_item(item_id):
    prefix, _sep, name = item_id.partition('-')
    systems = flask.current_app.systems
    try:
        key, what, related = _COMPONENTS[prefix]
        uuid = systems.uuid(name)
    except (KeyError, stock_error.NotFound):
        raise errors.RedfishError(
            'No firmware inventory item %s; items are BIOS-{system} and '
            'BMC-{system}.' % item_id, code=404,
            message_id='ResourceMissingAtURI',
            args=[flask.request.path]) from None
    version = systems.get_versions(uuid).get(
        key, systems_module.FIRST_BMC_VERSION)
    return flask.jsonify({
        '@odata.type': '#SoftwareInventory.v1_2_0.SoftwareInventory',
        '@odata.id': '%s/%s' % (_INVENTORY, item_id), 'Id': item_id,
        'Name': '%s of %s' % (what, uuid), 'Version': version,
        'Updateable': True, 'RelatedItem': [{'@odata.id': related % uuid}],
        'Status': {'State': 'Enabled', 'Health': 'OK'}})


def install(app, replace_view):
    replace_view('UpdateService.update_service_simple_update', simple_update)
    app.add_url_rule(_INVENTORY, endpoint='emulator_firmware_inventory',
                     view_func=firmware_inventory)
    app.add_url_rule(_INVENTORY + '/<item_id>',
                     endpoint='emulator_firmware_item',
                     view_func=firmware_item)
