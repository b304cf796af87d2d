"""The ``fake`` firmware interface of fake-hardware: a BMC that flashes
images by their names.

A fake node's components (``bios`` and ``bmc``) run version ``1.0.0``
until updated; what they run is kept in the node's
``driver_internal_info['fake_firmware_versions']``.  ``firmware.update``
gives each component of its settings list the version in its image's file
name (``.../bios-2.1.0.bin`` -> ``2.1.0``), or, when the name has none,
its old version with the minor number raised, then records the versions in
the node's component cache, with what identifies each component
(:data:`IDENTITIES`: vendor, model and serial number, API 1.114).  With
``[fake] firmware_delay`` seconds the update is a polled step, as a real
BMC's task is (the node waits in ``clean wait``, unlocked, until that long
has passed); without, it is done at once.  Like the other fake
interfaces it takes ``[fake] step_delay`` and fails when
``driver_info/fake_fail_step`` names ``firmware.update``.
"""

import posixpath
import re
from urllib import parse

from oslo_utils import timeutils

from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps.drivers import firmware
from ironic_steps.drivers.modules import fake

VERSIONS_KEY = 'fake_firmware_versions'
FIRST_VERSION = '1.0.0'
_VERSION = re.compile(r'(\d+(?:\.\d+)+)')


def version_of_image(url, old_version):
    """The version an image flashes: the one in its file name, or
    ``old_version`` with its minor number raised."""
    found = _VERSION.search(posixpath.basename(parse.urlparse(url).path))
    if found:
        return found.group(1)
    parts = old_version.split('.')
    if len(parts) < 2:
        parts.append('0')
    parts[1] = str(int(parts[1]) + 1) if parts[1].isdigit() else '1'
    return '.'.join(parts)


def _versions(task):
    held = (task.node.driver_internal_info or {}).get(VERSIONS_KEY) or {}
    return {component: held.get(component, FIRST_VERSION)
            for component in firmware.COMPONENTS}


#: Each fake component's vendor, model and serial number.
IDENTITIES = {
    firmware.BIOS: {'vendor': 'Fake Firmware Inc.', 'model': 'Fake BIOS',
                    'serial_number': None},
    firmware.BMC: {'vendor': 'Fake Firmware Inc.', 'model': 'Fake BMC 1',
                   'serial_number': 'FAKE-BMC-0001'},
}


class FakeFirmware(base.FirmwareInterface):

    name = 'fake'
    #: Not offered, nor given to new nodes, while pinned before it.
    since_release = '0.12'

    def get_properties(self):
        return {}

    def cache_firmware_components(self, task):
        firmware.cache_components(task, [
            {'component': component, 'current_version': version,
             **IDENTITIES.get(component, {})}
            for component, version in sorted(_versions(task).items())])

    @base.clean_step(priority=0, argsinfo=firmware.UPDATE_ARGSINFO,
                     precheck=firmware.precheck_update,
                     requires_ramdisk=False)
    @base.service_step(priority=0, argsinfo=firmware.UPDATE_ARGSINFO,
                       precheck=firmware.precheck_update,
                       requires_ramdisk=False)
    def update(self, task, settings):
        """Flash each component of ``settings`` in turn."""
        updates = firmware.checked_settings(settings)
        fake.simulate(task, 'firmware.update')
        if not CONF.fake.firmware_delay:
            self._flash(task, updates)
            return None
        return base.poll_step(
            task, self.check_update, updates=updates,
            due_at=(timeutils.utcnow().timestamp()
                    + CONF.fake.firmware_delay))

    def check_update(self, task, updates, due_at):
        """Polled: the fake BMC's task ends ``firmware_delay`` seconds
        after it began."""
        if timeutils.utcnow().timestamp() < due_at:
            return 'flashing %s' % ', '.join(
                update['component'] for update in updates)
        self._flash(task, updates)
        return base.DONE

    def _flash(self, task, updates):
        versions = _versions(task)
        for update in updates:
            versions[update['component']] = version_of_image(
                update['url'], versions[update['component']])
        task.node.driver_internal_info = {
            **(task.node.driver_internal_info or {}), VERSIONS_KEY: versions}
        self.cache_firmware_components(task)
