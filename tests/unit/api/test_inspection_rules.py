"""Inspection rules through /v1/inspection_rules (API 1.96)."""

import ddt

from ironic_steps import objects
from tests.unit.api import base

# Fixed, not generated: ddt puts them in test ids.
UUID = '6a1f2b3c-4d5e-4f60-8a71-92b3c4d5e6f7'
MISSING = '0b9c8d7e-6f5a-4b3c-9d2e-1f0a9b8c7d6e'
V96 = '1.96'
CONDITION = {'op': 'gt', 'args': {'values': ['{inventory[cpu][count]}',
                                             '2']}}
ACTION = {'op': 'add-trait', 'args': {'name': 'CUSTOM_BIG'}}
RULE = {'description': 'Big machines', 'priority': 10,
        'conditions': [CONDITION], 'actions': [ACTION]}


def body(**changes):
    """A rule create body: RULE with ``changes`` (None drops)."""
    return base.changed(RULE, **changes)


class RuleApiTestCase(base.ApiTestCase):

    def request(self, method, path, version=V96, **kwargs):
        return super().request(method, path, version=version, **kwargs)

    def create_rule(self, **changes):
        return self.created('/v1/inspection_rules', body(**changes))

    def stored(self):
        return self.stored_records(objects.InspectionRule)


class CreateAndShowTest(RuleApiTestCase):

    def test_a_rule_is_created_201_with_its_location_and_fields(self):
        response = self.post('/v1/inspection_rules', json=body(uuid=UUID))
        self.assertEqual(201, response.status_code, response.data)
        self.assertEqual('http://localhost/v1/inspection_rules/%s' % UUID,
                         response.headers['Location'])
        created = response.get_json()
        self.assertEqual({'uuid', 'description', 'priority', 'sensitive',
                          'phase', 'conditions', 'actions', 'created_at',
                          'updated_at', 'links'}, set(created))
        self.assertEqual([CONDITION], created['conditions'])
        self.assertEqual([ACTION], created['actions'])
        self.assertEqual((10, 'main', False, 'Big machines'), (
            created['priority'], created['phase'], created['sensitive'],
            created['description']))
        shown = self.get('/v1/inspection_rules/%s' % UUID.upper())
        self.assertEqual(created, shown.get_json())

    def test_what_a_rule_leaves_out_is_ironics_default(self):
        created = self.create_rule(description=None, priority=None,
                                   conditions=None)
        self.assertEqual((0, 'main', False, [], None), (
            created['priority'], created['phase'], created['sensitive'],
            created['conditions'], created['description']))

    def test_a_sensitive_rule_shows_no_conditions_nor_actions(self):
        created = self.create_rule(sensitive=True)
        self.assertIsNone(created['conditions'])
        self.assertIsNone(created['actions'])
        shown = self.get('/v1/inspection_rules/%s' % created['uuid'])
        self.assertIsNone(shown.get_json()['actions'])
        listed = self.get('/v1/inspection_rules?detail=true').get_json()
        self.assertIsNone(listed['inspection_rules'][0]['conditions'])
        # Still stored, and applied: only hidden.
        self.assertEqual([ACTION], self.stored()[0]['actions'])

    def test_secrets_in_args_are_masked_when_shown(self):
        action = {'op': 'set-attribute', 'args': {
            'path': 'driver_info/redfish_password', 'value': 'hunter2'}}
        listed = {'op': 'set-attribute',
                  'args': ['driver_info.ipmi_password', 'hunter3']}
        created = self.create_rule(actions=[action, listed])
        self.assertNotIn('hunter2', str(created))
        self.assertNotIn('hunter3', str(created))
        self.assertEqual('hunter2',
                         self.stored()[0]['actions'][0]['args']['value'])

    def test_fields_selects_what_is_shown(self):
        created = self.create_rule()
        shown = self.get('/v1/inspection_rules/%s?fields=uuid,priority'
                         % created['uuid']).get_json()
        self.assertEqual({'uuid', 'priority', 'links'}, set(shown))
        self.assertError(self.get('/v1/inspection_rules/%s?fields=name'
                                  % created['uuid']), 400, 'name')

    def test_an_unknown_rule_is_404_and_a_non_uuid_400(self):
        self.assertError(self.get('/v1/inspection_rules/%s' % MISSING), 404,
                         MISSING)
        self.assertError(self.get('/v1/inspection_rules/big'), 400,
                         "'big' is not a UUID")

    def test_a_uuid_taken_is_409(self):
        self.create_rule(uuid=UUID)
        response = self.post('/v1/inspection_rules', json=body(uuid=UUID))
        self.assertError(response, 409, UUID)


@ddt.ddt
class ValidationTest(RuleApiTestCase):

    @ddt.data(
        ({'actions': None}, "needs 'actions'"),
        ({'actions': []}, 'actions'),
        ({'actions': [{'op': 'explode', 'args': {}}]},
         "unsupported action 'explode'"),
        ({'actions': [{'op': 'add-trait', 'args': {}}]},
         'missing required argument(s): name'),
        ({'actions': [{'op': 'add-trait',
                       'args': {'name': 'CUSTOM_A', 'colour': 1}}]},
         'unexpected argument(s): colour'),
        ({'actions': [{'op': 'add-trait'}]}, 'args'),
        ({'conditions': [{'op': 'bigger', 'args': {'values': []}}]},
         "unsupported condition 'bigger'"),
        ({'conditions': [{'op': '!!eq', 'args': {'values': []}}]},
         'one "!" at most'),
        ({'conditions': [dict(CONDITION, multiple='most')]},
         'multiple must be one of any, all, first, last'),
        ({'conditions': [{'op': 'eq', 'args': 'x'}]}, 'conditions'),
        ({'priority': 10000}, 'priority'),
        ({'priority': -1}, 'priority'),
        ({'phase': 'early'}, 'phase'),
        ({'description': 'x' * 256}, 'description'),
        ({'name': 'rule'}, 'name'),
        ({'uuid': 'not-a-uuid'}, 'uuid'),
    )
    @ddt.unpack
    def test_a_bad_rule_is_refused_400_naming_the_problem(self, changes,
                                                          fragment):
        response = self.post('/v1/inspection_rules', json=body(**changes))
        self.assertError(response, 400, fragment)
        self.assertEqual([], self.stored())

    def test_args_may_be_a_list_in_parameter_order(self):
        created = self.create_rule(actions=[
            {'op': 'set-attribute', 'args': ['extra/rack', 'R1']}])
        self.assertEqual(['extra/rack', 'R1'],
                         created['actions'][0]['args'])


class ListTest(RuleApiTestCase):

    def test_a_list_shows_ironics_fields_by_priority_and_phase(self):
        created = self.create_rule()
        listed = self.get('/v1/inspection_rules').get_json()
        self.assertEqual({'uuid', 'priority', 'phase', 'description',
                          'links'}, set(listed['inspection_rules'][0]))
        self.assertEqual(created['uuid'],
                         listed['inspection_rules'][0]['uuid'])
        detail = self.get('/v1/inspection_rules/detail').get_json()
        self.assertEqual([ACTION], detail['inspection_rules'][0]['actions'])

    def test_a_list_pages_sorts_and_filters_by_phase(self):
        low = self.create_rule(priority=1)
        high = self.create_rule(priority=50)
        listed = self.get('/v1/inspection_rules?sort_key=priority&'
                          'sort_dir=desc&limit=1').get_json()
        self.assertEqual([high['uuid']], [r['uuid'] for r in
                                          listed['inspection_rules']])
        self.assertIn('marker=%s' % high['uuid'], listed['next'])
        main = self.get('/v1/inspection_rules?phase=main').get_json()
        self.assertEqual({low['uuid'], high['uuid']},
                         {r['uuid'] for r in main['inspection_rules']})
        self.assertError(self.get('/v1/inspection_rules?phase=early'), 400,
                         'early')
        self.assertError(self.get('/v1/inspection_rules?sort_key=actions'),
                         400, 'actions')
        self.assertError(self.get('/v1/inspection_rules?colour=red'), 400,
                         'colour')


class UpdateAndDeleteTest(RuleApiTestCase):

    def test_a_json_patch_changes_the_rule(self):
        created = self.create_rule()
        response = self.patch(
            '/v1/inspection_rules/%s' % created['uuid'], json=[
                {'op': 'replace', 'path': '/priority', 'value': 99},
                {'op': 'add', 'path': '/actions/-', 'value': {
                    'op': 'set-capability',
                    'args': {'name': 'big', 'value': 'yes'}}},
                {'op': 'remove', 'path': '/description'}])
        self.assertEqual(200, response.status_code, response.data)
        patched = response.get_json()
        self.assertEqual(99, patched['priority'])
        self.assertEqual(2, len(patched['actions']))
        self.assertIsNone(patched['description'])
        self.assertEqual(99, self.stored()[0]['priority'])

    def test_a_patch_to_a_bad_rule_is_refused_and_nothing_changes(self):
        created = self.create_rule()
        before = self.stored()
        for patch, fragment in (
                ([{'op': 'replace', 'path': '/actions', 'value': []}],
                 'actions'),
                ([{'op': 'replace', 'path': '/actions/0/op',
                   'value': 'explode'}], 'explode'),
                ([{'op': 'replace', 'path': '/uuid', 'value': MISSING}],
                 'uuid'),
                ([{'op': 'replace', 'path': '/priority', 'value': 'high'}],
                 'priority')):
            response = self.patch('/v1/inspection_rules/%s'
                                  % created['uuid'], json=patch)
            self.assertError(response, 400, fragment)
        self.assertEqual(before, self.stored())

    def test_a_patch_never_reads_a_secret_or_a_sensitive_rule(self):
        secret = {'op': 'set-attribute', 'args': {
            'path': 'driver_info/redfish_password', 'value': 'hunter2'}}
        listed = {'op': 'set-attribute',
                  'args': ['driver_info/redfish_password', 'hunter2']}
        plain = self.create_rule(actions=[secret, listed])
        hidden = self.create_rule(sensitive=True)
        before = self.stored()
        for rule, op, source in (
                (plain, 'copy', '/actions/0/args/value'),
                (plain, 'move', '/actions/1/args/1'),
                (plain, 'copy', '/actions/0'),
                (hidden, 'copy', '/actions/0/args/name'),
                (hidden, 'copy', '/conditions')):
            response = self.patch(
                '/v1/inspection_rules/%s' % rule['uuid'], json=[
                    {'op': op, 'from': source, 'path': '/description'}])
            self.assertError(response, 400, source, 'never read')
        response = self.patch(
            '/v1/inspection_rules/%s' % plain['uuid'], json=[
                {'op': 'test', 'path': '/actions/0/args/value',
                 'value': 'hunter2'}])
        self.assertError(response, 400, 'never read')
        self.assertEqual(before, self.stored())
        # What is shown may be read: the path is no secret.
        response = self.patch(
            '/v1/inspection_rules/%s' % plain['uuid'], json=[
                {'op': 'copy', 'from': '/actions/0/args/path',
                 'path': '/description'}])
        self.assertEqual('driver_info/redfish_password',
                         response.get_json()['description'])

    def test_a_sensitive_rule_stays_sensitive(self):
        created = self.create_rule(sensitive=True)
        response = self.patch('/v1/inspection_rules/%s' % created['uuid'],
                              json=[{'op': 'replace', 'path': '/sensitive',
                                     'value': False}])
        self.assertError(response, 400, 'sensitive')
        self.assertTrue(self.stored()[0]['sensitive'])

    def test_a_rule_is_deleted_204(self):
        created = self.create_rule()
        response = self.delete('/v1/inspection_rules/%s' % created['uuid'])
        self.assertEqual(204, response.status_code, response.data)
        self.assertEqual([], self.stored())
        self.assertError(self.delete('/v1/inspection_rules/%s'
                                     % created['uuid']), 404)


class VersionsAndPolicyTest(RuleApiTestCase):

    def test_below_1_96_there_are_no_inspection_rules(self):
        self.assertError(self.get('/v1/inspection_rules', version='1.95'),
                         404, '1.96')
        self.assertError(self.post('/v1/inspection_rules', json=body(),
                                   version='1.95'), 405, '1.96')
        self.assertEqual([], self.stored())

    def test_a_reader_may_list_but_not_create(self):
        self.use_policy({'baremetal:inspection_rule:create': '!'})
        self.assertError(self.post('/v1/inspection_rules', json=body()),
                         403, 'baremetal:inspection_rule:create')
        self.assertEqual(200, self.get('/v1/inspection_rules').status_code)
        self.assertEqual([], self.stored())


class PinnedTo012Test(RuleApiTestCase):
    """While the services are pinned to release 0.12, there are no rules."""

    def test_the_endpoints_are_absent(self):
        self.config(pin_release_version='0.12')
        self.make_client()
        self.assertError(self.get('/v1/inspection_rules'), 406, '1.94')
        self.assertError(self.get('/v1/inspection_rules', version='1.94'),
                         404)
        self.assertError(self.post('/v1/inspection_rules', json=body(),
                                   version='1.94'), 405)
        self.assertEqual([], self.stored())
