"""The Runbook object: how runbooks and their traits are read and written.

Its fingerprint is recorded with the others in test_node.py.
"""

from ironic_steps.common import exception
from ironic_steps import objects
from tests import base

BIOS = {'interface': 'bios', 'step': 'apply_configuration',
        'args': {'settings': []}, 'order': 0}


def new_runbook(context, name='CUSTOM_BIOS', **fields):
    runbook = objects.Runbook(context, name=name, steps=[BIOS], **fields)
    runbook.create()
    return runbook


class RunbookTest(base.TestCase):

    def test_a_created_runbook_is_read_back_by_uuid_or_name_with_traits(self):
        runbook = new_runbook(self.context, traits=['CUSTOM_B', 'CUSTOM_A'],
                              description='BIOS reset')
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], runbook.traits)
        self.assertFalse(runbook.public)
        for ident in (runbook.uuid, runbook.uuid.upper(), 'CUSTOM_BIOS'):
            found = objects.Runbook.get(self.context, ident)
            self.assertEqual(runbook.obj_to_primitive(),
                             found.obj_to_primitive())

    def test_traits_change_one_at_a_time_or_all_at_once(self):
        runbook = new_runbook(self.context)
        runbook.add_trait('CUSTOM_A')
        runbook.add_trait('CUSTOM_A')
        runbook.add_trait('CUSTOM_B')
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], runbook.traits)
        self.assertIsNotNone(runbook.updated_at)
        runbook.remove_traits(['CUSTOM_A', 'CUSTOM_Z'])
        self.assertEqual(['CUSTOM_B'], runbook.traits)
        runbook.set_traits(['CUSTOM_C', 'CUSTOM_D'])
        self.assertEqual(['CUSTOM_C', 'CUSTOM_D'], objects.Runbook.get(
            self.context, runbook.uuid).traits)
        runbook.remove_traits()
        self.assertEqual([], runbook.traits)

    def test_a_project_lists_the_public_runbooks_and_its_own(self):
        new_runbook(self.context, 'CUSTOM_ADMIN')
        new_runbook(self.context, 'CUSTOM_PUBLIC', public=True)
        new_runbook(self.context, 'CUSTOM_MINE', owner='p1')
        new_runbook(self.context, 'CUSTOM_THEIRS', owner='p2')
        self.assertEqual(
            ['CUSTOM_PUBLIC', 'CUSTOM_MINE'],
            [r.name for r in objects.Runbook.list(self.context,
                                                  project='p1')])
        self.assertEqual(4, len(objects.Runbook.list(self.context)))

    def test_a_deleted_runbook_is_not_found(self):
        runbook = new_runbook(self.context, traits=['CUSTOM_A'])
        runbook.destroy()
        self.assertRaises(exception.RunbookNotFound, objects.Runbook.get,
                          self.context, 'CUSTOM_BIOS')
        self.assertRaises(exception.RunbookNotFound, runbook.destroy)

    def test_pinned_to_0_11_nothing_is_written(self):
        runbook = new_runbook(self.context)
        self.config(pin_release_version='0.11')
        exc = self.assertRaises(exception.NotInPinnedRelease, new_runbook,
                                self.context, 'CUSTOM_OTHER')
        self.assertIn('0.12', str(exc))
        runbook.description = 'changed'
        self.assertRaises(exception.NotInPinnedRelease, runbook.save)
        self.assertRaises(exception.NotInPinnedRelease, runbook.add_trait,
                          'CUSTOM_A')
        self.assertRaises(exception.NotInPinnedRelease, runbook.destroy)
        self.config(pin_release_version=None)
        self.assertIsNone(objects.Runbook.get(self.context,
                                              runbook.uuid).description)
