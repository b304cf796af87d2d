"""The redfish BIOS interface caches what the BMC's attribute registry says
of each setting (API 1.74), against the real Redfish BMC emulator.

As in test_redfish_driver: a started conductor drives the real redfish
interfaces through sushy, over HTTP, against sushy-tools' emulator with our
backend, whose Bios resource names the attribute registry of
:data:`tests.redfish_emulator.bios.ATTRIBUTES` -- or, for a BMC without
one, names none.
"""

from ironic_steps.drivers.modules.redfish import bios as redfish_bios
from ironic_steps import objects
from tests.functional import test_redfish_driver
from tests.redfish_emulator import bios as emulated_bios

SETTINGS = [{'name': 'ProcTurboMode', 'value': 'Disabled'},
            {'name': 'AssetTag', 'value': 'rack-7'}]
FACTS = ('attribute_type', 'allowable_values', 'lower_bound', 'max_length',
         'min_length', 'read_only', 'reset_required', 'unique',
         'upper_bound')


class _BiosCase(test_redfish_driver.RedfishTestCase):

    def apply_settings(self):
        """Apply SETTINGS in a manual cleaning; the cache as it then is,
        by name."""
        node = self.manageable()
        self.rpcapi.do_node_clean(self.context, node.uuid, clean_steps=[
            {'interface': 'bios', 'step': 'apply_configuration',
             'args': {'settings': SETTINGS}}])
        node = self.wait_for_state(node, 'manageable', timeout=60)
        self.assertIsNone(node.last_error)
        return {s.name: s for s in objects.BIOSSetting.list_by_node(
            self.context, node.id)}

    @staticmethod
    def facts(setting):
        return {field: setting[field] for field in FACTS}


class RegistryTest(_BiosCase):

    def test_each_cached_setting_carries_its_registry_entry(self):
        cached = self.apply_settings()
        # Every attribute the BMC has is cached, with its value as set
        self.assertEqual(sorted(emulated_bios.ATTRIBUTES), sorted(cached))
        self.assertEqual(('Disabled', 'rack-7'), (
            cached['ProcTurboMode'].value, cached['AssetTag'].value))
        # and what the registry says of it.
        common = {'read_only': False, 'reset_required': True,
                  'unique': False}
        self.assertEqual(dict.fromkeys(FACTS) | common | {
            'attribute_type': 'Enumeration',
            'allowable_values': ['Enabled', 'Disabled']},
            self.facts(cached['ProcTurboMode']))
        self.assertEqual(dict.fromkeys(FACTS) | common | {
            'attribute_type': 'String', 'min_length': 0, 'max_length': 32,
            'unique': True}, self.facts(cached['AssetTag']))
        self.assertEqual(dict.fromkeys(FACTS) | common | {
            'attribute_type': 'Integer', 'lower_bound': 1,
            'upper_bound': 64, 'read_only': True},
            self.facts(cached['NumCores']))
        self.assertEqual(('Boolean', None), (
            cached['QuietBoot'].attribute_type,
            cached['QuietBoot'].allowable_values))
        self.assertEqual('True', cached['QuietBoot'].value)

    def test_managing_a_node_caches_its_settings_as_ironic_does(self):
        # Ironic reads the BIOS when it verifies a node: Metal3 reads the
        # settings (GET .../bios?detail=true) right after managing it.
        node = self.manageable()
        cached = {s.name: s for s in objects.BIOSSetting.list_by_node(
            self.context, node.id)}
        self.assertEqual(sorted(emulated_bios.ATTRIBUTES), sorted(cached))
        self.assertEqual(('Enabled', ['Enabled', 'Disabled']), (
            cached['ProcTurboMode'].value,
            cached['ProcTurboMode'].allowable_values))

    def test_redfish_value_names_are_read_as_ironic_reads_them(self):
        self.assertEqual(['Uefi', 'Legacy BIOS', None, 'x'],
                         redfish_bios._value_names([
                             {'ValueName': 'Uefi', 'ValueDisplayName': 'UEFI'},
                             {'ValueDisplayName': 'Legacy BIOS'},
                             {}, 'x']))
        self.assertIsNone(redfish_bios._value_names(None))


class NoRegistryTest(_BiosCase):

    emulator_options = {'bios_registry': False}

    def test_settings_are_cached_with_every_fact_unknown(self):
        # Given a BMC whose Bios names no attribute registry
        self.assertNotIn('AttributeRegistry', self.emulator.get(
            '/redfish/v1/Systems/%s/Bios' % self.system_id()))
        # When a BIOS step caches its settings, the step succeeds
        cached = self.apply_settings()
        # and the values are cached without facts.
        self.assertEqual('Disabled', cached['ProcTurboMode'].value)
        for setting in cached.values():
            self.assertEqual(dict.fromkeys(FACTS), self.facts(setting),
                             setting.name)
