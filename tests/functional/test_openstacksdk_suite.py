"""openstacksdk's bare-metal functional tests, unchanged, against our service.

openstacksdk ships the tests its authors run against a real Ironic
(``openstack/tests/functional/baremetal``); they are a client's view of
what "Ironic-compatible" means.  Here they run, in a process of their own
(:mod:`openstacksdk_suite`), against the all-in-one service, reached
through a clouds.yaml without authentication.  They must all pass, except
those that need a microversion above our maximum, which the suite skips
itself: :data:`NEEDS_A_LATER_MICROVERSION` lists them with the version.
"""

import collections
import json
import os
import subprocess
import sys

import fixtures
import testtools

from tests.functional import fixtures as functional

#: Test id prefix (module or class) -> the microversion it needs, above
#: ours (1.115): the suite skips these and only these (none: it must
#: run whole).
NEEDS_A_LATER_MICROVERSION = {}
_PREFIX = 'openstack.tests.functional.baremetal.v1.'
_CLOUD = 'ironic-steps'
#: The suite asks for these clouds by role; all are our service.
_ROLE_VARIABLES = ('OPENSTACKSDK_DEMO_CLOUD', 'OPENSTACKSDK_DEMO_CLOUD_ALT',
                   'OPENSTACKSDK_OPERATOR_CLOUD',
                   'OPENSTACKSDK_SYSTEM_ADMIN_CLOUD')


def clouds_yaml(endpoint):
    """A clouds.yaml naming our service (JSON is YAML)."""
    return json.dumps({'clouds': {_CLOUD: {
        'auth_type': 'none',
        'auth': {'endpoint': endpoint},
        'baremetal_endpoint_override': endpoint,
        # Without these the suite looks for flavors and images.
        'has_compute': False,
        'has_image': False,
    }}})


def needed_microversion(test_id):
    """The microversion a skipped test may need, or None if its skip is not
    one we allow."""
    for prefix, version in NEEDS_A_LATER_MICROVERSION.items():
        if test_id.startswith(_PREFIX + prefix + '.'):
            return version
    return None


class OpenStackSDKSuiteTest(testtools.TestCase):

    def run_suite(self, endpoint, pattern=None):
        temp = self.useFixture(fixtures.TempDir())
        config = temp.join('clouds.yaml')
        with open(config, 'w') as out:
            out.write(clouds_yaml(endpoint))
        outcomes_path = temp.join('outcomes.json')
        # The suite's own default is 5 s a test, which a loaded machine
        # misses; its functional runs (tox) allow far more.
        env = dict(os.environ, OS_CLIENT_CONFIG_FILE=config, OS_CLOUD=_CLOUD,
                   OS_TEST_TIMEOUT='120', OPENSTACKSDK_FUNC_TEST_TIMEOUT='60')
        env.update((name, _CLOUD) for name in _ROLE_VARIABLES)
        command = [sys.executable, '-m', 'tests.functional.openstacksdk_suite',
                   outcomes_path] + ([pattern] if pattern else [])
        result = subprocess.run(command, env=env, capture_output=True,
                                text=True, timeout=1800)
        if not os.path.exists(outcomes_path):
            self.fail('the suite did not run (%d): %s' % (
                result.returncode, result.stderr[-3000:]))
        with open(outcomes_path) as outcomes:
            return json.load(outcomes)

    def test_openstacksdk_baremetal_suite_passes_but_for_later_versions(self):
        service = self.useFixture(functional.AllInOneService(
            {'fake': {'agent_delay': 0},
             'conductor': {'node_locked_retry_interval': 0.1}}))
        outcomes = self.run_suite(service.endpoint)

        self.assertGreater(len(outcomes), 90, 'the suite is not all there')
        failed = [test for test, (outcome, _) in outcomes.items()
                  if outcome in ('failure', 'error')]
        self.assertEqual([], failed, summary(outcomes))
        wrongly_skipped = {
            test: reason for test, (outcome, reason) in outcomes.items()
            if outcome == 'skip' and (
                needed_microversion(test) is None
                or needed_microversion(test) not in reason)}
        self.assertEqual({}, wrongly_skipped)
        not_skipped = sorted(
            test for test, (outcome, _) in outcomes.items()
            if outcome != 'skip' and needed_microversion(test) is not None)
        self.assertEqual([], not_skipped,
                         'these run now: shrink NEEDS_A_LATER_MICROVERSION')


def summary(outcomes):
    """The counts, then each failed test with the last line of its
    traceback (what went wrong, without the noise)."""
    counts = collections.Counter(outcome for outcome, _ in outcomes.values())
    lines = [', '.join('%d %s' % (count, outcome)
                       for outcome, count in sorted(counts.items()))]
    for test, (outcome, detail) in sorted(outcomes.items()):
        if outcome in ('failure', 'error'):
            last = [line for line in detail.splitlines() if line.strip()]
            lines.append('%s: %s' % (test[len(_PREFIX):],
                                     last[-1][:300] if last else outcome))
    return '\n'.join(lines)
