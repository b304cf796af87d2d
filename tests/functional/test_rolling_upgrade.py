"""A rolling upgrade with real processes: two conductors and an API on one
PostgreSQL database and a real RabbitMQ, one conductor pinned to the
release before deploy steps, then the pin removed.

Each test has its own database (a copy of the migrated template,
:mod:`tests.functional.schema`) on the test process's PostgreSQL server,
and its own virtual host on the process's RabbitMQ broker
(:class:`tests.functional.rabbitmq.VirtualHost`).  The service processes
are forked from the test process's service fork server
(:mod:`tests.functional.service_forkserver`); services that do not depend
on each other start together; the conductor still goes before the API
when the pin is lifted.
"""

from concurrent import futures
import time
import urllib.error
import uuid

import fixtures
import testtools

from ironic_steps.conductor import hash_ring
from ironic_steps import release_mappings
from tests.functional import fixtures as functional
from tests.functional import rabbitmq
from tests.functional import schema
from tests import postgresql

OLD, NEW = 'conductor-old', 'conductor-new'


#: Places per conductor on the ring of services pinned before 0.5 (and of
#: releases before it), and of unpinned ones (the option's default).
PINNED_PARTITIONS, PARTITIONS = 2 ** 5, 2 ** 10


def uuids_owned_by(hosts, owner, count, partitions=PARTITIONS):
    """Node UUIDs the hash ring gives to ``owner``, as services place them
    (unpinned by default)."""
    ring = hash_ring.build_ring(hosts, partitions)
    found = []
    while len(found) < count:
        candidate = str(uuid.uuid4())
        if ring.get_nodes(candidate.encode()) == {owner}:
            found.append(candidate)
    return found


class RollingUpgradeTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        # (tests/unit/conductor/test_rolling_upgrade.py is the in-process
        # variant, for machines without RabbitMQ.)
        rabbitmq.require(self)
        postgresql.require(self)
        self.broker = self.useFixture(rabbitmq.VirtualHost())
        database = schema.migrated_database(postgresql.shared_server())
        self.state_path = self.useFixture(fixtures.TempDir()).path
        self.base = {
            'DEFAULT': {'rpc_transport': 'oslo',
                        'transport_url': self.broker.url},
            'database': {'connection': database},
            'fake': {'agent_delay': -1},
            'conductor': {'node_locked_retry_interval': 0.1,
                          'heartbeat_interval': 1,
                          'hash_ring_reset_interval': 1},
            'oslo_messaging_rabbit': dict(rabbitmq.SERVICE_OPTIONS),
        }
        # Those still running at cleanup stop together.
        self.services = self.useFixture(functional.Services(self.state_path))

    def service(self, command, host, pinned, release='0.1'):
        """A :class:`functional.ServiceProcess` to start."""
        options = {section: dict(values)
                   for section, values in self.base.items()}
        if pinned:
            options['DEFAULT'].update(pin_release_version=release)
        return functional.ServiceProcess(command, options,
                                         state_path=self.state_path,
                                         host=host, forked=True)

    def start(self, command, host, pinned, release='0.1'):
        return self.start_together(
            (command, host, pinned, release))[0]

    def start_together(self, *services):
        """Start (command, host, pinned, release) services at once."""
        return self.services.start_processes(
            *[self.service(*service) for service in services])

    def deploy(self, api, node_uuids):
        for node_uuid in node_uuids:
            api.request('PUT', '/v1/nodes/%s/states/provision' % node_uuid,
                        {'target': 'active'})

    def test_pinned_conductor_deploys_the_old_way_until_the_pin_is_lifted(self):
        old, _, api_service = self.start_together(
            ('ironic-steps-conductor', OLD, True, '0.1'),
            ('ironic-steps-conductor', NEW, False, '0.1'),
            ('ironic-steps-api', 'api', True, '0.1'))
        api = functional.RestClient(api_service.endpoint)
        # A pinned API speaks the old release's newest microversion.
        self.assertEqual('1.43', api.request('GET', '/v1')[1]['version'][
            'version'])

        # The pinned API places nodes as the old release: tooz's ring.
        on_old = uuids_owned_by([OLD, NEW], OLD, 2, PINNED_PARTITIONS)
        on_new = uuids_owned_by([OLD, NEW], NEW, 2, PINNED_PARTITIONS)
        api.enrol_available(on_old + on_new)
        # Pinned, it reads no registration: every live conductor serves
        # what its own configuration enables in the old release.
        self.assertEqual([('fake-hardware', [NEW, OLD])], [
            (driver['name'], driver['hosts'])
            for driver in api.request('GET', '/v1/drivers')[1]['drivers']])

        # Mixed phase: each node deploys the way its conductor is pinned.
        self.deploy(api, on_old + on_new)
        for node_uuid in on_old:
            node = api.wait_for(node_uuid, 'active')
            self.assertNotIn('deploy_steps', node['driver_internal_info'])
            self.assertNotIn('deploy_step', node)   # hidden below 1.44
        for node_uuid in on_new:
            node = api.wait_for(node_uuid, 'wait call-back')
            steps = node['driver_internal_info']['deploy_steps']
            self.assertEqual('write_image', steps[node[
                'driver_internal_info']['deploy_step_index']]['step'])
            # The agent heartbeats; the deploy goes on with its steps.
            api.agent_heartbeat(node_uuid)
            node = api.wait_for(node_uuid, 'active')
            self.assertNotIn('deploy_steps', node['driver_internal_info'])

        # Every service upgraded: the pin is lifted, one by one.
        api = self.unpin(old, api_service)
        self.assertEqual(release_mappings.RELEASE_MAPPING['master']['api'],
                         api.request('GET', '/v1')[1]['version']['version'])

        # Unpinned, each conductor registered what it serves.
        self.assertEqual(
            [('fake-hardware', [NEW, OLD]), ('redfish', [NEW, OLD])],
            [(driver['name'], driver['hosts']) for driver in api.request(
                'GET', '/v1/drivers')[1]['drivers']])
        self.assertEqual(['fake-hardware', 'redfish'], api.request(
            'GET', '/v1/conductors/%s' % OLD)[1]['drivers'])

        # Now both conductors deploy with steps, old-pinned one included.
        later = (uuids_owned_by([OLD, NEW], OLD, 1)
                 + uuids_owned_by([OLD, NEW], NEW, 1))
        api.enrol_available(later)
        self.deploy(api, later)
        for node_uuid in later:
            node = api.wait_for(node_uuid, 'wait call-back')
            self.assertEqual('write_image', node['deploy_step']['step'])
            api.agent_heartbeat(node_uuid)
        for node_uuid in on_old + on_new + later:
            node = api.wait_for(node_uuid, 'active')
            self.assertEqual({}, node['deploy_step'])
            self.assertIsNone(node['last_error'])

    def test_a_template_deploy_begun_unpinned_ends_on_a_pinned_conductor(self):
        # The last step of an upgrade from 0.2: the API and one conductor
        # are unpinned, the other conductor still pinned to 0.2.
        _, new, api_service = self.start_together(
            ('ironic-steps-conductor', OLD, True, '0.2'),
            ('ironic-steps-conductor', NEW, False, '0.1'),
            ('ironic-steps-api', 'api', False, '0.1'))
        api = functional.RestClient(api_service.endpoint)
        node_uuid = uuids_owned_by([OLD, NEW], NEW, 1)[0]
        api.enrol_available([node_uuid])
        raid = {'raid_config': {'logical_disks': [{'size_gb': 10,
                                                   'raid_level': '1'}]}}
        api.request('POST', '/v1/deploy_templates', {
            'name': 'CUSTOM_RAID1', 'steps': [
                {'interface': 'raid', 'step': 'apply_configuration',
                 'priority': 90, 'args': raid}]})
        api.request('PUT', '/v1/nodes/%s/traits/CUSTOM_RAID1' % node_uuid)
        api.request('PATCH', '/v1/nodes/%s' % node_uuid, [
            {'op': 'add', 'path': '/instance_info/traits',
             'value': ['CUSTOM_RAID1']}])
        self.deploy(api, [node_uuid])
        node = api.wait_for(node_uuid, 'wait call-back')
        info = node['driver_internal_info']
        self.assertIn('apply_configuration', [
            step['step'] for step in info['deploy_steps']
            if step['interface'] == 'raid'])
        self.assertEqual(raid['raid_config'], info['fake_raid_config'])
        # The unpinned conductor leaves; the pinned one takes the node and
        # finishes the stored plan when the agent calls back.
        new.stop()
        deadline = time.monotonic() + 30
        while True:
            try:
                api.agent_heartbeat(node_uuid)
                break
            except urllib.error.HTTPError as exc:
                if exc.code != 503 or time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        node = api.wait_for(node_uuid, 'active')
        self.assertIsNone(node['last_error'])
        self.assertEqual({}, node['deploy_step'])

    def upgrading_from(self, release, max_version):
        """One conductor and the API still pinned to ``release``, one
        conductor unpinned: (old conductor, API service, its client); the
        API answers up to ``max_version``."""
        old, _, api_service = self.start_together(
            ('ironic-steps-conductor', OLD, True, release),
            ('ironic-steps-conductor', NEW, False, release),
            ('ironic-steps-api', 'api', True, release))
        api = functional.RestClient(api_service.endpoint)
        self.assertEqual(max_version, api.request('GET', '/v1')[1][
            'version']['version'])
        return old, api_service, api

    def inspected(self, api, node_uuid):
        """Inspect the node through ``api``; the node once it is
        manageable again."""
        api.request('PUT', '/v1/nodes/%s/states/provision' % node_uuid,
                    {'target': 'inspect'})
        deadline = time.monotonic() + 60
        while api.node(node_uuid)['inspection_finished_at'] is None:
            self.assertLess(time.monotonic(), deadline, 'never inspected')
            time.sleep(0.1)
        return api.wait_for(node_uuid, 'manageable')

    def unpin(self, old, api_service):
        """Every service unpinned, the conductor first, then the API: the
        client of the new API."""
        old.stop()
        # The pinned API has nothing to do with the conductor's restart:
        # it stops meanwhile.
        with futures.ThreadPoolExecutor(2) as pool:
            conductor = pool.submit(self.start, 'ironic-steps-conductor',
                                    OLD, pinned=False)
            pool.submit(api_service.stop).result()
            conductor.result()
        return functional.RestClient(self.start(
            'ironic-steps-api', 'api', pinned=False).endpoint)

    def test_nodes_are_inspected_once_the_pin_on_0_10_is_lifted(self):
        # Upgrading from 0.10: one conductor and the API still pinned.
        old, api_service, api = self.upgrading_from('0.10', '1.80')
        # A node of the pinned conductor ...
        node_uuid = uuids_owned_by([OLD, NEW], OLD, 1)[0]
        api.request('POST', '/v1/nodes', {'uuid': node_uuid,
                                          'driver': 'fake-hardware'})
        api.request('PUT', '/v1/nodes/%s/states/provision' % node_uuid,
                    {'target': 'manage'})
        node = api.wait_for(node_uuid, 'manageable')
        # ... gets what 0.10 conductors can load.
        self.assertEqual('no-inspect', node['inspect_interface'])
        self.assertNotIn('shard', node)
        try:
            api.request('PUT', '/v1/nodes/%s/states/provision' % node_uuid,
                        {'target': 'inspect'})
        except urllib.error.HTTPError as exc:
            self.assertEqual(406, exc.code)
            self.assertIn('0.11', exc.read().decode())
        else:
            self.fail('inspect was accepted while pinned to 0.10')

        # Every service unpinned: the node is inspected and its inventory
        # shown.
        api = self.unpin(old, api_service)
        api.request('PATCH', '/v1/nodes/%s' % node_uuid, [
            {'op': 'replace', 'path': '/inspect_interface',
             'value': 'fake'}, {'op': 'add', 'path': '/shard',
                                'value': 'rack-a'}])
        node = self.inspected(api, node_uuid)
        self.assertEqual('rack-a', node['shard'])
        inventory = api.request('GET', '/v1/nodes/%s/inventory'
                                % node_uuid)[1]
        self.assertEqual(node['properties']['cpus'],
                         inventory['inventory']['cpu']['count'])

    def test_runbooks_exist_once_the_pin_on_0_11_is_lifted(self):
        # Upgrading from 0.11: one conductor and the API still pinned.
        old, api_service, api = self.upgrading_from('0.11', '1.83')
        node_uuid = uuids_owned_by([OLD, NEW], OLD, 1)[0]
        api.request('POST', '/v1/nodes', {'uuid': node_uuid,
                                          'driver': 'fake-hardware'})
        api.request('PUT', '/v1/nodes/%s/traits/CUSTOM_RAID' % node_uuid)
        api.request('PUT', '/v1/nodes/%s/states/provision' % node_uuid,
                    {'target': 'manage'})
        api.wait_for(node_uuid, 'manageable')
        runbook = {'name': 'CUSTOM_RAID', 'steps': [
            {'interface': 'bios', 'step': 'factory_reset', 'args': {},
             'order': 0}]}
        for method, path, body, status in (
                ('GET', '/v1/runbooks', None, 404),
                ('POST', '/v1/runbooks', runbook, 405),
                ('PUT', '/v1/nodes/%s/states/provision' % node_uuid,
                 {'target': 'clean', 'runbook': 'CUSTOM_RAID'}, 406)):
            refused = self.assertRaises(urllib.error.HTTPError,
                                        api.request, method, path, body)
            self.assertEqual(status, refused.code, path)

        # Every service unpinned: the runbook is made and the node, whose
        # conductor was the old one and which carries the runbook's name as
        # a trait (API 1.92 to 1.111), cleaned with it.
        api = functional.RestClient(self.unpin(old, api_service).endpoint,
                                    version='1.92')
        api.request('POST', '/v1/runbooks', runbook)
        api.request('PUT', '/v1/nodes/%s/states/provision' % node_uuid,
                    {'target': 'clean', 'runbook': 'CUSTOM_RAID'})
        node = api.wait_for(node_uuid, 'manageable')
        self.assertIsNone(node['last_error'])

    def test_inspection_rules_apply_once_the_pin_on_0_12_is_lifted(self):
        # Upgrading from 0.12: one conductor and the API still pinned.
        old, api_service, api = self.upgrading_from('0.12', '1.94')
        node_uuid = uuids_owned_by([OLD, NEW], OLD, 1)[0]
        api.request('POST', '/v1/nodes', {'uuid': node_uuid,
                                          'driver': 'fake-hardware',
                                          'inspect_interface': 'fake'})
        api.request('PUT', '/v1/nodes/%s/states/provision' % node_uuid,
                    {'target': 'manage'})
        api.wait_for(node_uuid, 'manageable')
        rule = {'actions': [{'op': 'add-trait',
                             'args': {'name': 'CUSTOM_RULED'}}]}
        for method, body, status in (('GET', None, 404),
                                     ('POST', rule, 405)):
            refused = self.assertRaises(urllib.error.HTTPError, api.request,
                                        method, '/v1/inspection_rules', body)
            self.assertEqual(status, refused.code, method)

        # Every service unpinned: the rule is made and the inspection of
        # the node, whose conductor was the old one, applies it.
        api = self.unpin(old, api_service)
        api.request('POST', '/v1/inspection_rules', rule)
        node = self.inspected(api, node_uuid)
        self.assertEqual(['CUSTOM_RULED'], node['traits'])

    def test_firmware_is_updated_once_the_pin_on_0_11_is_lifted(self):
        # Upgrading from 0.11: one conductor and the API still pinned.
        old, api_service, api = self.upgrading_from('0.11', '1.83')
        # A node of the pinned conductor has no firmware interface, and no
        # components are read when it is managed.
        node_uuid = uuids_owned_by([OLD, NEW], OLD, 1)[0]
        api.request('POST', '/v1/nodes', {'uuid': node_uuid,
                                          'driver': 'fake-hardware'})
        api.request('PUT', '/v1/nodes/%s/states/provision' % node_uuid,
                    {'target': 'manage'})
        node = api.wait_for(node_uuid, 'manageable')
        self.assertNotIn('firmware_interface', node)
        update = [{'interface': 'firmware', 'step': 'update', 'args': {
            'settings': [{'component': 'bios',
                          'url': 'http://127.0.0.1:9/bios-2.1.0.bin'}]}}]
        for method, path, body in (
                ('GET', '/v1/nodes/%s/firmware' % node_uuid, None),
                ('PUT', '/v1/nodes/%s/states/provision' % node_uuid,
                 {'target': 'clean', 'clean_steps': update})):
            try:
                api.request(method, path, body)
            except urllib.error.HTTPError as exc:
                self.assertIn(exc.code, (400, 404), path)
            else:
                self.fail('%s %s was served while pinned to 0.11'
                          % (method, path))

        # Every service unpinned: the node still has no firmware interface
        # until one is set; then its firmware is updated and shown.
        api = self.unpin(old, api_service)
        self.assertEqual('no-firmware',
                         api.node(node_uuid)['firmware_interface'])
        api.request('PATCH', '/v1/nodes/%s' % node_uuid, [
            {'op': 'replace', 'path': '/firmware_interface',
             'value': 'fake'}])
        api.request('PUT', '/v1/nodes/%s/states/provision' % node_uuid,
                    {'target': 'clean', 'clean_steps': update})
        node = api.wait_for(node_uuid, 'manageable')
        self.assertIsNone(node['last_error'])
        firmware = api.request('GET', '/v1/nodes/%s/firmware'
                               % node_uuid)[1]['firmware']
        # Read as the cleaning began, then flashed.
        self.assertEqual([('bios', '1.0.0', '2.1.0', '2.1.0'),
                          ('bmc', '1.0.0', '1.0.0', None)],
                         [(c['component'], c['initial_version'],
                           c['current_version'], c['last_version_flashed'])
                          for c in firmware])
