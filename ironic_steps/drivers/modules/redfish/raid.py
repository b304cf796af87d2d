"""RAID through a Redfish BMC: logical disks as Storage Volumes.

``apply_configuration`` builds a layout (see :mod:`ironic_steps.drivers.
raid`) on the node's first storage controller that has drives: with
``delete_existing`` (the default) it first deletes the volumes there, then
creates one volume per logical disk, on drives no other logical disk of
the layout uses (those named in ``physical_disks``, else the first free
ones, as many as the RAID level needs).  ``create_configuration`` (a clean
step, Ironic's, which Metal3 cleans with) builds the node's target layout
the same way, keeping existing volumes unless asked.
``delete_configuration`` deletes every volume.  A BMC builds volumes in
its own time: each request the BMC answers with a task is polled (see
:func:`ironic_steps.drivers.base.poll_step`) before the next one is sent,
and the node's ``raid_config`` records the layout once all are done.
"""

from ironic_steps.common import exception
from ironic_steps.drivers import base
from ironic_steps.drivers import raid
from ironic_steps.drivers.modules.redfish import utils

#: Layout RAID level -> (Redfish RAIDType, the fewest drives it needs).
_LEVELS = {
    'JBOD': (None, 1),
    '0': ('RAID0', 1),
    '1': ('RAID1', 2),
    '5': ('RAID5', 3),
    '6': ('RAID6', 4),
    '1+0': ('RAID10', 4),
    '5+0': ('RAID50', 6),
    '6+0': ('RAID60', 8),
}
_GIB = 1024 ** 3


def _storage(task, operation):
    """The first storage controller of the node that has drives."""
    system = utils.get_system(task.node, operation)
    with utils.bmc_call(task.node, operation):
        for storage in system.storage.get_members():
            if storage.drives:
                return storage
    raise exception.BMCError(node=task.node.uuid, operation=operation,
                             error='the BMC reports no storage controller '
                                   'with drives')


def _drive_ids(storage):
    return [drive.path for drive in storage.drives]


def _pick_drives(task, disk, index, free):
    level = disk['raid_level']
    if level not in _LEVELS:
        raise exception.InvalidParameterValue(
            err='raid_config["logical_disks"][%d]: RAID level %s cannot be '
                'built through Redfish; it can build: %s' % (
                    index, level, ', '.join(_LEVELS)))
    wanted = disk.get('physical_disks')
    if wanted:
        chosen = []
        for name in wanted:
            matches = [path for path in free
                       if path == name or path.rsplit('/', 1)[-1] == name]
            if not matches:
                raise exception.InvalidParameterValue(
                    err='raid_config["logical_disks"][%d]: physical disk %s '
                        'is not a free drive of node %s; free: %s' % (
                            index, name, task.node.uuid,
                            ', '.join(p.rsplit('/', 1)[-1] for p in free)
                            or 'none'))
            chosen.append(matches[0])
    else:
        count = max(_LEVELS[level][1],
                    disk.get('number_of_physical_disks') or 0)
        if len(free) < count:
            raise exception.InvalidParameterValue(
                err='raid_config["logical_disks"][%d]: RAID %s needs %d '
                    'drives; node %s has %d free' % (
                        index, level, count, task.node.uuid, len(free)))
        chosen = free[:count]
    for path in chosen:
        free.remove(path)
    return chosen


def _create_payload(disk, drives):
    raid_type = _LEVELS[disk['raid_level']][0]
    payload = {'Links': {'Drives': [{'@odata.id': path} for path in drives]}}
    if raid_type:
        payload['RAIDType'] = raid_type
    if disk['size_gb'] != 'MAX':
        payload['CapacityBytes'] = disk['size_gb'] * _GIB
    if disk.get('volume_name'):
        payload['Name'] = disk['volume_name']
    return payload


class RedfishRAID(utils.BMCInterface, base.RAIDInterface):

    @base.deploy_step(priority=0,
                      argsinfo=raid.APPLY_CONFIGURATION_ARGSINFO,
                      precheck=raid.check_apply_configuration)
    @base.clean_step(priority=0, argsinfo=raid.APPLY_CONFIGURATION_ARGSINFO,
                     precheck=raid.check_apply_configuration)
    @base.service_step(priority=0,
                       argsinfo=raid.APPLY_CONFIGURATION_ARGSINFO,
                       precheck=raid.check_apply_configuration)
    def apply_configuration(self, task, raid_config=None,
                            delete_existing=True):
        """Build the layout (by default the node's target RAID
        configuration) as volumes on the node's storage controller."""
        raid_config = raid.layout_to_build(task, raid_config)
        operation = 'build RAID volumes'
        storage = _storage(task, operation)
        with utils.bmc_call(task.node, operation):
            existing = [volume.path for volume in
                        storage.volumes.get_members()]
            free = _drive_ids(storage)
        pending = [{'delete': path} for path in existing] if (
            delete_existing) else []
        built = []
        for index, disk in enumerate(raid_config['logical_disks']):
            drives = _pick_drives(task, disk, index, free)
            pending.append({'create': _create_payload(disk, drives)})
            built.append(dict(disk, physical_disks=[
                path.rsplit('/', 1)[-1] for path in drives],
                controller=storage.identity))
        return self._go_on(task, storage.path, pending,
                           {'logical_disks': built})

    @base.clean_step(priority=0,
                     argsinfo=raid.CREATE_CONFIGURATION_ARGSINFO,
                     precheck=raid.layout_to_create)
    def create_configuration(self, task, create_root_volume=True,
                             create_nonroot_volumes=True,
                             delete_existing=False):
        """Build the node's target RAID configuration (set beforehand
        with ``PUT /v1/nodes/{node}/states/raid``), as Ironic's clean step
        of that name does: Metal3 cleans with it."""
        return self.apply_configuration(
            task, raid.layout_to_create(task, create_root_volume,
                                        create_nonroot_volumes),
            delete_existing=delete_existing)

    @base.deploy_step(priority=0)
    @base.clean_step(priority=0)
    @base.service_step(priority=0)
    def delete_configuration(self, task):
        """Delete every volume of the node's storage controller."""
        operation = 'delete RAID volumes'
        storage = _storage(task, operation)
        with utils.bmc_call(task.node, operation):
            pending = [{'delete': volume.path}
                       for volume in storage.volumes.get_members()]
        return self._go_on(task, storage.path, pending, {})

    def _go_on(self, task, storage_path, pending, layout, polled=False):
        """Send the pending requests in turn until one answers with a
        task; poll that.  When none is left, record ``layout``."""
        while pending:
            request, pending = pending[0], pending[1:]
            monitor = self._send(task, storage_path, request)
            if monitor is not None:
                args = dict(storage=storage_path, monitor=monitor,
                            pending=pending, layout=layout)
                if polled:
                    base.update_poll(task, **args)
                    return 'building volumes'
                return base.poll_step(task, self.check_volumes, **args)
        task.node.raid_config = layout
        return base.DONE if polled else None

    def _send(self, task, storage_path, request):
        """One volume request; the BMC task's monitor URI, or None."""
        node = task.node
        if 'delete' in request:
            operation = 'delete volume %s' % request['delete']
        else:
            operation = 'create a %s volume' % request['create'].get(
                'RAIDType', 'JBOD')
        with utils.bmc_call(node, operation):
            storage = utils.get_system(node, operation).storage.get_member(
                storage_path)
            if 'delete' in request:
                result = storage.volumes.get_member(
                    request['delete']).delete()
            else:
                result = storage.volumes.create(request['create'])
        return getattr(result, 'task_monitor_uri', None)

    def check_volumes(self, task, storage, monitor, pending, layout):
        """Polled: the BMC task of the volume request sent last."""
        finished, status = utils.check_task(task.node, monitor,
                                            'build RAID volumes')
        if not finished:
            return status
        return self._go_on(task, storage, pending, layout, polled=True)
