"""The DeployTemplate object: how templates are read and written.

Its fingerprint is recorded with the others in test_node.py.
"""

import ddt

from ironic_steps.common import exception
from ironic_steps import objects
from tests import base

RAID = {'interface': 'raid', 'step': 'apply_configuration',
        'args': {'raid_config': {'logical_disks': []}}, 'priority': 10}
BIOS = {'interface': 'bios', 'step': 'apply_configuration',
        'args': {'settings': []}, 'priority': 20}
DEPLOY = {'interface': 'deploy', 'step': 'deploy', 'args': {},
          'priority': 0}
MISSING_UUID = '5d7c3a4e-93b1-4c2f-a0f6-2b8e9d1c7f40'


def new_template(context, name='CUSTOM_RAID', steps=(RAID,), **fields):
    template = objects.DeployTemplate(context, name=name, steps=list(steps),
                                      **fields)
    template.create()
    return template


@ddt.ddt
class DeployTemplateTest(base.TestCase):

    def test_a_created_template_gets_its_database_fields(self):
        template = new_template(self.context, steps=[RAID, BIOS],
                                extra={'a': 1})
        self.assertIsInstance(template.id, int)
        self.assertEqual(36, len(template.uuid))
        self.assertIsNotNone(template.created_at)
        self.assertIsNone(template.updated_at)
        self.assertEqual([RAID, BIOS], template.steps)
        self.assertEqual({}, template.obj_get_changes())

    @ddt.data('uuid', 'name')
    def test_a_template_is_found_by_uuid_or_name(self, key):
        template = new_template(self.context, steps=[BIOS, RAID])
        found = objects.DeployTemplate.get(self.context,
                                           getattr(template, key))
        self.assertEqual(template.obj_to_primitive(),
                         found.obj_to_primitive())
        self.assertEqual(template.obj_to_primitive(),
                         objects.DeployTemplate.get_by_id(
                             self.context, template.id).obj_to_primitive())

    @ddt.data(MISSING_UUID, 'CUSTOM_NONE')
    def test_a_missing_template_is_not_found(self, ident):
        exc = self.assertRaises(exception.DeployTemplateNotFound,
                                objects.DeployTemplate.get, self.context,
                                ident)
        self.assertIn(ident, str(exc))

    def test_list_by_names_reads_the_named_templates_in_one_query(self):
        new_template(self.context, 'CUSTOM_B', [BIOS, DEPLOY])
        new_template(self.context, 'CUSTOM_A', [RAID])
        new_template(self.context, 'CUSTOM_EMPTY_OTHER', [DEPLOY])
        with base.SQLStatements() as recorded:
            found = objects.DeployTemplate.list_by_names(
                self.context, ['CUSTOM_B', 'CUSTOM_A', 'CUSTOM_MISSING'])
        self.assertEqual(['SELECT'], recorded.verbs())
        self.assertEqual([('CUSTOM_A', [RAID]), ('CUSTOM_B', [BIOS, DEPLOY])],
                         [(t.name, t.steps) for t in found])
        self.assertEqual([], objects.DeployTemplate.list_by_names(
            self.context, []))

    def test_a_page_of_templates_is_one_query_with_their_steps(self):
        for name in ('CUSTOM_C', 'CUSTOM_A', 'CUSTOM_B'):
            new_template(self.context, name, [RAID, BIOS])
        with base.SQLStatements() as recorded:
            page = objects.DeployTemplate.list(
                self.context, limit=2, sort_key='name', sort_dir='desc')
        self.assertEqual(['SELECT'], recorded.verbs())
        self.assertEqual(['CUSTOM_C', 'CUSTOM_B'], [t.name for t in page])
        self.assertEqual([[RAID, BIOS]] * 2, [t.steps for t in page])
        rest = objects.DeployTemplate.list(
            self.context, limit=2, marker=page[-1], sort_key='name',
            sort_dir='desc')
        self.assertEqual(['CUSTOM_A'], [t.name for t in rest])

    def test_save_replaces_the_steps_and_bumps_updated_at(self):
        template = new_template(self.context, steps=[RAID, BIOS])
        template.steps = [DEPLOY]
        template.extra = {'b': 2}
        template.save()
        stored = objects.DeployTemplate.get(self.context, template.uuid)
        self.assertEqual([DEPLOY], stored.steps)
        self.assertEqual({'b': 2}, stored.extra)
        self.assertIsNotNone(stored.updated_at)
        self.assertEqual(stored.obj_to_primitive(),
                         template.obj_to_primitive())

    def test_a_step_timeout_is_kept_exactly_and_absent_when_unset(self):
        slow_raid = dict(RAID, timeout=5400.1)
        template = new_template(self.context, steps=[slow_raid, BIOS])
        read = objects.DeployTemplate.get(self.context, template.uuid)
        self.assertEqual([slow_raid, BIOS], read.steps)
        self.assertNotIn('timeout', read.steps[1])

    def test_the_uuid_never_changes(self):
        template = new_template(self.context)
        template.uuid = MISSING_UUID
        self.assertRaises(exception.Invalid, template.save)

    def test_names_and_uuids_are_unique(self):
        first = new_template(self.context)
        self.assertRaises(exception.DeployTemplateDuplicateName,
                          new_template, self.context)
        self.assertRaises(exception.DeployTemplateAlreadyExists,
                          new_template, self.context, 'CUSTOM_OTHER',
                          uuid=first.uuid)
        other = new_template(self.context, 'CUSTOM_OTHER')
        other.name = 'CUSTOM_RAID'
        other.steps = [BIOS]
        self.assertRaises(exception.DeployTemplateDuplicateName, other.save)
        # A refused save wrote nothing, steps included.
        self.assertEqual([RAID], objects.DeployTemplate.get(
            self.context, 'CUSTOM_OTHER').steps)

    def test_destroy_removes_the_template_and_its_steps(self):
        template = new_template(self.context, steps=[RAID, BIOS])
        kept = new_template(self.context, 'CUSTOM_KEPT', [DEPLOY])
        template.destroy()
        self.assertRaises(exception.DeployTemplateNotFound,
                          objects.DeployTemplate.get, self.context,
                          template.uuid)
        self.assertRaises(exception.DeployTemplateNotFound,
                          template.destroy)
        from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
        with sqlalchemy_api.get_engine().connect() as connection:
            self.assertEqual([kept.id], list(connection.exec_driver_sql(
                'SELECT deploy_template_id FROM deploy_template_steps'
            ).scalars()))

    def test_pinned_to_a_release_without_templates_nothing_is_written(self):
        template = new_template(self.context)
        self.config(pin_release_version='0.2')
        exc = self.assertRaises(exception.NotInPinnedRelease, new_template,
                                self.context, 'CUSTOM_NEW')
        self.assertIn('0.3', str(exc))
        self.assertIn('0.2', str(exc))
        template.steps = [BIOS]
        self.assertRaises(exception.NotInPinnedRelease, template.save)
        self.assertRaises(exception.NotInPinnedRelease, template.destroy)
        self.config(pin_release_version=None)
        self.assertEqual([template.uuid], [
            t.uuid for t in objects.DeployTemplate.list(self.context)])
        self.assertEqual([RAID], objects.DeployTemplate.get(
            self.context, template.uuid).steps)
