"""Runbooks through /v1/runbooks (API 1.92) and their traits (1.112)."""

import ddt

from ironic_steps.common import states
from ironic_steps import objects
from tests.unit.api import base

# Fixed, not generated: ddt puts them in test ids.
UUID = '3f0b6c1e-2d4a-4b8e-9c11-7a5e2d9f0b31'

BIOS = {'interface': 'bios', 'step': 'apply_configuration',
        'args': {'settings': [{'name': 'LogicalProc', 'value': 'Enabled'}]},
        'order': 1}
RAID = {'interface': 'raid', 'step': 'delete_configuration', 'args': {},
        'order': 0}
RUNBOOK = {'name': 'CUSTOM_FIRMWARE_RESET', 'steps': [BIOS, RAID],
           'extra': {'team': 'ops'}}
V92, V112 = '1.92', '1.112'


def body(**changes):
    """A runbook create body: RUNBOOK with ``changes`` (None drops)."""
    return base.changed(RUNBOOK, **changes)


class RunbookApiTestCase(base.AheadOfTheLadderTestCase):

    def request(self, method, path, version=V112, **kwargs):
        return super().request(method, path, version=version, **kwargs)

    def create_runbook(self, version=V112, **changes):
        response = self.post('/v1/runbooks', json=body(**changes),
                             version=version)
        self.assertEqual(201, response.status_code, response.data)
        return response.get_json()

    def stored(self):
        """Every stored runbook, as the object layer reads it."""
        return [r.obj_to_primitive()['ironic_steps_object.data']
                for r in objects.Runbook.list(self.context)]


@ddt.ddt
class CreateAndShowTest(RunbookApiTestCase):

    def test_a_runbook_is_created_201_with_its_location_and_fields(self):
        response = self.post('/v1/runbooks', json=body(
            uuid=UUID, description='Reset BIOS, drop RAID'), version=V112)
        self.assertEqual(201, response.status_code, response.data)
        self.assertEqual('http://localhost/v1/runbooks/%s' % UUID,
                         response.headers['Location'])
        created = response.get_json()
        self.assertEqual({'uuid', 'name', 'description', 'steps',
                          'disable_ramdisk', 'public', 'owner', 'extra',
                          'traits', 'created_at', 'updated_at', 'links'},
                         set(created))
        self.assertEqual('CUSTOM_FIRMWARE_RESET', created['name'])
        self.assertEqual([BIOS, RAID], created['steps'])
        self.assertEqual('Reset BIOS, drop RAID', created['description'])
        self.assertEqual([], created['traits'])
        self.assertIs(False, created['public'])
        self.assertIs(False, created['disable_ramdisk'])
        self.assertIsNone(created['owner'])
        shown = self.get('/v1/runbooks/%s' % UUID, version=V112).get_json()
        self.assertEqual(created, shown)
        by_name = self.get('/v1/runbooks/CUSTOM_FIRMWARE_RESET',
                           version=V112).get_json()
        self.assertEqual(created, by_name)

    def test_at_1_92_there_is_no_description_nor_traits(self):
        created = self.create_runbook(version=V92)
        self.assertNotIn('description', created)
        self.assertNotIn('traits', created)
        response = self.post('/v1/runbooks', json=body(
            name='CUSTOM_OTHER', description='x'), version=V92)
        self.assertError(response, 406, 'description', '1.112')
        self.assertEqual(1, len(self.stored()))

    def test_below_1_112_a_name_is_a_trait_and_from_it_any_plain_name(self):
        response = self.post('/v1/runbooks', json=body(name='bios-reset'),
                             version=V92)
        self.assertError(response, 400, 'name', 'bios-reset', '1.112')
        self.assertEqual([], self.stored())
        created = self.create_runbook(name='bios-reset')
        self.assertEqual('bios-reset', created['name'])
        response = self.post('/v1/runbooks', json=body(name='a/b'),
                             version=V112)
        self.assertError(response, 400, 'name')

    def test_an_order_given_as_digits_is_stored_as_an_integer(self):
        created = self.create_runbook(steps=[dict(BIOS, order='7')])
        self.assertEqual(7, created['steps'][0]['order'])

    @ddt.data(
        ({'steps': []}, 'steps'),
        ({'steps': [dict(BIOS, priority=1)]}, 'priority'),
        ({'steps': [{'interface': 'bios', 'step': 'x', 'args': {}}]},
         'order'),
        ({'steps': [dict(BIOS, interface='boot')]}, 'boot'),
        ({'steps': [dict(BIOS, order=-1)]}, 'order'),
        ({'steps': [BIOS, dict(BIOS, order=5)]}, 'bios.apply_configuration'),
        ({'steps': [dict(BIOS, order=2 ** 31)]}, 'order'),
        ({'name': None}, 'name'),
        ({'name': UUID}, 'UUID'),
        ({'steps': None}, 'steps'),
        ({'traits': ['CUSTOM_X']}, 'traits'),
        ({'owner': 'p1', 'public': True}, 'public'),
    )
    @ddt.unpack
    def test_a_bad_runbook_is_400_naming_the_problem_and_nothing_stored(
            self, changes, fragment):
        response = self.post('/v1/runbooks', json=body(**changes),
                             version=V112)
        self.assertError(response, 400, fragment)
        self.assertEqual([], self.stored())

    def test_a_name_or_uuid_taken_is_409(self):
        self.create_runbook(uuid=UUID)
        self.assertError(self.post('/v1/runbooks', json=body(),
                                   version=V112), 409, 'CUSTOM_FIRMWARE_RESET')
        self.assertError(self.post('/v1/runbooks', json=body(
            name='CUSTOM_OTHER', uuid=UUID), version=V112), 409, UUID)
        self.assertEqual(1, len(self.stored()))

    def test_secrets_in_step_args_are_masked(self):
        step = dict(BIOS, args={'password': 'hunter2', 'user': 'admin'})
        created = self.create_runbook(steps=[step])
        self.assertNotIn('hunter2', str(created))
        shown = self.get('/v1/runbooks/%s' % created['uuid']).data
        self.assertNotIn(b'hunter2', shown)
        self.assertEqual('hunter2',
                         self.stored()[0]['steps'][0]['args']['password'])

    @ddt.data('1.91', '1.69')
    def test_before_1_92_runbooks_do_not_exist(self, version):
        self.create_runbook()
        self.assertError(self.get('/v1/runbooks', version=version), 404)
        self.assertError(self.get('/v1/runbooks/CUSTOM_FIRMWARE_RESET',
                                  version=version), 404)
        self.assertError(self.post('/v1/runbooks', json=body(name='CUSTOM_B'),
                                   version=version), 405)
        self.assertError(self.delete('/v1/runbooks/CUSTOM_FIRMWARE_RESET',
                                     version=version), 405)
        self.assertEqual(1, len(self.stored()))

    def test_an_unknown_runbook_is_404_naming_it(self):
        self.assertError(self.get('/v1/runbooks/CUSTOM_NONE', version=V92),
                         404, 'CUSTOM_NONE')


class ListTest(RunbookApiTestCase):

    def setUp(self):
        super().setUp()
        for index in range(3):
            self.create_runbook(name='CUSTOM_RB_%d' % index)

    def test_a_list_shows_uuid_and_name_and_pages_with_a_next_link(self):
        response = self.get('/v1/runbooks?limit=2', version=V112)
        self.assertEqual(200, response.status_code, response.data)
        listed = response.get_json()
        self.assertEqual(['CUSTOM_RB_0', 'CUSTOM_RB_1'],
                         [r['name'] for r in listed['runbooks']])
        self.assertEqual({'uuid', 'name', 'links'},
                         set(listed['runbooks'][0]))
        self.assertIn('marker=%s' % listed['runbooks'][1]['uuid'],
                      listed['next'])
        rest = self.get(listed['next'].replace('http://localhost', ''),
                        version=V112).get_json()
        self.assertEqual(['CUSTOM_RB_2'],
                         [r['name'] for r in rest['runbooks']])

    def test_detail_and_fields_choose_what_a_list_shows(self):
        detailed = self.get('/v1/runbooks?detail=true',
                            version=V112).get_json()['runbooks']
        self.assertEqual([BIOS, RAID], detailed[0]['steps'])
        also = self.get('/v1/runbooks/detail', version=V112).get_json()
        self.assertEqual(detailed, also['runbooks'])
        some = self.get('/v1/runbooks?fields=name,traits',
                        version=V112).get_json()['runbooks']
        self.assertEqual({'name', 'traits', 'links'}, set(some[0]))
        self.assertError(self.get('/v1/runbooks?fields=traits',
                                  version=V92), 406, 'traits')
        self.assertError(self.get('/v1/runbooks?sort_key=steps',
                                  version=V92), 400, 'steps')


@ddt.ddt
class UpdateAndDeleteTest(RunbookApiTestCase):

    def test_a_json_patch_changes_the_runbook(self):
        created = self.create_runbook()
        response = self.patch('/v1/runbooks/%s' % created['uuid'], json=[
            {'op': 'replace', 'path': '/steps/0/args/settings/0/value',
             'value': 'Disabled'},
            {'op': 'add', 'path': '/description', 'value': 'Disable HT'},
            {'op': 'remove', 'path': '/extra/team'},
            {'op': 'replace', 'path': '/disable_ramdisk', 'value': True}],
            version=V112)
        self.assertEqual(200, response.status_code, response.data)
        patched = response.get_json()
        self.assertEqual('Disabled',
                         patched['steps'][0]['args']['settings'][0]['value'])
        self.assertEqual('Disable HT', patched['description'])
        self.assertEqual({}, patched['extra'])
        self.assertIs(True, patched['disable_ramdisk'])
        self.assertIsNotNone(patched['updated_at'])
        self.assertEqual(patched, self.get(
            '/v1/runbooks/%s' % created['uuid']).get_json())

    @ddt.data(
        ([{'op': 'replace', 'path': '/steps', 'value': []}], 'steps'),
        ([{'op': 'add', 'path': '/steps/-', 'value': BIOS}],
         'bios.apply_configuration'),
        ([{'op': 'replace', 'path': '/uuid', 'value': UUID}], 'uuid'),
        ([{'op': 'add', 'path': '/traits', 'value': ['CUSTOM_X']}],
         'traits'),
        ([{'op': 'remove', 'path': '/name'}], 'name'),
        ([{'op': 'replace', 'path': '/name', 'value': 'not-a-trait'}],
         'not-a-trait'),
    )
    @ddt.unpack
    def test_a_bad_patch_is_4xx_and_changes_nothing(self, patch, fragment):
        created = self.create_runbook(version=V92)
        response = self.patch('/v1/runbooks/CUSTOM_FIRMWARE_RESET',
                              json=patch, version=V92)
        self.assertIn(response.status_code, (400, 406), response.data)
        self.assertIn(fragment, self.fault(response)['faultstring'])
        self.assertEqual(created, self.get(
            '/v1/runbooks/CUSTOM_FIRMWARE_RESET', version=V92).get_json())

    def test_making_a_runbook_public_drops_its_owner_and_back(self):
        created = self.create_runbook(owner='project-a')
        path = '/v1/runbooks/%s' % created['uuid']
        public = self.patch(path, json=[
            {'op': 'replace', 'path': '/public', 'value': True}]).get_json()
        self.assertEqual((True, None), (public['public'], public['owner']))
        response = self.patch(path, json=[
            {'op': 'replace', 'path': '/owner', 'value': 'project-b'}])
        self.assertError(response, 400, 'public', 'owner')
        private = self.patch(path, json=[
            {'op': 'replace', 'path': '/public', 'value': False},
            {'op': 'replace', 'path': '/owner', 'value': 'project-b'}])
        self.assertEqual((False, 'project-b'), (
            private.get_json()['public'], private.get_json()['owner']))

    def test_changing_owner_or_public_needs_its_own_rule(self):
        created = self.create_runbook()
        self.use_policy({'baremetal:runbook:update:public': '!'})
        path = '/v1/runbooks/%s' % created['uuid']
        self.assertError(self.patch(path, json=[
            {'op': 'replace', 'path': '/public', 'value': True}]), 403,
            'baremetal:runbook:update:public')
        self.assertEqual(created, self.get(path).get_json())
        owned = self.patch(path, json=[
            {'op': 'replace', 'path': '/owner', 'value': 'project-a'}])
        self.assertEqual('project-a', owned.get_json()['owner'])

    def test_a_runbook_is_deleted_204_and_gone(self):
        created = self.create_runbook()
        self.create_runbook(name='CUSTOM_KEEP')
        response = self.delete('/v1/runbooks/%s' % created['uuid'].upper())
        self.assertEqual(204, response.status_code, response.data)
        self.assertEqual(['CUSTOM_KEEP'], [r['name'] for r in self.stored()])
        self.assertError(self.delete('/v1/runbooks/%s' % created['uuid']),
                         404)


class TraitsTest(RunbookApiTestCase):

    def traits(self, ident='CUSTOM_FIRMWARE_RESET', version=V112):
        response = self.get('/v1/runbooks/%s/traits' % ident,
                            version=version)
        self.assertEqual(200, response.status_code, response.data)
        return response.get_json()['traits']

    def test_traits_are_replaced_added_and_removed(self):
        self.create_runbook()
        path = '/v1/runbooks/CUSTOM_FIRMWARE_RESET/traits'
        response = self.put(path, json={'traits': ['CUSTOM_B', 'CUSTOM_A']})
        self.assertEqual(204, response.status_code, response.data)
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], self.traits())
        response = self.put(path + '/CUSTOM_C')
        self.assertEqual(204, response.status_code, response.data)
        self.assertTrue(response.headers['Location'].endswith(
            '/traits/CUSTOM_C'))
        self.assertEqual(204, self.put(path + '/CUSTOM_C').status_code)
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'],
                         self.traits())
        self.assertEqual(204, self.delete(path + '/CUSTOM_A').status_code)
        # Removing one it lacks is no matter, as in Ironic.
        self.assertEqual(204, self.delete(path + '/CUSTOM_Z').status_code)
        self.assertEqual(['CUSTOM_B', 'CUSTOM_C'], self.traits())
        shown = self.get('/v1/runbooks/CUSTOM_FIRMWARE_RESET').get_json()
        self.assertEqual(['CUSTOM_B', 'CUSTOM_C'], shown['traits'])
        self.assertEqual(204, self.delete(path).status_code)
        self.assertEqual([], self.traits())

    def test_a_bad_trait_is_400_and_changes_nothing(self):
        self.create_runbook()
        path = '/v1/runbooks/CUSTOM_FIRMWARE_RESET/traits'
        self.put(path, json={'traits': ['CUSTOM_A']})
        self.assertError(self.put(path, json={'traits': ['lower']}), 400,
                         'lower')
        self.assertError(self.put(path + '/lower'), 400, 'lower')
        self.assertError(self.put(path, json={'trait': ['CUSTOM_B']}), 400,
                         'PUT /v1/runbooks/{runbook}/traits')
        self.assertError(self.put(path + '/CUSTOM_B',
                                  json={'traits': ['CUSTOM_C']}), 400,
                         'no body')
        self.assertEqual(['CUSTOM_A'], self.traits())

    def test_before_1_112_the_traits_endpoints_do_not_exist(self):
        self.create_runbook(version=V92)
        path = '/v1/runbooks/CUSTOM_FIRMWARE_RESET/traits'
        self.assertError(self.get(path, version=V92), 404)
        self.assertError(self.put(path + '/CUSTOM_A', version='1.111'), 404)
        self.assertEqual([], self.traits())

    def test_a_runbook_s_traits_go_with_it(self):
        created = self.create_runbook()
        self.put('/v1/runbooks/%s/traits/CUSTOM_A' % created['uuid'])
        self.delete('/v1/runbooks/%s' % created['uuid'])
        self.create_runbook()
        self.assertEqual([], self.traits())


class PinnedTo011Test(RunbookApiTestCase):
    """While the services are pinned to release 0.11, runbooks are not."""

    def test_the_endpoints_and_the_clean_runbook_are_absent(self):
        self.config(pin_release_version='0.11')
        self.make_client()
        self.assertError(self.get('/v1/runbooks', version=V92), 406, '1.83')
        self.assertError(self.get('/v1/runbooks', version='1.83'), 404)
        self.assertError(self.post('/v1/runbooks', json=body(),
                                   version='1.83'), 405)
        node = self.create_node(name='node-1')
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        node = self.wait_for_state(node, states.MANAGEABLE)
        response = self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'clean', 'runbook': 'CUSTOM_FIRMWARE_RESET'},
            version='1.83')
        self.assertError(response, 406, 'runbook', '1.92')
        response = self.post('/v1/nodes/node-1/x-steps/preview', json={
            'flow': 'clean', 'runbook': 'CUSTOM_FIRMWARE_RESET'},
            version='1.83')
        self.assertError(response, 406, 'Runbooks', '0.12')
        self.assertNodeUnchanged(node)
        self.assertEqual([], objects.Runbook.list(self.context))
