"""What importing ironic-steps does to a fresh interpreter."""

import subprocess
import sys

import testtools

_PROBE = """
import ironic_steps.service, ironic_steps.api.app, ironic_steps.cmd.all_in_one
from oslo_service import backend
print(backend.get_backend_type().value)
"""


class PackageImportTest(testtools.TestCase):

    def _import(self, before=''):
        return subprocess.run([sys.executable, '-c', before + _PROBE],
                              capture_output=True, text=True, timeout=120)

    def test_the_service_imports_silently_on_oslo_service_threads(self):
        result = self._import()
        self.assertEqual(0, result.returncode, result.stderr)
        # No deprecation warning (eventlet's, or dnspython's about DSA).
        self.assertEqual('', result.stderr)
        self.assertEqual('threading', result.stdout.strip())

    def test_a_program_that_chose_a_backend_keeps_it(self):
        result = self._import(
            'from oslo_service import backend\n'
            'backend.init_backend(backend.BackendType.EVENTLET)\n')
        self.assertEqual(0, result.returncode, result.stderr)
        self.assertEqual('eventlet', result.stdout.strip())
