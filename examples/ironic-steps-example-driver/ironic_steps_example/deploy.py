"""The ``example`` deploy interface: deploy and clean steps of a driver.

Its deploy steps, highest priority (earliest) first::

    100  deploy.deploy               write the image (synchronous)
     90  deploy.configure_firmware   set the firmware up (synchronous,
                                     optional arguments)

The fake power, management and boot interfaces of ``example-hardware`` add
their own steps (priorities 60 and 20) after these.  When a node is
provided, the clean step ``deploy.wipe_disks`` (priority 10) runs.

Every step leaves a trace on the node, so that what ran and in which order
can be seen from outside: ``driver_internal_info['example_steps_run']``
lists the steps of this interface in the order they ran.
"""

from ironic_steps.common import exception
from ironic_steps.drivers import base

#: The key under which each step appends its name, in running order.
STEPS_RUN_KEY = 'example_steps_run'

_FIRMWARE_ARGSINFO = {
    'version': {
        'description': 'Firmware version to install, e.g. "2.1.0"; '
                       'by default the newest one, "latest".',
        'required': False,
    },
    'secure_boot': {
        'description': 'Whether to enable UEFI secure boot (bool, '
                       'default true).',
        'required': False,
    },
}


def _record(task, step_name, **facts):
    """Note on the node that ``step_name`` ran, with what it did.

    Interfaces are shared between nodes and threads: per-node state lives
    on ``task.node``.  The runner saves the node after the step.
    """
    info = dict(task.node.driver_internal_info or {})
    info[STEPS_RUN_KEY] = list(info.get(STEPS_RUN_KEY) or ()) + [step_name]
    info.update(facts)
    task.node.driver_internal_info = info


class ExampleDeploy(base.DeployInterface):
    """Writes the image and configures the firmware, both synchronously."""

    @base.deploy_step(priority=100)
    def deploy(self, task):
        """Write the image named by ``instance_info['image_source']``."""
        image = (task.node.instance_info or {}).get('image_source')
        _record(task, 'deploy', example_image_written=True,
                example_image_source=image)

    @base.deploy_step(priority=90, argsinfo=_FIRMWARE_ARGSINFO)
    def configure_firmware(self, task, version='latest', secure_boot=True):
        """Install the firmware ``version`` and set secure boot."""
        if not isinstance(secure_boot, bool):
            # A documented exception: the deploy fails with this message.
            raise exception.DeployStepFailed(
                step='deploy.configure_firmware',
                reason='secure_boot must be true or false, got %r'
                       % (secure_boot,))
        _record(task, 'configure_firmware',
                example_firmware={'version': version,
                                  'secure_boot': secure_boot})

    @base.clean_step(priority=10)
    def wipe_disks(self, task):
        """Erase the disks, so the next user starts clean."""
        _record(task, 'wipe_disks', example_disks_wiped=True)

    def tear_down(self, task):
        """Power off and forget the image written by :meth:`deploy`."""
        super().tear_down(task)
        info = dict(task.node.driver_internal_info or {})
        info.pop('example_image_written', None)
        info.pop('example_image_source', None)
        task.node.driver_internal_info = info
