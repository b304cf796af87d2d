"""BIOS settings through a Redfish BMC.

A BMC takes new BIOS settings as *pending* and applies them while the
server restarts, so ``apply_configuration`` and ``factory_reset`` ask for
the change, restart the node, and are polled (see
:func:`ironic_steps.drivers.base.poll_step`) until the BMC reports the
settings in force (for a reset: nothing pending any more).  Then, and by
``cache_bios_settings``, the node's settings as the BMC reports them are
cached, for ``GET /v1/nodes/{node}/bios``, each with what the BMC's BIOS
attribute registry says of it (type, allowed values, bounds, lengths,
flags: API 1.74).  A BMC that names no registry, or cannot give it, has
its settings cached with those facts unknown; the step goes on.
"""

from oslo_log import log
import sushy

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.drivers import base
from ironic_steps.drivers import bios as bios_cache
from ironic_steps.drivers.modules.redfish import utils

LOG = log.getLogger(__name__)


def _bios(task, operation):
    system = utils.get_system(task.node, operation)
    with utils.bmc_call(task.node, operation):
        return system.bios


def _registry(task, bios):
    """{name: registry facts} from the BMC's BIOS attribute registry ({}
    when the BMC names none or cannot give it: logged)."""
    try:
        registry = bios.get_attribute_registry()
        entries = (registry.registry_entries.attributes
                   if registry is not None and registry.registry_entries
                   else None)
    except sushy.exceptions.SushyError as exc:
        LOG.warning('Could not read the BIOS attribute registry of node %s; '
                    'its BIOS settings are cached without it: %s',
                    task.node.uuid, exc)
        return {}
    if not entries:
        LOG.debug('The BMC of node %s offers no BIOS attribute registry',
                  task.node.uuid)
        return {}
    return {entry.name: _facts(entry) for entry in entries}


def _facts(entry):
    """The registry facts of one sushy registry entry, as reported."""
    return {'attribute_type': entry.attribute_type,
            'allowable_values': _value_names(entry.allowable_values),
            'lower_bound': entry.lower_bound,
            'max_length': entry.max_length,
            'min_length': entry.min_length,
            'read_only': entry.read_only,
            'reset_required': entry.reset_required,
            'unique': entry.unique,
            'upper_bound': entry.upper_bound}


def _value_names(values):
    """Redfish's ``[{"ValueName": ..., "ValueDisplayName": ...}]`` as the
    names (the display name where a BMC gives no name); anything else as
    reported, for :func:`bios_cache.with_registry` to judge."""
    if not isinstance(values, list):
        return values
    return [value.get('ValueName') or value.get('ValueDisplayName')
            if isinstance(value, dict) else value for value in values]


def _restart(task):
    """Restart the node so the BMC applies what is pending."""
    power = task.driver.power
    if power.get_power_state(task) == states.POWER_ON:
        power.reboot(task)
    else:
        power.set_power_state(task, states.POWER_ON)


class RedfishBios(utils.BMCInterface, base.BiosInterface):

    def cache_bios_settings(self, task):
        """Cache the settings the BMC reports now, with its registry's
        facts about them."""
        bios = _bios(task, 'read the BIOS settings')
        with utils.bmc_call(task.node, 'read the BIOS settings'):
            bios.refresh(force=True)
            attributes = dict(bios.attributes)
        bios_cache.cache_settings(task, bios_cache.with_registry(
            attributes, _registry(task, bios), task.node.uuid))

    @base.deploy_step(priority=0,
                      argsinfo=bios_cache.APPLY_CONFIGURATION_ARGSINFO)
    @base.clean_step(priority=0, requires_ramdisk=False,
                     argsinfo=bios_cache.APPLY_CONFIGURATION_ARGSINFO)
    @base.service_step(priority=0, requires_ramdisk=False,
                       argsinfo=bios_cache.APPLY_CONFIGURATION_ARGSINFO)
    def apply_configuration(self, task, settings):
        """Apply BIOS settings; they are in force after a restart."""
        wanted = bios_cache.requested_settings(settings)
        if not wanted:
            raise exception.InvalidParameterValue(
                err='bios.apply_configuration of node %s was given no '
                    'settings to apply' % task.node.uuid)
        operation = 'set BIOS settings %s' % ', '.join(sorted(wanted))
        bios = _bios(task, operation)
        with utils.bmc_call(task.node, operation):
            unknown = sorted(set(wanted) - set(bios.attributes))
            if unknown:
                raise exception.InvalidParameterValue(
                    err='The BIOS of node %s has no setting %s; it has: %s'
                        % (task.node.uuid, ', '.join(unknown),
                           ', '.join(sorted(bios.attributes))))
            bios.set_attributes(wanted)
        _restart(task)
        return base.poll_step(task, self.check_bios_applied,
                              names=sorted(wanted))

    def check_bios_applied(self, task, names):
        """Polled: done once nothing asked for is still pending."""
        bios = _bios(task, 'read the BIOS settings')
        with utils.bmc_call(task.node, 'read the BIOS settings'):
            bios.refresh(force=True)
            pending = sorted(set(names) & set(bios.pending_attributes or {}))
        if pending:
            return 'waiting for the BMC to apply %s' % ', '.join(pending)
        self.cache_bios_settings(task)
        return base.DONE

    @base.deploy_step(priority=0)
    @base.clean_step(priority=0, requires_ramdisk=False)
    @base.service_step(priority=0, requires_ramdisk=False)
    def factory_reset(self, task):
        """Reset the BIOS to its defaults; in force after a restart."""
        bios = _bios(task, 'reset the BIOS')
        with utils.bmc_call(task.node, 'reset the BIOS'):
            bios.reset_bios()
        _restart(task)
        return base.poll_step(task, self.check_bios_reset)

    def check_bios_reset(self, task):
        """Polled: done once the BMC has nothing pending."""
        bios = _bios(task, 'read the BIOS settings')
        with utils.bmc_call(task.node, 'read the BIOS settings'):
            bios.refresh(force=True)
            pending = sorted(bios.pending_attributes or {})
        if pending:
            return 'waiting for the BMC to reset %d settings' % len(pending)
        self.cache_bios_settings(task)
        return base.DONE
