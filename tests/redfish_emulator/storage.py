"""Storage: a RAID controller, its drives, and volumes made by tasks.

sushy-tools serves Storage and Drives from static configuration, but its
fake backend cannot make volumes (POST answers 501, and listing volumes
breaks without the libvirt backend).  The redfish hardware type's RAID
steps need a controller that refuses impossible volumes at once and builds
possible ones in a task, as real controllers do.  This module owns:

- the configuration of each system's one controller (``STORAGE_ID``) and
  its drives, in the stock ``SUSHY_EMULATOR_STORAGE``/``_DRIVES`` shape;
- ``VolumeStore``, the stock volume store made usable without libvirt;
- the RAID rules (``RAID_LEVELS``) and the check of a requested volume;
- the views: Storage, Drive, the Volumes collection (GET; POST answers 202
  and a task) and a Volume (GET; DELETE answers 204, or 202 and a task
  when the request names an ``@Redfish.OperationApplyTime``).

A volume asked for ``OnReset`` is only built after the system's next boot.
"""

import dataclasses

import flask
from sushy_tools.emulator.resources import volumes as stock_volumes

from tests.redfish_emulator import errors
from tests.redfish_emulator import tasks

VOLUME_SECONDS = 'EMULATOR_VOLUME_SECONDS'
"""Config key: how long a volume task runs."""
STORAGE_ID = 'RAID-1'
APPLY_TIMES = ('Immediate', 'OnReset')
DEFAULT_DRIVES = ('SSD:480', 'SSD:480', 'HDD:960', 'HDD:960')
"""Media type and size in GB of each system's drives."""


@dataclasses.dataclass(frozen=True)
class RaidLevel:
    min_drives: int
    max_drives: int | None
    data_drives: object  # drive count -> how many drives' worth of data
    volume_type: str
    even: bool = False


RAID_LEVELS = {
    'RAID0': RaidLevel(1, None, lambda n: n, 'NonRedundant'),
    'RAID1': RaidLevel(2, 2, lambda n: 1, 'Mirrored'),
    'RAID5': RaidLevel(3, None, lambda n: n - 1, 'StripedWithParity'),
    'RAID6': RaidLevel(4, None, lambda n: n - 2, 'StripedWithParity'),
    'RAID10': RaidLevel(4, None, lambda n: n // 2, 'SpannedMirrors',
                        even=True),
}
_RAID_OF_VOLUME_TYPE = {'NonRedundant': 'RAID0', 'Mirrored': 'RAID1',
                        'StripedWithParity': 'RAID5',
                        'SpannedMirrors': 'RAID10'}


def drive_records(specs=DEFAULT_DRIVES):
    """Drives from ``MEDIA:GB`` specs (e.g. ``SSD:480``)."""
    records = []
    for index, spec in enumerate(specs):
        media, _sep, size = spec.partition(':')
        if media not in ('SSD', 'HDD') or not size.isdigit():
            raise ValueError('drive spec %r is not SSD:<GB> or HDD:<GB>'
                             % spec)
        records.append({'Id': 'Disk-%d' % index,
                        'Name': 'Physical disk %d' % index,
                        'CapacityBytes': int(size) * 10 ** 9,
                        'MediaType': media,
                        'Protocol': 'SATA' if media == 'SSD' else 'SAS'})
    return records


def stock_config(system_uuids, drive_specs=DEFAULT_DRIVES):
    """The stock storage and drives configuration for these systems."""
    drives = drive_records(drive_specs)
    return {
        'SUSHY_EMULATOR_STORAGE': {uuid: [{
            'Id': STORAGE_ID, 'Name': 'RAID controller',
            'StorageControllers': [{'MemberId': '0',
                                    'Name': 'RAID controller 0',
                                    'SpeedGbps': 12}],
            'Drives': [d['Id'] for d in drives]}] for uuid in system_uuids},
        'SUSHY_EMULATOR_DRIVES': {(uuid, STORAGE_ID): drives
                                  for uuid in system_uuids},
    }


class VolumeStore(stock_volumes.StaticDriver):
    """The stock persistent volume store, answering for empty storage."""

    def get_volumes_col(self, identity, storage_id):
        return self._volumes.get((identity, storage_id), [])

    def add_volume(self, uu_identity, storage_id, vol):
        self._volumes[(uu_identity, storage_id)] = (
            self.get_volumes_col(uu_identity, storage_id) + [vol])

    def get_volume(self, uuid, storage_id, volume_id):
        for volume in self.get_volumes_col(uuid, storage_id):
            if volume['Id'] == volume_id:
                return volume
        raise errors.RedfishError(
            'No volume %s on %s of system %s.'
            % (volume_id, storage_id, uuid), code=404,
            message_id='ResourceMissingAtURI', args=[flask.request.path])

    def remove_volume(self, uuid, storage_id, volume_id):
        self._volumes[(uuid, storage_id)] = [
            v for v in self.get_volumes_col(uuid, storage_id)
            if v['Id'] != volume_id]

    def next_id(self, uuid, storage_id):
        numbers = [int(v['Id'].rsplit('-', 1)[1])
                   for v in self.get_volumes_col(uuid, storage_id)]
        return 'Volume-%d' % (max(numbers, default=0) + 1)


def plan_volume(body, drives, busy):
    """The volume a POST asks for, or a 400 naming what is impossible.

    :param drives: the controller's drives (records by id).
    :param busy: drive id -> the volume (or task) already using it.
    """
    raid = body.get('RAIDType') or _RAID_OF_VOLUME_TYPE.get(
        body.get('VolumeType'))
    if raid is None:
        raise errors.property_missing('RAIDType', 'Creating a volume')
    if raid not in RAID_LEVELS:
        raise errors.value_not_in_list('RAIDType', raid, list(RAID_LEVELS))
    level = RAID_LEVELS[raid]
    links = (body.get('Links') or {}).get('Drives') or []
    if not links:
        raise errors.property_missing('Links/Drives', 'Creating a volume')
    chosen = []
    for link in links:
        drive_id = str((link or {}).get('@odata.id', '')).rstrip('/') \
            .rsplit('/', 1)[-1]
        if drive_id not in drives:
            raise errors.RedfishError(
                'Links/Drives names %s, which is not a drive of this '
                'controller; its drives are: %s.'
                % (link, ', '.join(sorted(drives))),
                message_id='PropertyValueNotInList',
                args=[link, 'Links/Drives'], related=['#/Links/Drives'])
        if drive_id in chosen:
            raise errors.RedfishError(
                'Drive %s is named twice.' % drive_id,
                message_id='PropertyValueConflict', args=[drive_id],
                related=['#/Links/Drives'])
        if drive_id in busy:
            raise errors.RedfishError(
                'Drive %s already belongs to %s.' % (drive_id,
                                                     busy[drive_id]),
                message_id='ResourceInUse', args=[drive_id],
                related=['#/Links/Drives'])
        chosen.append(drive_id)
    count = len(chosen)
    if (count < level.min_drives
            or (level.max_drives and count > level.max_drives)
            or (level.even and count % 2)):
        wanted = ('exactly %d' % level.min_drives
                  if level.max_drives == level.min_drives
                  else 'an even number, at least %d' % level.min_drives
                  if level.even else 'at least %d' % level.min_drives)
        raise errors.RedfishError(
            '%s needs %s drives; the request names %d (%s).'
            % (raid, wanted, count, ', '.join(chosen)),
            message_id='PropertyValueIncorrect', args=[count, 'Links/Drives'],
            related=['#/Links/Drives'])
    largest = level.data_drives(count) * min(
        drives[d]['CapacityBytes'] for d in chosen)
    capacity = body.get('CapacityBytes', largest)
    if not isinstance(capacity, int) or isinstance(capacity, bool) \
            or capacity <= 0:
        raise errors.RedfishError(
            'CapacityBytes must be a positive integer, not %r.' % capacity,
            message_id='PropertyValueTypeError',
            args=[capacity, 'CapacityBytes'], related=['#/CapacityBytes'])
    if capacity > largest:
        raise errors.RedfishError(
            'CapacityBytes %d is more than %s over %s can hold (%d).'
            % (capacity, raid, ', '.join(chosen), largest),
            message_id='PropertyValueOutOfRange',
            args=[capacity, 'CapacityBytes'], related=['#/CapacityBytes'])
    return {'Name': str(body.get('Name') or '%s volume' % raid),
            'RAIDType': raid, 'VolumeType': level.volume_type,
            'CapacityBytes': capacity, 'Drives': chosen,
            'BlockSizeBytes': 512}


# Views.

def _storage_path(identity, storage_id, tail=''):
    return '/redfish/v1/Systems/%s/Storage/%s%s' % (identity, storage_id,
                                                    tail)


def _controller(identity, storage_id):
    """(system UUID, storage record, drives by id) or a 404."""
    app = flask.current_app
    uuid = app.systems.uuid(identity)
    for storage in app.storage.get_storage_col(uuid):
        if storage['Id'] == storage_id:
            drives = {d['Id']: d for d in app.drives.get_drives(uuid,
                                                                storage_id)}
            return uuid, storage, drives
    raise errors.RedfishError(
        'System %s has no storage %s; it has %s.' % (identity, storage_id,
                                                     STORAGE_ID),
        code=404, message_id='ResourceMissingAtURI',
        args=[flask.request.path])


def _busy_drives(uuid, storage_id):
    app = flask.current_app
    busy = {}
    for volume in app.volumes.get_volumes_col(uuid, storage_id):
        busy.update(dict.fromkeys(volume['Drives'], volume['Id']))
    for task in app.tasks.unfinished('volume-create', uuid):
        if task['payload']['storage'] == storage_id:
            busy.update(dict.fromkeys(task['payload']['volume']['Drives'],
                                      'the volume of task %s' % task['id']))
    return busy


_ENABLED = {'State': 'Enabled', 'Health': 'OK'}


def storage_resource(identity, storage_id):
    _uuid, storage, drives = _controller(identity, storage_id)
    return flask.jsonify({
        '@odata.type': '#Storage.v1_9_0.Storage',
        '@odata.id': _storage_path(identity, storage_id),
        'Id': storage_id, 'Name': storage['Name'], 'Status': _ENABLED,
        'StorageControllers': [{
            '@odata.id': _storage_path(identity, storage_id,
                                       '#/StorageControllers/%s'
                                       % ctl['MemberId']),
            'MemberId': ctl['MemberId'], 'Name': ctl['Name'],
            'Status': _ENABLED, 'SpeedGbps': ctl['SpeedGbps'],
            'FirmwareVersion': '1.0.0',
            'SupportedControllerProtocols': ['PCIe'],
            'SupportedDeviceProtocols': ['SAS', 'SATA'],
            'SupportedRAIDTypes': list(RAID_LEVELS),
        } for ctl in storage['StorageControllers']],
        'Drives': [{'@odata.id': _storage_path(identity, storage_id,
                                               '/Drives/%s' % d)}
                   for d in drives],
        'Drives@odata.count': len(drives),
        'Volumes': {'@odata.id': _storage_path(identity, storage_id,
                                               '/Volumes')},
    })


def drive_resource(identity, stg_id, drv_id):
    uuid, _storage, drives = _controller(identity, stg_id)
    if drv_id not in drives:
        raise errors.RedfishError(
            'No drive %s on %s; drives are %s.'
            % (drv_id, stg_id, ', '.join(drives)), code=404,
            message_id='ResourceMissingAtURI', args=[flask.request.path])
    drive = drives[drv_id]
    volumes = [v['Id'] for v in flask.current_app.volumes.get_volumes_col(
        uuid, stg_id) if drv_id in v['Drives']]
    return flask.jsonify(dict(
        {k: drive[k] for k in ('Id', 'Name', 'CapacityBytes', 'MediaType',
                               'Protocol')},
        **{'@odata.type': '#Drive.v1_9_0.Drive',
           '@odata.id': _storage_path(identity, stg_id, '/Drives/' + drv_id),
           'Status': _ENABLED, 'BlockSizeBytes': 512,
           'Manufacturer': 'Contoso', 'SerialNumber': 'SN-%s' % drv_id,
           'Links': {'Volumes': [
               {'@odata.id': _storage_path(identity, stg_id,
                                           '/Volumes/' + v)}
               for v in volumes]}}))


def volumes_collection(identity, storage_id):
    app = flask.current_app
    uuid, _storage, drives = _controller(identity, storage_id)
    if flask.request.method == 'POST':
        body = errors.request_body()
        apply_time = body.get('@Redfish.OperationApplyTime', 'Immediate')
        if apply_time not in APPLY_TIMES:
            raise errors.value_not_in_list('@Redfish.OperationApplyTime',
                                           apply_time, APPLY_TIMES)
        volume = plan_volume(body, drives, _busy_drives(uuid, storage_id))
        return tasks.accepted(_start(
            'volume-create', 'Create %s' % volume['Name'], uuid, apply_time,
            {'storage': storage_id, 'volume': volume}))
    members = [{'@odata.id': _storage_path(identity, storage_id,
                                           '/Volumes/' + v['Id'])}
               for v in app.volumes.get_volumes_col(uuid, storage_id)]
    return flask.jsonify({
        '@odata.type': '#VolumeCollection.VolumeCollection',
        '@odata.id': _storage_path(identity, storage_id, '/Volumes'),
        'Name': 'Volume Collection', 'Members': members,
        'Members@odata.count': len(members),
        '@Redfish.OperationApplyTimeSupport': {
            '@odata.type': '#Settings.v1_3_0.OperationApplyTimeSupport',
            'SupportedValues': list(APPLY_TIMES)},
    })


def volume_resource(identity, stg_id, vol_id):
    app = flask.current_app
    uuid, _storage, _drives = _controller(identity, stg_id)
    volume = app.volumes.get_volume(uuid, stg_id, vol_id)
    if flask.request.method == 'DELETE':
        body = flask.request.get_json(silent=True) or {}
        apply_time = body.get('@Redfish.OperationApplyTime')
        if apply_time is None:
            app.volumes.remove_volume(uuid, stg_id, vol_id)
            return '', 204
        if apply_time not in APPLY_TIMES:
            raise errors.value_not_in_list('@Redfish.OperationApplyTime',
                                           apply_time, APPLY_TIMES)
        return tasks.accepted(_start(
            'volume-delete', 'Delete %s' % vol_id, uuid, apply_time,
            {'storage': stg_id, 'volume_id': vol_id}))
    return flask.jsonify(dict(
        {k: volume[k] for k in ('Id', 'Name', 'RAIDType', 'VolumeType',
                                'CapacityBytes', 'BlockSizeBytes')},
        **{'@odata.type': '#Volume.v1_6_2.Volume',
           '@odata.id': _storage_path(identity, stg_id, '/Volumes/' + vol_id),
           'Status': _ENABLED, 'Encrypted': False,
           'Links': {'Drives': [
               {'@odata.id': _storage_path(identity, stg_id, '/Drives/' + d)}
               for d in volume['Drives']]},
           '@Redfish.OperationApplyTimeSupport': {
               '@odata.type': '#Settings.v1_3_0.OperationApplyTimeSupport',
               'SupportedValues': list(APPLY_TIMES)}}))


def _start(kind, name, uuid, apply_time, payload):
    app = flask.current_app
    after_boot = None
    if apply_time == 'OnReset':
        after_boot, _last = app.systems.boot_count(uuid)
    return app.tasks.start(kind, name, app.config.get(VOLUME_SECONDS, 1),
                           system=uuid, after_boot=after_boot,
                           payload=payload)


# Task effects.

def _create(app, task):
    storage_id = task['payload']['storage']
    volume = dict(task['payload']['volume'],
                  Id=app.volumes.next_id(task['system'], storage_id))
    app.volumes.add_volume(task['system'], storage_id, volume)
    return 'Created %s (%s, %d bytes) on %s.' % (
        volume['Id'], volume['RAIDType'], volume['CapacityBytes'],
        ', '.join(volume['Drives']))


def _delete(app, task):
    storage_id = task['payload']['storage']
    volume_id = task['payload']['volume_id']
    if not any(v['Id'] == volume_id for v in
               app.volumes.get_volumes_col(task['system'], storage_id)):
        raise tasks.TaskFailed('%s was already deleted.' % volume_id)
    app.volumes.remove_volume(task['system'], storage_id, volume_id)
    return 'Deleted %s.' % volume_id


tasks.EFFECTS.update({'volume-create': _create, 'volume-delete': _delete})


def install(app, replace_view):
    replace_view('storage', storage_resource)
    replace_view('drive_resource', drive_resource)
    replace_view('volumes_collection', volumes_collection)
    replace_view('volume', volume_resource)
    app.add_url_rule(
        '/redfish/v1/Systems/<identity>/Storage/<stg_id>/Volumes/<vol_id>',
        endpoint='emulator_volume_delete', view_func=volume_resource,
        methods=['DELETE'])
