"""Allocations through /v1/allocations and /v1/nodes/{node}/allocation.

The API, a conductor and SQLite, all real: an allocation is processed on
the conductor's worker, so tests wait for it to leave ``allocating``.
"""

import datetime
import time

import ddt
import fixtures
from oslo_utils import timeutils
import sqlalchemy as sa

from ironic_steps.conf import CONF
from ironic_steps.db.sqlalchemy import api as sa_api
from ironic_steps.db.sqlalchemy import models
from ironic_steps import objects
from tests import base as tests_base
from tests.unit.api import base
from tests.unit.api import test_distributed

# Fixed, not generated: ddt puts them in test ids.
UUID = '3f1c0d52-7a8e-4b0c-9d2e-5a6b7c8d9e01'
MISSING_UUID = '9b2d4e6f-1a3c-4e5f-8a7b-0c1d2e3f4a5b'


@ddt.ddt
class AllocationApiTest(base.ApiTestCase):

    def available(self, name, resource_class='gold', **fields):
        """A node in ``available`` (powered off, so its power state is
        known)."""
        return self.make_available(name=name, resource_class=resource_class,
                                   **fields)

    def deploy(self, node):
        self.provision(node.uuid, 'active')
        self.wait_for_state(node, 'wait call-back')
        self.agent_heartbeat(node)
        self.wait_for_state(node, 'active')

    def allocate(self, expected=201, version=base.LATEST, **fields):
        response = self.post('/v1/allocations', json=fields,
                             version=version)
        self.assertEqual(expected, response.status_code, response.data)
        return response.get_json()

    def settled(self, uuid, timeout=10):
        """The allocation once its conductor is done with it."""
        deadline = time.monotonic() + timeout
        while True:
            shown = self.get('/v1/allocations/%s' % uuid).get_json()
            if shown['state'] != 'allocating':
                return shown
            if time.monotonic() > deadline:
                self.fail('allocation %s still allocating' % uuid)
            time.sleep(0.02)

    def test_an_allocation_starts_allocating_then_holds_a_matching_node(self):
        self.available('silver-1', resource_class='silver')
        node = self.available('gold-1')

        created = self.allocate(resource_class='gold')
        self.assertEqual('allocating', created['state'])
        self.assertIsNone(created['node_uuid'])
        self.assertEqual([], created['traits'])
        self.assertEqual({}, created['extra'])

        done = self.settled(created['uuid'])
        self.assertEqual('active', done['state'])
        self.assertEqual(node.uuid, done['node_uuid'])
        self.assertIsNone(done['last_error'])
        shown = self.get('/v1/nodes/%s' % node.uuid).get_json()
        self.assertEqual(created['uuid'], shown['allocation_uuid'])
        self.assertEqual(created['uuid'], shown['instance_uuid'])
        self.assertEqual(created['uuid'], self.get(
            '/v1/nodes/%s/allocation' % node.uuid).get_json()['uuid'])

    def test_one_its_conductor_left_allocating_is_processed_again(self):
        node = self.available('gold-1')
        # Stored by a conductor that died before its worker ran: nobody
        # processes it, and it stays allocating
        left = objects.Allocation(self.context, resource_class='gold',
                                  state='allocating')
        left.create()
        self.manager.housekeeping.resume_unsettled_allocations(self.context)
        self.assertEqual('allocating', self.get(
            '/v1/allocations/%s' % left.uuid).get_json()['state'])
        # Once it has not changed for as long as it takes to judge a
        # conductor dead, the live conductor (the ring's) takes it over
        stored_long_ago = timeutils.utcnow() - datetime.timedelta(
            seconds=CONF.conductor.heartbeat_timeout + 1)
        with sa_api.get_engine().begin() as connection:
            connection.execute(sa.update(models.Allocation.__table__).values(
                created_at=stored_long_ago, updated_at=None))
        logs = self.useFixture(fixtures.FakeLogger())
        self.manager.housekeeping.resume_unsettled_allocations(self.context)
        self.assertEqual(node.uuid, self.settled(left.uuid)['node_uuid'])
        self.assertIn('Allocation %s was left allocating' % left.uuid,
                      logs.output)

    def test_nothing_matching_fails_it_naming_the_resource_class(self):
        self.available('gold-1')
        created = self.allocate(resource_class='platinum')
        done = self.settled(created['uuid'])
        self.assertEqual('error', done['state'])
        self.assertIsNone(done['node_uuid'])
        self.assertIn('platinum', done['last_error'])

    def test_traits_must_all_be_on_the_node(self):
        plain = self.available('plain')
        gpu = self.available('gpu')
        objects.Node.get(self.context, gpu.uuid).set_traits(
            ['CUSTOM_GPU', 'CUSTOM_FAST'])

        done = self.settled(self.allocate(
            resource_class='gold', traits=['CUSTOM_GPU'])['uuid'])
        self.assertEqual(gpu.uuid, done['node_uuid'])
        self.assertEqual(['CUSTOM_GPU'], objects.Node.get(
            self.context, gpu.uuid).instance_info['traits'])

        failed = self.settled(self.allocate(
            resource_class='gold', traits=['CUSTOM_GPU'])['uuid'])
        self.assertEqual('error', failed['state'])
        self.assertIn('CUSTOM_GPU', failed['last_error'])
        self.assertIsNone(self.get('/v1/nodes/%s' % plain.uuid).get_json()[
            'allocation_uuid'])

    def test_candidate_nodes_by_name_limit_the_choice_and_show_as_uuids(
            self):
        self.available('first')
        second = self.available('second')
        created = self.allocate(resource_class='gold',
                                candidate_nodes=['second'])
        self.assertEqual([second.uuid], created['candidate_nodes'])
        self.assertEqual(second.uuid,
                         self.settled(created['uuid'])['node_uuid'])

    def test_an_unknown_candidate_node_is_refused_with_400(self):
        self.assertError(self.post('/v1/allocations', json={
            'resource_class': 'gold', 'candidate_nodes': ['nowhere']}),
            400, 'nowhere')
        self.assertEqual([], self.get('/v1/allocations').get_json()[
            'allocations'])

    def test_an_owner_gets_only_a_node_of_that_owner(self):
        self.available('theirs', owner='project-b')
        mine = self.available('mine', owner='project-a')
        done = self.settled(self.allocate(resource_class='gold',
                                          owner='project-a')['uuid'])
        self.assertEqual(mine.uuid, done['node_uuid'])
        self.assertEqual('project-a', done['owner'])

    def test_owner_is_hidden_below_1_60_and_refused_there(self):
        created = self.allocate(resource_class='gold', owner='project-a')
        old = self.get('/v1/allocations/%s' % created['uuid'],
                       version='1.59').get_json()
        self.assertNotIn('owner', old)
        self.assertError(self.post('/v1/allocations', version='1.59', json={
            'resource_class': 'gold', 'owner': 'x'}), 406, 'owner')
        self.assertError(self.get('/v1/allocations?owner=x',
                                  version='1.59'), 406)

    def test_deleting_it_releases_the_node(self):
        node = self.available('gold-1')
        done = self.settled(self.allocate(resource_class='gold')['uuid'])

        response = self.delete('/v1/allocations/%s' % done['uuid'])
        self.assertEqual(204, response.status_code, response.data)
        shown = self.get('/v1/nodes/%s' % node.uuid).get_json()
        self.assertIsNone(shown['allocation_uuid'])
        self.assertIsNone(shown['instance_uuid'])
        self.assertError(self.get('/v1/allocations/%s' % done['uuid']), 404,
                         done['uuid'])

    def test_a_node_held_by_an_allocation_cannot_be_deleted(self):
        node = self.available('gold-1')
        done = self.settled(self.allocate(resource_class='gold')['uuid'])
        self.provision(node.uuid, 'manage')
        self.wait_for_state(node, 'manageable')

        self.assertError(self.delete('/v1/nodes/%s' % node.uuid), 409,
                         node.uuid, done['uuid'])
        self.assertEqual(204, self.delete(
            '/v1/nodes/%s/allocation' % node.uuid).status_code)
        self.assertEqual(204, self.delete(
            '/v1/nodes/%s' % node.uuid).status_code)

    def test_removing_the_instance_of_a_node_deletes_its_allocation(self):
        node = self.available('gold-1')
        done = self.settled(self.allocate(resource_class='gold')['uuid'])
        response = self.patch('/v1/nodes/gold-1', json=[
            {'op': 'remove', 'path': '/instance_uuid'}])
        self.assertEqual(200, response.status_code, response.data)
        self.assertIsNone(response.get_json()['allocation_uuid'])
        self.assertError(self.get('/v1/allocations/%s' % done['uuid']), 404)
        self.assertIsNone(self.get('/v1/nodes/%s' % node.uuid).get_json()[
            'instance_uuid'])

    def test_a_deployed_node_is_not_released_unless_in_maintenance(self):
        node = self.available('gold-1')
        done = self.settled(self.allocate(resource_class='gold')['uuid'])
        self.deploy(node)

        self.assertError(self.delete('/v1/allocations/%s' % done['uuid']),
                         409, 'active')
        self.put('/v1/nodes/%s/maintenance' % node.uuid, json={})
        self.assertEqual(204, self.delete(
            '/v1/allocations/%s' % done['uuid']).status_code)

    def test_tearing_down_its_node_deletes_it_so_its_name_is_free(self):
        # Given a node deployed through an allocation named for an instance
        node = self.available('gold-1')
        done = self.settled(self.allocate(resource_class='gold',
                                          name='web-1')['uuid'])
        self.deploy(node)

        # When the instance is torn down
        self.assertEqual(202, self.provision(node.uuid, 'deleted')
                         .status_code)
        self.wait_for_state(node, 'available')

        # Then the allocation is gone, the node free, and the name too
        self.assertError(self.get('/v1/allocations/%s' % done['uuid']), 404)
        shown = self.get('/v1/nodes/%s' % node.uuid).get_json()
        self.assertIsNone(shown['allocation_uuid'])
        self.assertIsNone(shown['instance_uuid'])
        again = self.settled(self.allocate(resource_class='gold',
                                           name='web-1')['uuid'])
        self.assertEqual('active', again['state'], again['last_error'])
        self.assertEqual(node.uuid, again['node_uuid'])

    def test_a_deployed_node_is_backfilled_with_its_instance_uuid(self):
        node = self.available('gold-1')
        self.patch('/v1/nodes/%s' % node.uuid, json=[
            {'op': 'add', 'path': '/instance_uuid', 'value': UUID}])
        self.deploy(node)

        created = self.allocate(node='gold-1')
        self.assertEqual(UUID, created['uuid'])
        self.assertEqual('active', created['state'])
        self.assertEqual(node.uuid, created['node_uuid'])
        self.assertEqual('gold', created['resource_class'])

    def test_backfilling_a_node_that_is_not_deployed_fails_saying_why(self):
        self.available('gold-1')
        self.assertError(self.post('/v1/allocations', json={
            'node': 'gold-1'}), 400, 'available, not active')

    def test_backfilling_is_refused_below_1_58(self):
        self.available('gold-1')
        self.assertError(self.post('/v1/allocations', version='1.57', json={
            'node': 'gold-1', 'resource_class': 'gold'}), 400, '1.58')

    def test_a_resource_class_is_needed_unless_backfilling(self):
        self.assertError(self.post('/v1/allocations', json={}), 400,
                         'resource_class')

    def test_name_and_extra_change_with_a_patch_from_1_57(self):
        created = self.allocate(resource_class='gold')
        self.assertEqual(405, self.patch(
            '/v1/allocations/%s' % created['uuid'], version='1.56',
            json=[{'op': 'add', 'path': '/name', 'value': 'a'}]).status_code)

        response = self.patch('/v1/allocations/%s' % created['uuid'], json=[
            {'op': 'add', 'path': '/name', 'value': 'web-1'},
            {'op': 'add', 'path': '/extra/ticket', 'value': 42}])
        self.assertEqual(200, response.status_code, response.data)
        shown = self.get('/v1/allocations/web-1').get_json()
        self.assertEqual({'ticket': 42}, shown['extra'])
        self.assertError(self.patch(
            '/v1/allocations/web-1',
            json=[{'op': 'replace', 'path': '/resource_class',
                   'value': 'x'}]), 400, 'resource_class')

    def test_a_name_is_unique(self):
        self.allocate(resource_class='gold', name='web-1')
        self.assertError(self.post('/v1/allocations', json={
            'resource_class': 'gold', 'name': 'web-1'}), 409, 'web-1')

    def test_the_list_filters_by_state_resource_class_and_node(self):
        node = self.available('gold-1')
        held = self.settled(self.allocate(resource_class='gold')['uuid'])
        failed = self.settled(self.allocate(resource_class='iron')['uuid'])

        def listed(query):
            response = self.get('/v1/allocations' + query)
            self.assertEqual(200, response.status_code, response.data)
            return [a['uuid'] for a in response.get_json()['allocations']]

        self.assertEqual([held['uuid'], failed['uuid']], listed(''))
        self.assertEqual([failed['uuid']], listed('?state=error'))
        self.assertEqual([failed['uuid']], listed('?resource_class=iron'))
        self.assertEqual([held['uuid']], listed('?node=gold-1'))
        self.assertEqual([held['uuid']], listed('?node=%s' % node.uuid))
        self.assertEqual([failed['uuid']],
                         listed('?sort_dir=desc&limit=1'))
        fields = self.get('/v1/allocations?fields=uuid').get_json()
        self.assertEqual({'uuid', 'links'},
                         set(fields['allocations'][0]))
        self.assertError(self.get('/v1/allocations?state=nope'), 400,
                         'nope')
        self.assertError(self.get('/v1/allocations?sort_key=traits'), 400,
                         'traits')

    def test_an_unknown_allocation_is_404_naming_it(self):
        self.assertError(self.get('/v1/allocations/%s' % MISSING_UUID), 404,
                         MISSING_UUID)
        self.assertError(self.delete('/v1/allocations/%s' % MISSING_UUID),
                         404, MISSING_UUID)

    def test_a_node_without_an_allocation_has_none_to_show(self):
        node = self.available('gold-1')
        self.assertError(self.get('/v1/nodes/%s/allocation' % node.uuid),
                         404, node.uuid)
        self.assertIsNone(self.get('/v1/nodes/%s' % node.uuid).get_json()[
            'allocation_uuid'])

    @ddt.data('/v1/allocations', '/v1/allocations/%s' % UUID)
    def test_below_1_52_get_is_404_and_writes_405(self, url):
        self.assertEqual(404, self.get(url, version='1.51').status_code)
        self.assertEqual(405, self.request(
            'POST' if url == '/v1/allocations' else 'DELETE', url,
            version='1.51', json={}).status_code)

    @ddt.data(('GET', '/v1/allocations'), ('POST', '/v1/allocations'),
              ('GET', '/v1/allocations/%s' % UUID),
              ('DELETE', '/v1/allocations/%s' % UUID),
              ('GET', '/v1/nodes/gold-1/allocation'))
    @ddt.unpack
    def test_pinned_to_0_5_allocations_are_unknown_paths(self, method, url):
        self.available('gold-1')
        self.config(pin_release_version='0.5')
        self.make_client()
        self.assertEqual(404, self.request(method, url,
                                           json={'resource_class': 'gold'}
                                           if method == 'POST' else None
                                           ).status_code)
        self.assertEqual([], objects.Allocation.list(self.context))
        shown = self.get('/v1/nodes/gold-1').get_json()
        self.assertIsNone(shown['allocation_uuid'])


class AllocationOverMessagingTest(test_distributed.TwoConductorsOverMessaging,
                                  tests_base.TestCase):
    """The allocation and the node's boot device travel as RPC 1.3 calls
    to the node's conductor."""

    settled = AllocationApiTest.settled

    def test_an_allocation_is_processed_and_deleted_through_a_conductor(
            self):
        node = self.api_create(name='gold-1', resource_class='gold')
        for target, state in (('manage', 'manageable'),
                              ('provide', 'available')):
            self.provision('gold-1', target)
            self.wait_for_state(objects.Node.get(self.context, node['uuid']),
                                state)
        created = self.post('/v1/allocations',
                            json={'resource_class': 'gold'}).get_json()
        self.assertEqual(node['uuid'],
                         self.settled(created['uuid'])['node_uuid'])
        self.assertEqual(204, self.put(
            '/v1/nodes/gold-1/management/boot_device',
            json={'boot_device': 'disk'}).status_code)
        self.assertEqual('disk', self.get(
            '/v1/nodes/gold-1/management/boot_device').get_json()[
                'boot_device'])
        self.assertEqual(204, self.delete(
            '/v1/allocations/%s' % created['uuid']).status_code)
        self.assertIsNone(self.get('/v1/nodes/gold-1').get_json()[
            'instance_uuid'])
