"""The shipped sample configuration matches the options in the code."""

import os

import fixtures
from oslo_config import generator
import testtools

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
GENERATOR_CONF = os.path.join(ROOT, 'tools', 'config',
                              'ironic-steps-config-generator.conf')
SAMPLE = os.path.join(ROOT, 'etc', 'ironic-steps',
                      'ironic-steps.conf.sample')


class ConfigSampleTest(testtools.TestCase):

    def test_sample_is_regenerated_after_every_option_change(self):
        fresh = os.path.join(self.useFixture(fixtures.TempDir()).path,
                             'fresh.conf')
        generator.main(['--config-file', GENERATOR_CONF,
                        '--output-file', fresh])
        with open(fresh) as f_fresh, open(SAMPLE) as f_sample:
            self.assertEqual(
                f_fresh.read(), f_sample.read(),
                'etc/ironic-steps/ironic-steps.conf.sample is stale; '
                'regenerate it with: .venv/bin/oslo-config-generator '
                '--config-file tools/config/'
                'ironic-steps-config-generator.conf')
