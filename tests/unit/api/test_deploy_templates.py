"""Deploy templates through /v1/deploy_templates (API 1.55)."""

import copy
import urllib.parse

import ddt
from oslo_utils import uuidutils

from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps import objects
from tests.unit.api import base

# Fixed, not generated: ddt puts them in test ids.
UUID = '0d1c6b64-1c2e-4c3b-a1a4-8f4e2b6b2c11'
OTHER_UUID = '8a4e3c8e-7d2b-4b8a-9c55-2f0b9a3d9e21'

RAID = {'interface': 'raid', 'step': 'apply_configuration',
        'args': {'raid_config': {'logical_disks': []}}, 'priority': 10}
BIOS = {'interface': 'bios', 'step': 'apply_configuration',
        'args': {'settings': [{'name': 'LogicalProc', 'value': 'Enabled'}]},
        'priority': 20}
TEMPLATE = {'name': 'CUSTOM_RAID_AND_BIOS', 'steps': [RAID, BIOS],
            'extra': {'owner': 'ops'}}


def body(**changes):
    """A template create body: TEMPLATE with ``changes`` (None drops)."""
    return base.changed(TEMPLATE, **changes)


def step(**changes):
    return dict(copy.deepcopy(RAID), **changes)


def names(response):
    return [t['name'] for t in response.get_json()['deploy_templates']]


class TemplateApiTestCase(base.ApiTestCase):

    def create_template(self, **changes):
        response = self.post('/v1/deploy_templates', json=body(**changes))
        self.assertEqual(201, response.status_code, response.data)
        return response.get_json()

    def stored(self):
        """Every stored template, as the object layer reads it."""
        return [t.obj_to_primitive()['ironic_steps_object.data']
                for t in objects.DeployTemplate.list(self.context)]

    def stored_step_count(self):
        with sqlalchemy_api.get_engine().connect() as connection:
            return connection.exec_driver_sql(
                'SELECT count(*) FROM deploy_template_steps').scalar()


@ddt.ddt
class CreateTemplateTest(TemplateApiTestCase):

    def test_a_template_is_created_201_with_its_location_and_fields(self):
        response = self.post('/v1/deploy_templates', json=body(uuid=UUID))
        self.assertEqual(201, response.status_code, response.data)
        self.assertEqual('http://localhost/v1/deploy_templates/%s' % UUID,
                         response.headers['Location'])
        created = response.get_json()
        self.assertEqual({'uuid', 'name', 'steps', 'extra', 'created_at',
                          'updated_at', 'links'}, set(created))
        self.assertEqual(UUID, created['uuid'])
        self.assertEqual('CUSTOM_RAID_AND_BIOS', created['name'])
        self.assertEqual([RAID, BIOS], created['steps'])
        self.assertEqual({'owner': 'ops'}, created['extra'])
        self.assertTrue(created['created_at'].endswith('+00:00'))
        self.assertIsNone(created['updated_at'])
        self.assertEqual(
            [{'href': 'http://localhost/v1/deploy_templates/%s' % UUID,
              'rel': 'self'},
             {'href': 'http://localhost/deploy_templates/%s' % UUID,
              'rel': 'bookmark'}], created['links'])
        stored = objects.DeployTemplate.get(self.context, UUID)
        self.assertEqual([RAID, BIOS], stored.steps)

    def test_a_uuid_is_made_when_none_is_given_and_extra_may_be_absent(self):
        created = self.create_template(extra=None)
        self.assertTrue(uuidutils.is_uuid_like(created['uuid']))
        self.assertEqual({}, created['extra'])

    @ddt.data('HW_CPU_X86_VMX', 'CUSTOM_A', 'CUSTOM_' + 'X' * 248)
    def test_a_name_is_any_standard_or_custom_trait(self, name):
        self.assertEqual(name, self.create_template(name=name)['name'])

    def test_a_priority_given_as_digits_is_stored_as_a_number(self):
        created = self.create_template(steps=[step(priority='15')])
        self.assertEqual(15, created['steps'][0]['priority'])
        self.assertEqual(15, objects.DeployTemplate.get(
            self.context, created['uuid']).steps[0]['priority'])

    @ddt.data(
        # (body changes, words the 400 must say)
        ({'name': None}, ['name']),
        ({'steps': None}, ['steps']),
        ({'name': 'raid'}, ['name', "'raid'", 'CUSTOM_']),
        ({'name': 'CUSTOM_lower'}, ['name', 'CUSTOM_lower']),
        ({'name': 'CUSTOM_'}, ['name', "'CUSTOM_'"]),
        ({'name': 'CUSTOM_' + 'X' * 249}, ['name', 'long']),
        ({'name': 42}, ['name', '42']),
        ({'steps': []}, ['steps', 'non-empty']),
        ({'steps': 'raid'}, ['steps', 'array']),
        ({'steps': [step(interface='boot')]},
         ['steps', "'boot'", 'steps/0/interface', 'raid']),
        ({'steps': [step(interface='vendor')]}, ['steps', "'vendor'"]),
        ({'steps': [step(step='')]}, ['steps', 'steps/0/step']),
        ({'steps': [step(step=7)]}, ['steps', 'steps/0/step']),
        ({'steps': [step(args=[])]}, ['steps', 'steps/0/args']),
        ({'steps': [step(priority=-1)]}, ['steps', 'steps/0/priority']),
        ({'steps': [step(priority='high')]}, ['steps', 'steps/0/priority']),
        ({'steps': [step(priority=1.5)]}, ['steps', 'steps/0/priority']),
        ({'steps': [step(priority=True)]}, ['steps', 'steps/0/priority']),
        ({'steps': [step(priority=2 ** 31)]},
         ['steps', 'steps/0/priority']),
        ({'steps': [step(priority='99999999999')]}, ['steps', 'priority']),
        ({'steps': [{'interface': 'raid', 'step': 'x', 'args': {}}]},
         ['steps', "'priority' is a required property"]),
        ({'steps': [step(colour='red')]}, ['steps', 'colour']),
        ({'steps': [RAID, BIOS, step(priority=0)]},
         ['steps', 'raid.apply_configuration', 'more than once']),
        ({'extra': 'x'}, ['extra']),
        ({'uuid': 'not-a-uuid'}, ['uuid', 'not-a-uuid']),
        ({'colour': 'red'}, ['colour', 'steps']),
        ({'created_at': '2020-01-01'}, ['created_at', 'read-only']),
    )
    @ddt.unpack
    def test_an_invalid_template_is_400_naming_the_problem_and_not_stored(
            self, changes, fragments):
        response = self.post('/v1/deploy_templates', json=body(**changes))
        self.assertError(response, 400, *fragments)
        self.assertEqual([], self.stored())
        self.assertEqual(0, self.stored_step_count())

    @ddt.data(None, [], 'x')
    def test_a_body_that_is_not_an_object_is_400(self, request_body):
        response = self.post('/v1/deploy_templates', json=request_body)
        self.assertEqual(400, response.status_code)
        self.assertEqual([], self.stored())

    def test_a_duplicate_name_is_409_and_the_first_template_stays(self):
        first = self.create_template()
        response = self.post('/v1/deploy_templates',
                             json=body(steps=[BIOS]))
        self.assertError(response, 409, 'CUSTOM_RAID_AND_BIOS')
        [stored] = self.stored()
        self.assertEqual(first['uuid'], stored['uuid'])
        self.assertEqual([RAID, BIOS], stored['steps'])

    def test_a_duplicate_uuid_is_409(self):
        self.create_template(uuid=UUID)
        response = self.post('/v1/deploy_templates',
                             json=body(uuid=UUID, name='CUSTOM_OTHER'))
        self.assertError(response, 409, UUID)
        self.assertEqual(1, len(self.stored()))

    def test_secrets_in_step_arguments_are_masked(self):
        created = self.create_template(steps=[step(args={
            'bmc_password': 'hunter2', 'settings': {'x': 1}})])
        self.assertEqual({'bmc_password': '******', 'settings': {'x': 1}},
                         created['steps'][0]['args'])
        shown = self.get('/v1/deploy_templates/%s' % created['uuid'])
        self.assertEqual('******',
                         shown.get_json()['steps'][0]['args']['bmc_password'])
        self.assertEqual('hunter2', objects.DeployTemplate.get(
            self.context, created['uuid']).steps[0]['args']['bmc_password'])


class ShowTemplateTest(TemplateApiTestCase):

    def test_a_template_is_found_by_uuid_and_by_name(self):
        created = self.create_template()
        by_uuid = self.get('/v1/deploy_templates/%s' % created['uuid'])
        by_name = self.get('/v1/deploy_templates/CUSTOM_RAID_AND_BIOS')
        self.assertEqual(created, by_uuid.get_json())
        self.assertEqual(created, by_name.get_json())

    def test_fields_selects_what_is_shown_plus_links(self):
        self.create_template()
        shown = self.get('/v1/deploy_templates/CUSTOM_RAID_AND_BIOS'
                         '?fields=name,steps').get_json()
        self.assertEqual({'name', 'steps', 'links'}, set(shown))

    def test_unknown_fields_are_400_naming_them(self):
        self.create_template()
        self.assertError(self.get('/v1/deploy_templates/CUSTOM_RAID_AND_BIOS'
                                  '?fields=colour'), 400, 'colour')

    def test_an_unknown_template_is_404_naming_it(self):
        self.assertError(self.get('/v1/deploy_templates/CUSTOM_NONE'), 404,
                         'CUSTOM_NONE')
        self.assertError(self.get('/v1/deploy_templates/%s' % UUID), 404,
                         UUID)


@ddt.ddt
class ListTemplatesTest(TemplateApiTestCase):

    def setUp(self):
        super().setUp()
        self.templates = [
            self.create_template(name='CUSTOM_%s' % name, steps=[
                step(priority=priority)])
            for name, priority in (('B', 1), ('C', 2), ('A', 3))]

    def follow(self, url):
        parts = urllib.parse.urlsplit(url)
        return self.get('%s?%s' % (parts.path, parts.query))

    def test_a_plain_list_shows_uuid_name_and_links(self):
        listed = self.get('/v1/deploy_templates').get_json()
        self.assertEqual(['CUSTOM_B', 'CUSTOM_C', 'CUSTOM_A'],
                         [t['name'] for t in listed['deploy_templates']])
        self.assertEqual({'uuid', 'name', 'links'},
                         set(listed['deploy_templates'][0]))
        self.assertNotIn('next', listed)

    @ddt.data('/v1/deploy_templates/detail',
              '/v1/deploy_templates?detail=true')
    def test_detail_shows_every_field_with_the_steps(self, url):
        listed = self.get(url).get_json()['deploy_templates']
        shown = self.get('/v1/deploy_templates/CUSTOM_B').get_json()
        self.assertEqual(shown, listed[0])
        self.assertEqual([3], [s['priority'] for s in listed[2]['steps']])

    def test_fields_selects_what_each_template_shows(self):
        listed = self.get('/v1/deploy_templates?fields=name,extra')
        self.assertEqual({'name', 'extra', 'links'},
                         set(listed.get_json()['deploy_templates'][0]))

    def test_detail_and_fields_do_not_combine(self):
        self.assertError(self.get('/v1/deploy_templates/detail?fields=name'),
                         400, 'fields')
        self.assertError(self.get('/v1/deploy_templates/detail?detail=true'),
                         400, 'detail')

    def test_sort_key_and_sort_dir_order_the_list(self):
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'], names(
            self.get('/v1/deploy_templates?sort_key=name')))
        self.assertEqual(['CUSTOM_C', 'CUSTOM_B', 'CUSTOM_A'], names(
            self.get('/v1/deploy_templates?sort_key=name&sort_dir=desc')))

    @ddt.data('steps', 'extra', 'colour')
    def test_sorting_on_anything_but_a_column_is_400(self, key):
        self.assertError(self.get('/v1/deploy_templates?sort_key=%s' % key),
                         400, key, 'name')

    def test_pages_are_followed_through_next_links_to_the_end(self):
        first = self.get('/v1/deploy_templates/detail?limit=2&sort_key=name')
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], names(first))
        next_url = first.get_json()['next']
        self.assertTrue(next_url.startswith(
            'http://localhost/v1/deploy_templates/detail?'))
        self.assertIn('marker=%s' % self.templates[0]['uuid'], next_url)
        second = self.follow(next_url)
        self.assertEqual(['CUSTOM_C'], names(second))
        self.assertEqual([2], [s['priority'] for s in second.get_json()[
            'deploy_templates'][0]['steps']])
        self.assertNotIn('next', second.get_json())

    def test_a_marker_that_is_no_template_is_400(self):
        self.assertError(self.get('/v1/deploy_templates?marker=%s' % UUID),
                         400, UUID)

    def test_unknown_parameters_are_400(self):
        self.assertError(self.get('/v1/deploy_templates?colour=red'), 400,
                         'colour')


@ddt.ddt
class PatchTemplateTest(TemplateApiTestCase):

    def setUp(self):
        super().setUp()
        self.template = self.create_template(uuid=UUID)

    def patch_template(self, *ops, ident=UUID):
        return self.patch('/v1/deploy_templates/%s' % ident, json=list(ops))

    @ddt.data(
        # (operations, the template's fields afterwards)
        ([{'op': 'replace', 'path': '/name', 'value': 'CUSTOM_NEW'}],
         {'name': 'CUSTOM_NEW'}),
        ([{'op': 'replace', 'path': '/steps', 'value': [BIOS]}],
         {'steps': [BIOS]}),
        ([{'op': 'replace', 'path': '/steps/0/priority', 'value': 99}],
         {'steps': [step(priority=99), BIOS]}),
        ([{'op': 'remove', 'path': '/steps/1'}], {'steps': [RAID]}),
        ([{'op': 'add', 'path': '/steps/-', 'value': {
            'interface': 'deploy', 'step': 'deploy', 'args': {},
            'priority': 0}}],
         {'steps': [RAID, BIOS, {'interface': 'deploy', 'step': 'deploy',
                                 'args': {}, 'priority': 0}]}),
        ([{'op': 'add', 'path': '/extra/rack', 'value': 4}],
         {'extra': {'owner': 'ops', 'rack': 4}}),
        ([{'op': 'remove', 'path': '/extra'}], {'extra': {}}),
    )
    @ddt.unpack
    def test_a_patch_changes_the_stored_template(self, ops, expected):
        response = self.patch_template(*ops)
        self.assertEqual(200, response.status_code, response.data)
        answered = response.get_json()
        stored = objects.DeployTemplate.get(self.context, UUID)
        for field, value in expected.items():
            self.assertEqual(value, answered[field], field)
            self.assertEqual(value, getattr(stored, field), field)
        self.assertIsNotNone(answered['updated_at'])

    def test_a_template_is_patched_by_name_too(self):
        response = self.patch_template(
            {'op': 'add', 'path': '/extra/a', 'value': 1},
            ident='CUSTOM_RAID_AND_BIOS')
        self.assertEqual(200, response.status_code, response.data)

    def test_a_patch_that_changes_nothing_answers_the_template(self):
        response = self.patch_template({'op': 'test', 'path': '/name',
                                        'value': 'CUSTOM_RAID_AND_BIOS'})
        self.assertEqual(self.template, response.get_json())

    @ddt.data(
        # (operations, status, words the error must say)
        ([{'op': 'replace', 'path': '/name', 'value': 'raid'}], 400,
         ['name', "'raid'"]),
        ([{'op': 'remove', 'path': '/name'}], 400, ['name', 'None']),
        ([{'op': 'remove', 'path': '/steps'}], 400, ['steps']),
        ([{'op': 'replace', 'path': '/steps', 'value': []}], 400,
         ['steps', 'non-empty']),
        ([{'op': 'replace', 'path': '/steps/0/interface',
           'value': 'boot'}], 400, ['steps/0/interface', "'boot'"]),
        ([{'op': 'replace', 'path': '/steps/1/priority', 'value': -5}],
         400, ['steps/1/priority']),
        ([{'op': 'remove', 'path': '/steps/0/args'}], 400,
         ["'args' is a required property"]),
        ([{'op': 'add', 'path': '/steps/-', 'value': RAID}], 400,
         ['raid.apply_configuration', 'more than once']),
        ([{'op': 'replace', 'path': '/extra', 'value': 'x'}], 400,
         ['extra']),
        ([{'op': 'replace', 'path': '/uuid', 'value': OTHER_UUID}], 400,
         ['uuid', 'read-only']),
        ([{'op': 'replace', 'path': '/created_at', 'value': 'x'}], 400,
         ['created_at', 'read-only']),
        ([{'op': 'add', 'path': '/colour', 'value': 'red'}], 400,
         ['colour']),
        ([{'op': 'remove', 'path': '/steps/7'}], 400, ['/steps/7']),
        ([{'op': 'replace', 'path': '/name', 'value': 'CUSTOM_NEW'},
          {'op': 'replace', 'path': '/steps/0/step', 'value': ''}], 400,
         ['steps/0/step']),
    )
    @ddt.unpack
    def test_a_refused_patch_names_the_problem_and_changes_nothing(
            self, ops, status, fragments):
        before = self.stored()
        self.assertError(self.patch_template(*ops), status, *fragments)
        self.assertEqual(before, self.stored())

    @ddt.data({}, [], 'x')
    def test_a_body_that_is_no_patch_is_400(self, request_body):
        response = self.patch('/v1/deploy_templates/%s' % UUID,
                              json=request_body)
        self.assertError(response, 400, 'JSON patch')

    def test_renaming_to_a_taken_name_is_409_and_changes_nothing(self):
        self.create_template(name='CUSTOM_TAKEN', steps=[BIOS])
        before = self.stored()
        self.assertError(self.patch_template(
            {'op': 'replace', 'path': '/name', 'value': 'CUSTOM_TAKEN'},
            {'op': 'replace', 'path': '/steps', 'value': [RAID]}), 409,
            'CUSTOM_TAKEN')
        self.assertEqual(before, self.stored())

    def test_patching_an_unknown_template_is_404(self):
        self.assertError(self.patch_template(
            {'op': 'add', 'path': '/extra/a', 'value': 1},
            ident='CUSTOM_NONE'), 404, 'CUSTOM_NONE')


class DeleteTemplateTest(TemplateApiTestCase):

    def test_a_deleted_template_is_gone_with_its_steps(self):
        self.create_template(uuid=UUID)
        kept = self.create_template(name='CUSTOM_KEPT', steps=[BIOS])
        response = self.delete('/v1/deploy_templates/CUSTOM_RAID_AND_BIOS')
        self.assertEqual(204, response.status_code)
        self.assertEqual(b'', response.data)
        self.assertError(self.get('/v1/deploy_templates/%s' % UUID), 404,
                         UUID)
        self.assertEqual([kept['uuid']], [t['uuid'] for t in self.stored()])
        self.assertEqual(1, self.stored_step_count())

    def test_deleting_an_unknown_template_is_404(self):
        self.assertError(self.delete('/v1/deploy_templates/%s' % UUID), 404,
                         UUID)


@ddt.ddt
class TemplateVersionsTest(TemplateApiTestCase):

    @ddt.data('/v1/deploy_templates', '/v1/deploy_templates/detail',
              '/v1/deploy_templates/CUSTOM_A')
    def test_below_1_55_reading_templates_is_404(self, url):
        self.assertError(self.get(url, version='1.54'), 404, '1.55', '1.54')

    @ddt.data(('POST', '/v1/deploy_templates'),
              ('PATCH', '/v1/deploy_templates/CUSTOM_A'),
              ('DELETE', '/v1/deploy_templates/CUSTOM_A'))
    @ddt.unpack
    def test_below_1_55_changing_templates_is_405(self, method, url):
        response = self.request(method, url, version='1.54', json=body())
        self.assertError(response, 405, '1.55')
        self.assertEqual([], self.stored())

    def test_v1_lists_deploy_templates_from_1_55(self):
        self.assertIn('deploy_templates', self.get('/v1').get_json())
        self.assertNotIn('deploy_templates',
                         self.get('/v1', version='1.54').get_json())

    def test_pinned_to_0_2_templates_do_not_exist(self):
        self.config(pin_release_version='0.2')
        self.assertError(self.get('/v1/deploy_templates', version='1.55'),
                         406, '1.55', '1.44')
        self.assertError(self.get('/v1/deploy_templates', version='latest'),
                         404, '1.55', '1.44')
        response = self.post('/v1/deploy_templates', json=body(),
                             version='latest')
        self.assertError(response, 405, '1.55')
        self.assertEqual([], self.stored())


class TemplateStepTimeoutTest(TemplateApiTestCase):
    """A template step's timeout (the x-steps extension, release 0.6)."""

    def test_a_step_may_say_its_timeout_which_is_kept_and_shown(self):
        created = self.create_template(steps=[step(timeout=900), BIOS])
        self.assertEqual([step(timeout=900), BIOS], created['steps'])
        self.assertEqual([step(timeout=900), BIOS], objects.DeployTemplate
                         .get(self.context, created['uuid']).steps)
        # Changed by a patch like any step key
        response = self.patch(
            '/v1/deploy_templates/%s' % created['uuid'], json=[
                {'op': 'replace', 'path': '/steps/0/timeout',
                 'value': 60.5}])
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual(60.5, response.get_json()['steps'][0]['timeout'])

    def test_a_step_without_one_looks_as_in_ironic(self):
        created = self.create_template(steps=[step(timeout=None), BIOS])
        self.assertEqual([RAID, BIOS], created['steps'])
        self.assertNotIn('timeout', self.get(
            '/v1/deploy_templates/%s' % created['uuid']).get_json()[
                'steps'][0])

    def test_a_timeout_that_is_not_a_positive_number_is_400(self):
        for timeout in (0, -3, '60', True):
            response = self.post('/v1/deploy_templates',
                                 json=body(steps=[step(timeout=timeout)]))
            self.assertError(response, 400, 'steps')
        self.assertEqual([], self.stored())

    def test_pinned_to_0_5_a_timeout_is_refused_as_unknown(self):
        self.config(pin_release_version='0.5')
        self.make_client()
        response = self.post('/v1/deploy_templates',
                             json=body(steps=[step(timeout=900)]))
        self.assertError(response, 400, 'unknown key, timeout',
                         'needs release 0.6', 'pinned to 0.5')
        self.assertEqual([], self.stored())
