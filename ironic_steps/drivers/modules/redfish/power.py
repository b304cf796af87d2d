"""Power through a Redfish BMC: on, off, soft off, reboot, soft reboot.

A BMC accepts a reset at once and changes the power some seconds later
(a server's power supply, or an emulator, takes its time), so every action
waits until the BMC reports the state asked for, reading it every
``[redfish] power_state_poll_interval`` seconds for at most the caller's
timeout or ``[redfish] power_state_change_timeout``; then it fails naming
what the BMC last reported.
"""

import time

import sushy

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps.drivers.modules.redfish import utils

#: What the BMC reports -> the node's power state.  A server on its way
#: somewhere is counted where it is going, as Ironic counts it.
_FROM_BMC = {
    sushy.POWER_STATE_ON: states.POWER_ON,
    sushy.POWER_STATE_POWERING_ON: states.POWER_ON,
    sushy.POWER_STATE_OFF: states.POWER_OFF,
    sushy.POWER_STATE_POWERING_OFF: states.POWER_OFF,
}
#: A power target -> (the reset to send, the state it ends in).
_ACTIONS = {
    states.POWER_ON: (sushy.RESET_ON, states.POWER_ON),
    states.POWER_OFF: (sushy.RESET_FORCE_OFF, states.POWER_OFF),
    states.SOFT_POWER_OFF: (sushy.RESET_GRACEFUL_SHUTDOWN, states.POWER_OFF),
}
_REBOOTS = {
    states.REBOOT: sushy.RESET_FORCE_RESTART,
    states.SOFT_REBOOT: sushy.RESET_GRACEFUL_RESTART,
}


def _read(system):
    system.refresh(force=True)
    return _FROM_BMC.get(system.power_state)


def _wait_for(task, system, wanted, timeout, operation):
    timeout = CONF.redfish.power_state_change_timeout if (
        timeout is None) else timeout
    deadline = time.monotonic() + timeout
    while True:
        with utils.bmc_call(task.node, operation):
            current = _read(system)
        if current == wanted:
            return
        if time.monotonic() >= deadline:
            raise exception.BMCTimeout(
                node=task.node.uuid, operation=operation, timeout=timeout,
                last=current or 'no power state')
        time.sleep(CONF.redfish.power_state_poll_interval)


class RedfishPower(utils.BMCInterface, base.PowerInterface):

    def get_power_state(self, task):
        system = utils.get_system(task.node, 'read the power state')
        return _FROM_BMC.get(system.power_state, states.ERROR)

    def set_power_state(self, task, power_state, timeout=None):
        if power_state in _REBOOTS:
            return self.reboot(task, timeout=timeout, soft=(
                power_state == states.SOFT_REBOOT))
        if power_state not in _ACTIONS:
            raise exception.InvalidParameterValue(
                err='Redfish power cannot set %r; it can: %s' % (
                    power_state, ', '.join(self.get_supported_power_states(
                        task))))
        reset, wanted = _ACTIONS[power_state]
        operation = power_state   # 'power on', 'soft power off', ...
        system = utils.get_system(task.node, operation)
        with utils.bmc_call(task.node, operation):
            if _read(system) == wanted:
                task.node.power_state = wanted
                return
            system.reset_system(reset)
        _wait_for(task, system, wanted, timeout, operation)
        task.node.power_state = wanted

    def reboot(self, task, timeout=None, soft=False):
        """Restart a running node; power on one that is off."""
        operation = 'soft reboot' if soft else 'reboot'
        system = utils.get_system(task.node, operation)
        with utils.bmc_call(task.node, operation):
            if _read(system) == states.POWER_ON:
                system.reset_system(_REBOOTS[
                    states.SOFT_REBOOT if soft else states.REBOOT])
            else:
                system.reset_system(sushy.RESET_ON)
        _wait_for(task, system, states.POWER_ON, timeout, operation)
        task.node.power_state = states.POWER_ON

    def get_supported_power_states(self, task):
        return [states.POWER_ON, states.POWER_OFF, states.REBOOT,
                states.SOFT_POWER_OFF, states.SOFT_REBOOT]
