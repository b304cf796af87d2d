"""Who sees and changes which runbook: a project's callers see the public
runbooks and their own, change only their own, and own what they make;
a system-scoped caller, or one with no project, sees everything."""

from oslo_context import context as oslo_context

from ironic_steps.api import runbook_access
from ironic_steps.common import exception
from ironic_steps import objects
from tests import base

STEPS = [{'interface': 'bios', 'step': 'factory_reset', 'args': {},
          'order': 0}]


class RunbookAccessTest(base.TestCase):

    def setUp(self):
        super().setUp()
        for name, fields in (('CUSTOM_ADMIN', {}),
                             ('CUSTOM_PUBLIC', {'public': True}),
                             ('CUSTOM_P1', {'owner': 'p1'}),
                             ('CUSTOM_P2', {'owner': 'p2'})):
            objects.Runbook(self.context, name=name, steps=STEPS,
                            **fields).create()
        self.p1 = oslo_context.RequestContext(project_id='p1')
        self.system = oslo_context.RequestContext(project_id='p1',
                                                  system_scope='all')

    def test_a_project_sees_the_public_runbooks_and_its_own(self):
        for name in ('CUSTOM_PUBLIC', 'CUSTOM_P1'):
            self.assertEqual(name, runbook_access.get(self.p1, name).name)
        for name in ('CUSTOM_ADMIN', 'CUSTOM_P2'):
            self.assertRaises(exception.RunbookNotFound,
                              runbook_access.get, self.p1, name)
        self.assertEqual('CUSTOM_P2',
                         runbook_access.get(self.system, 'CUSTOM_P2').name)
        self.assertEqual('p1', runbook_access.project_of(self.p1))
        self.assertIsNone(runbook_access.project_of(self.system))
        self.assertIsNone(runbook_access.project_of(self.context))

    def test_a_project_changes_only_its_own(self):
        self.assertEqual('CUSTOM_P1', runbook_access.get_to_change(
            self.p1, 'CUSTOM_P1').name)
        exc = self.assertRaises(exception.RunbookNotOwned,
                                runbook_access.get_to_change, self.p1,
                                'CUSTOM_PUBLIC')
        self.assertEqual(403, exc.code)
        self.assertRaises(exception.RunbookNotFound,
                          runbook_access.get_to_change, self.p1, 'CUSTOM_P2')

    def test_a_project_owns_what_it_makes_and_makes_nothing_public(self):
        values = {}
        runbook_access.check_new(self.p1, values)
        self.assertEqual({'owner': 'p1'}, values)
        for refused in ({'owner': 'p2'}, {'public': True}):
            self.assertRaises(exception.InvalidParameterValue,
                              runbook_access.check_new, self.p1,
                              dict(refused))
        values = {'owner': 'p2'}
        runbook_access.check_new(self.system, values)
        self.assertEqual({'owner': 'p2'}, values)
