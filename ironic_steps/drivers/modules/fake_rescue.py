"""The ``fake`` rescue interface of fake-hardware: rescued at once.

Rescuing a fake node powers it on into a "rescue environment" that is
ready as soon as it is asked for, and unrescuing powers it on into its
instance again, as Ironic's fake rescue does.  Like the other fake
interfaces it takes ``[fake] step_delay`` and fails when
``driver_info/fake_fail_step`` names ``rescue.rescue`` or
``rescue.unrescue``.
"""

from ironic_steps.common import states
from ironic_steps.drivers import base
from ironic_steps.drivers.modules import fake


class FakeRescue(base.RescueInterface):

    name = 'fake'
    #: Not offered, nor given to new nodes, while pinned before it.
    since_release = '0.11'

    def get_properties(self):
        return {}

    def rescue(self, task):
        fake.simulate(task, 'rescue.rescue')
        task.driver.power.reboot(task)
        return states.RESCUE

    def unrescue(self, task):
        fake.simulate(task, 'rescue.unrescue')
        task.driver.power.reboot(task)
        return states.ACTIVE
