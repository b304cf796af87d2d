"""The redfish hardware type as an operator meets it: the real
`openstack baremetal` CLI against the real all-in-one service, whose
conductor drives sushy-tools' emulator (:mod:`tests.redfish_emulator`)
over HTTP as the nodes' BMC.

What the BMC did is read back from the emulator itself, never only from
our API.  Each test starts its own emulator and service; the CLI costs
about a second a command, so tests use as few commands as they can.
"""

import json
import time

import testtools

from tests.functional import fixtures as functional
from tests.redfish_emulator import RedfishEmulator

BMC_USERNAME = 'admin'
# Distinctive, so that finding it in any output can only be a leak.
BMC_PASSWORD = 'bmc-Pa55word-4f1c'
WRONG_PASSWORD = 'wrong-Pa55word-0b7a'
BOOT_ISO = 'http://127.0.0.1:9/images/instance.iso'
MASK = '******'
# Seconds before the emulator shows a power change: long enough that the
# conductor has to wait for the BMC, short enough to keep the file fast.
POWER_DELAY = 1

SERVICE_OPTIONS = {
    'redfish': {'power_state_poll_interval': 0.1, 'server_side_retries': 0,
                'connect_timeout': 2, 'read_timeout': 10},
    'conductor': {'node_locked_retry_interval': 0.1},
}


def lines_showing(text, *words):
    """The lines of ``text`` that hold any of ``words``, for short failure
    messages."""
    return [line.strip() for line in text.splitlines()
            if any(word in line for word in words)]


class RedfishCLITestCase(testtools.TestCase):
    """A BMC emulator with one system that wants a password, the service,
    and the CLI."""

    def setUp(self):
        super().setUp()
        self.emulator = self.useFixture(RedfishEmulator(
            systems=1, username=BMC_USERNAME, password=BMC_PASSWORD,
            power_delay=POWER_DELAY))
        self.system_id = self.emulator.system_ids[0]
        self.service = self.useFixture(
            functional.AllInOneService(SERVICE_OPTIONS))
        self.client = functional.OpenStackClient(self.service.endpoint)

    def enrol(self, name, *more_args, **driver_info):
        """`node create --driver redfish` for the emulator's system; a
        ``driver_info`` field given as None is left out."""
        fields = {'redfish_address': self.emulator.address,
                  'redfish_system_id': self.system_id,
                  'redfish_username': BMC_USERNAME,
                  'redfish_password': BMC_PASSWORD}
        fields.update(driver_info)
        args = ['node', 'create', '--driver', 'redfish', '--name', name]
        for field, value in fields.items():
            if value is not None:
                args += ['--driver-info', '%s=%s' % (field, value)]
        return self.client.run(*(args + list(more_args)))

    def validation(self, name):
        """{interface: (result, reason)} from `node validate`."""
        return {row['Interface']: (row['Result'], row['Reason'])
                for row in self.client.json('node', 'validate', name)}

    def wait_for_power_action(self, name, timeout=30):
        """The node once its power action is over, done or failed."""
        deadline = time.monotonic() + timeout
        while True:
            node = self.client.json('node', 'show', name, '-c', 'power_state',
                                    '-c', 'target_power_state', '-c',
                                    'last_error')
            if node['target_power_state'] is None:
                return node
            if time.monotonic() > deadline:
                self.fail('the power action on %s never ended: %s'
                          % (name, node))
            time.sleep(0.2)


class ValidateTest(RedfishCLITestCase):

    def test_the_bmc_interfaces_pass_and_deploy_waits_for_a_boot_iso(self):
        self.enrol('node-1', '--deploy-interface', 'ramdisk')
        results = self.validation('node-1')
        for interface in ('power', 'management', 'boot', 'bios', 'raid'):
            self.assertEqual((True, None), results[interface], interface)
        passed, reason = results['deploy']
        self.assertFalse(passed, 'deploy validated without a boot_iso')
        self.assertIn('instance_info/boot_iso is missing', reason)

        self.client.run('node', 'set', 'node-1', '--instance-info',
                        'boot_iso=%s' % BOOT_ISO)
        results = self.validation('node-1')
        for interface in ('power', 'management', 'boot', 'deploy'):
            self.assertEqual((True, None), results[interface], interface)

    def test_a_node_enrolled_without_a_deploy_interface_deploys_direct(self):
        # As in Ironic: the agent writes the image, booted from the ISO
        # that driver_info/deploy_iso names.
        created = json.loads(self.enrol('node-1', '-f', 'json').stdout)
        self.assertEqual('direct', created['deploy_interface'])
        passed, reason = self.validation('node-1')['boot']
        self.assertFalse(passed)
        self.assertIn('driver_info/deploy_iso', reason)

    def test_a_wrong_driver_info_field_is_named_by_validate(self):
        # (node, driver_info given, what the reason must say)
        cases = [
            ('no-address', {'redfish_address': None},
             'driver_info/redfish_address is missing'),
            ('unsure-ca', {'redfish_verify_ca': 'maybe'},
             "driver_info/redfish_verify_ca must be true, false or the "
             "path of a CA bundle; 'maybe'"),
        ]
        # An address that is no http(s) URL is refused when given, naming
        # the field (it never reaches validation).
        refused = self.client.run(
            'node', 'create', '--driver', 'redfish', '--name', 'ftp-address',
            '--driver-info', 'redfish_address=ftp://bmc.example',
            check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('driver_info/redfish_address', refused.stderr)
        self.assertIn('is not an http(s) URL', refused.stderr)
        self.assertNotIn('Traceback', refused.stderr)
        for name, driver_info, expected in cases:
            self.enrol(name, **driver_info)
            results = self.validation(name)
            for interface in ('power', 'management', 'boot'):
                passed, reason = results[interface]
                self.assertFalse(passed, '%s %s' % (name, interface))
                self.assertIn(expected, reason, name)
        # A power action is refused at once for the same reason.
        refused = self.client.run('node', 'power', 'on', 'unsure-ca',
                                  check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('driver_info/redfish_verify_ca', refused.stderr)
        self.assertNotIn('Traceback', refused.stderr)
        self.assertEqual('Off', self.emulator.power_state(self.system_id))


class PasswordTest(RedfishCLITestCase):

    NEW_PASSWORD = 'new-bmc-Pa55word-9d2e'

    def assertNoSecretIn(self, result, command):
        self.assertEqual([], lines_showing(
            result.stdout + result.stderr, BMC_PASSWORD, self.NEW_PASSWORD),
            'openstack baremetal %s shows a password' % command)

    def test_the_password_never_shows_in_any_output(self):
        client = self.client
        created = self.enrol('node-1')
        self.assertNoSecretIn(created, 'node create')
        self.assertIn("'redfish_password': '%s'" % MASK, created.stdout)

        table = client.run('node', 'show', 'node-1')
        self.assertNoSecretIn(table, 'node show')
        self.assertIn("'redfish_password': '%s'" % MASK, table.stdout)
        shown = client.run('node', 'show', 'node-1', '-f', 'json')
        self.assertNoSecretIn(shown, 'node show -f json')
        self.assertIn('"redfish_password": "%s"' % MASK, shown.stdout)
        listed = client.run('node', 'list', '--long', '-f', 'json')
        self.assertNoSecretIn(listed, 'node list --long')
        self.assertIn('"redfish_password": "%s"' % MASK, listed.stdout)

        changed = client.run('node', 'set', 'node-1', '--driver-info',
                             'redfish_password=%s' % self.NEW_PASSWORD)
        self.assertNoSecretIn(changed, 'node set')
        shown = client.json('node', 'show', 'node-1', '-c', 'driver_info')
        self.assertEqual(MASK, shown['driver_info']['redfish_password'])
        validated = client.run('node', 'validate', 'node-1')
        self.assertNoSecretIn(validated, 'node validate')

        # A PATCH refused for another of its fields does not echo this one.
        refused = client.run('node', 'set', 'node-1', '--driver-info',
                             'redfish_password=%s' % BMC_PASSWORD,
                             '--power-interface', 'ipmi', check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn("'ipmi'", refused.stderr)
        self.assertNoSecretIn(refused, 'node set (refused)')
        # Nor does the service's own log.
        self.assertEqual([], lines_showing(
            self.service.log(), BMC_PASSWORD, self.NEW_PASSWORD))


class PowerTest(RedfishCLITestCase):

    def test_power_on_and_off_reach_the_bmc_and_show_on_the_node(self):
        self.enrol('node-1')
        self.assertEqual('Off', self.emulator.power_state(self.system_id))
        for command, bmc_state, node_state in (('on', 'On', 'power on'),
                                               ('off', 'Off', 'power off')):
            self.client.run('node', 'power', command, 'node-1')
            node = self.wait_for_power_action('node-1')
            self.assertIsNone(node['last_error'], command)
            self.assertEqual(bmc_state,
                             self.emulator.power_state(self.system_id))
            shown = self.client.run('node', 'show', 'node-1', '-f', 'value',
                                    '-c', 'power_state')
            self.assertEqual(node_state, shown.stdout.strip())

    def test_a_wrong_password_fails_naming_the_bmc_and_changes_nothing(
            self):
        self.enrol('node-1', redfish_password=WRONG_PASSWORD)
        # As in Ironic, the power request is accepted and runs in the
        # conductor; its failure is the node's last_error.
        accepted = self.client.run('node', 'power', 'on', 'node-1')
        node = self.wait_for_power_action('node-1')
        self.assertIn('BMC of node', node['last_error'])
        self.assertIn(': power on failed:', node['last_error'])
        self.assertIn('refused the credentials', node['last_error'])
        self.assertIsNone(node['power_state'])
        shown = self.client.run('node', 'show', 'node-1')
        output = '\n'.join([accepted.stdout, accepted.stderr, shown.stdout,
                            shown.stderr])
        self.assertEqual([], lines_showing(output, 'Traceback',
                                           WRONG_PASSWORD, BMC_PASSWORD))
        self.assertEqual('Off', self.emulator.power_state(self.system_id))
