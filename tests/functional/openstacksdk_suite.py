"""Run openstacksdk's own bare-metal functional tests; print their outcomes.

::

    python -m tests.functional.openstacksdk_suite OUTCOMES.json

The suite (``openstack.tests.functional.baremetal``, shipped in the
openstacksdk wheel) is loaded and run unchanged, as its authors run it
against a devstack: which cloud it talks to comes from the environment
(``OS_CLIENT_CONFIG_FILE``, ``OS_CLOUD``, ``OPENSTACKSDK_*_CLOUD``), which
:mod:`test_openstacksdk_suite` sets.  This module only records each test's
outcome, ``{test id: [outcome, detail]}`` with outcome ``success``,
``failure``, ``error`` or ``skip`` (detail: the traceback or the skip
reason), as JSON in the file named on its command line, so that the test
that starts the service can judge them in its own process.
"""

import importlib
import json
import os
import sys
import unittest

SUITE = 'openstack.tests.functional.baremetal'


class _Outcomes(unittest.TextTestResult):

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.outcomes = {}

    def addSuccess(self, test):
        super().addSuccess(test)
        self.outcomes[test.id()] = ['success', '']

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.outcomes[test.id()] = ['failure', self.failures[-1][1]]

    def addError(self, test, err):
        super().addError(test, err)
        self.outcomes[test.id()] = ['error', self.errors[-1][1]]

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.outcomes[test.id()] = ['skip', reason]

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.outcomes[test.id()] = ['failure', 'unexpected success']


def main(outcomes_path, pattern=None):
    package = importlib.import_module(SUITE)
    start = os.path.dirname(package.__file__)
    top = start
    for _ in SUITE.split('.'):
        top = os.path.dirname(top)
    suite = unittest.defaultTestLoader.discover(start, top_level_dir=top)
    tests = unittest.TestSuite()
    for test in _flatten(suite):
        if pattern is None or pattern in test.id():
            tests.addTest(test)
    runner = unittest.TextTestRunner(resultclass=_Outcomes, verbosity=2)
    result = runner.run(tests)
    with open(outcomes_path, 'w') as out:
        json.dump(result.outcomes, out, indent=1, sort_keys=True)


def _flatten(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _flatten(item)
        else:
            yield item


if __name__ == '__main__':
    main(*sys.argv[1:])
