"""ironic-steps-status upgrade check, against a real database."""

import contextlib
import io
import os
import re

import fixtures
from oslo_upgradecheck import upgradecheck

from ironic_steps.cmd import status
from ironic_steps.common import states
from ironic_steps.db import migration
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from tests import base

Code = upgradecheck.Code


class UpgradeCheckTest(base.TestCase):

    def run_checks(self):
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            code = status.Checks().check()
        return code, output.getvalue()

    def test_a_quiet_current_unpinned_deployment_is_safe(self):
        self.create_node(provision_state=states.AVAILABLE)
        code, output = self.run_checks()
        self.assertEqual(Code.SUCCESS, code)
        self.assertIn('Not pinned', output)

    def test_a_pin_is_reported_as_a_warning_naming_the_release(self):
        self.config(pin_release_version='0.1')
        code, output = self.run_checks()
        self.assertEqual(Code.WARNING, code)
        self.assertIn('Pinned to release 0.1', output)

    def test_nodes_mid_deploy_are_counted_by_state(self):
        node = self.create_node()
        node.provision_state = states.DEPLOYING
        node.save()
        other = self.create_node()
        other.provision_state = states.DEPLOYWAIT
        other.save()
        code, output = self.run_checks()
        self.assertEqual(Code.WARNING, code)
        self.assertIn('1 deploying', output)
        self.assertIn('1 wait call-back', output)

    def test_pending_migrations_make_the_upgrade_unsafe(self):
        directory = self.useFixture(fixtures.TempDir()).path
        sqlalchemy_api.configure(
            connection='sqlite:///%s' % os.path.join(directory, 'old.db'))
        migration.upgrade('2c1f0b4d9e01')
        code, output = self.run_checks()
        self.assertEqual(Code.FAILURE, code)
        self.assertIn('7b3e5d2a8f10', output)
        # The table wraps long details; read them as one line.
        unwrapped = re.sub(r'\s*\|\n\|\s*', '', output)
        self.assertIn('ironic-steps-dbsync', unwrapped)

    def test_an_unreachable_database_fails_the_check_saying_why(self):
        sqlalchemy_api.configure(
            connection='sqlite:////nonexistent-dir/ironic-steps.sqlite')
        code, output = self.run_checks()
        self.assertEqual(Code.FAILURE, code)
        self.assertIn('Cannot read the database', output)
