"""Ephemeral runs, as their user runs them: real ``ironic-steps run`` and
``ironic-steps inspect`` processes on inventories of fake nodes, the dump
restored with the real ``sqlite3`` tool, the saved run read with the real
``openstack baremetal`` client."""

import json
import os
import signal
import socket
import sqlite3
import stat
import subprocess
import time
import urllib.error
import urllib.request

import ddt
import fixtures
import sqlalchemy as sa
import testtools
import yaml

from ironic_steps.ephemeral import evidence
from tests.functional import fixtures as functional
from tests import mariadb
from tests import postgresql
from tests.redfish_emulator.fixture import RedfishEmulator

IRONIC_STEPS = os.path.join(functional.BIN, 'ironic-steps')
TEMPLATE = 'CUSTOM_BIOS_TUNED'
SECRET = 'bmc-secret-value'


def fake_node(name, **fields):
    node = {'name': name, 'driver': 'fake-hardware',
            'driver_info': {'fake_password': SECRET},
            'properties': {'cpus': 8},
            'instance_info': {'image_source': 'http://127.0.0.1/img.qcow2'}}
    node.update(fields)
    return node


class EphemeralRunTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.state_path = os.path.join(self.tmp, 'state')
        self.config = self.write_config()

    def write_config(self, name='run.conf', **sections):
        values = {'DEFAULT': {'state_path': self.state_path},
                  'fake': {'agent_delay': 0.05}}
        for section, options in sections.items():
            values.setdefault(section, {}).update(options)
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as conf:
            for section, options in values.items():
                conf.write('[%s]\n' % section)
                conf.writelines('%s = %s\n' % item for item in options.items())
        return path

    def write_inventory(self, nodes, templates=None, name='rack.yaml'):
        path = os.path.join(self.tmp, name)
        data = {'nodes': nodes}
        if templates is not None:
            data['deploy_templates'] = templates
        with open(path, 'w') as stream:
            yaml.safe_dump(data, stream)
        return path

    def run_command(self, *args, config=None, timeout=180):
        return subprocess.run(
            [IRONIC_STEPS, '--config-file', config or self.config] +
            list(args), capture_output=True, text=True, timeout=timeout)

    def read_json(self, *parts):
        with open(os.path.join(*parts)) as stream:
            return json.load(stream)


class RunToTheEndTest(EphemeralRunTestCase):
    """Every node deploys; the evidence is kept and can be looked at."""

    def setUp(self):
        super().setUp()
        templates = [{'name': TEMPLATE, 'steps': [
            {'interface': 'bios', 'step': 'apply_configuration',
             'priority': 95,
             'args': {'settings': [{'name': 'LogicalProc',
                                    'value': 'Disabled'}]}}]}]
        nodes = [fake_node('rack-0', deploy_templates=[TEMPLATE]),
                 fake_node('rack-1', deploy_steps=[
                     {'interface': 'raid', 'step': 'apply_configuration',
                      'priority': 90,
                      'args': {'raid_config': {'logical_disks': [
                          {'size_gb': 100, 'raid_level': '1'}]}}}]),
                 fake_node('rack-2', traits=['CUSTOM_GPU'])]
        self.inventory = self.write_inventory(nodes, templates)
        self.run_dir = os.path.join(self.tmp, 'run')
        self.result = self.run_command('run', self.inventory,
                                       '--run-dir', self.run_dir)

    def test_every_node_is_active_and_the_evidence_is_kept(self):
        self.assertEqual(0, self.result.returncode, self.result.stderr
                         + self.result.stdout)
        self.assertIn('All 3 nodes are active.', self.result.stdout)
        self.assertIn(self.run_dir, self.result.stdout)
        self.assertEqual(
            ['dump.sql', 'inventory.json', 'ironic-steps.log', 'report.json'],
            sorted(os.listdir(self.run_dir)))
        report = self.read_json(self.run_dir, 'report.json')
        self.assertEqual('succeeded', report['outcome'])
        self.assertEqual({'active': 3}, report['states'])
        by_name = {node['name']: node for node in report['nodes']}
        steps = {name: [step['step'] for step in node['steps']]
                 for name, node in by_name.items()}
        # The template's and the user's steps ran where they were asked.
        self.assertIn('bios.apply_configuration', steps['rack-0'])
        self.assertNotIn('bios.apply_configuration', steps['rack-1'])
        self.assertIn('raid.apply_configuration', steps['rack-1'])
        self.assertNotIn('raid.apply_configuration', steps['rack-2'])
        for node in report['nodes']:
            self.assertEqual({'success'}, {step['outcome']
                                           for step in node['steps']})
            for step in node['steps']:
                self.assertGreaterEqual(step['duration'], 0)
                self.assertLessEqual(step['started_at'],
                                     step['finished_at'])
            self.assertEqual('******', node['driver_info']['fake_password'])
        with open(os.path.join(self.run_dir, 'report.json')) as stream:
            self.assertNotIn(SECRET, stream.read())
        with open(os.path.join(self.run_dir, 'ironic-steps.log')) as log:
            self.assertIn('started', log.read())

    def test_the_evidence_is_readable_by_its_owner_alone(self):
        # The dump and the inventory hold the BMC passwords as given.
        self.assertEqual(0, self.result.returncode, self.result.stderr)
        self.assertEqual(0o700, stat.S_IMODE(os.stat(self.run_dir).st_mode))
        for name in os.listdir(self.run_dir):
            mode = stat.S_IMODE(os.stat(os.path.join(self.run_dir,
                                                     name)).st_mode)
            self.assertEqual(0, mode & 0o077, '%s is %o' % (name, mode))

    def test_the_dump_restores_with_sqlite3_to_what_the_report_says(self):
        restored = os.path.join(self.tmp, 'restored.sqlite')
        with open(os.path.join(self.run_dir, 'dump.sql')) as dump:
            subprocess.run(['sqlite3', restored], stdin=dump, check=True)
        report = self.read_json(self.run_dir, 'report.json')
        database = sqlite3.connect(restored)
        self.addCleanup(database.close)
        nodes = dict(database.execute(
            'SELECT name, provision_state FROM nodes'))
        self.assertEqual({node['name']: node['provision_state']
                          for node in report['nodes']}, nodes)
        (entries,) = database.execute(
            'SELECT count(*) FROM node_step_history').fetchone()
        self.assertEqual(sum(len(node['steps']) for node in report['nodes']),
                         entries)
        self.assertEqual([(TEMPLATE,)], database.execute(
            'SELECT name FROM deploy_templates').fetchall())

    def test_inspect_prints_the_report_as_a_table(self):
        shown = self.run_command('inspect', self.run_dir, '--report')
        self.assertEqual(0, shown.returncode, shown.stderr)
        lines = shown.stdout.splitlines()
        self.assertIn('succeeded', lines[0])
        for name in ('rack-0', 'rack-1', 'rack-2'):
            row = next(line for line in lines if line.startswith(name))
            self.assertIn('active', row)

    def test_inspect_serves_the_run_read_only_to_the_openstack_client(self):
        port = functional.free_port()
        process = subprocess.Popen(
            [IRONIC_STEPS, '--config-file', self.config, 'inspect',
             self.run_dir, '--port', str(port)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(self._stop, process)
        endpoint = 'http://127.0.0.1:%d' % port
        self._wait_for(endpoint, process)
        client = functional.OpenStackClient(endpoint)
        listed = client.json('node', 'list', '--fields', 'name',
                             'provision_state')
        self.assertEqual({('rack-0', 'active'), ('rack-1', 'active'),
                          ('rack-2', 'active')},
                         {(node['name'], node['provision_state'])
                          for node in listed})
        shown = client.json('node', 'show', 'rack-0')
        self.assertEqual('******', shown['driver_info']['fake_password'])
        self.assertIn(TEMPLATE, shown['instance_info']['traits'])
        history = client.json('node', 'step', 'history', 'rack-1')
        self.assertIn('raid.apply_configuration',
                      {entry['Step'] for entry in history})
        refused = client.run('node', 'set', 'rack-0', '--name', 'renamed',
                             check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('read-only', refused.stderr)
        request = urllib.request.Request(
            endpoint + '/v1/nodes/rack-0/states/provision', method='PUT',
            data=b'{"target": "deleted"}',
            headers={'Content-Type': 'application/json'})
        error = self.assertRaises(urllib.error.HTTPError,
                                  urllib.request.urlopen, request)
        self.assertEqual(403, error.code)
        fault = json.loads(json.loads(error.read())['error_message'])
        self.assertIn('read-only', fault['faultstring'])
        self.assertEqual('active',
                         client.json('node', 'show', 'rack-0')[
                             'provision_state'])
        # An agent's lookup is a GET that stores a new token: refused too.
        lookup = urllib.request.Request(
            endpoint + '/v1/lookup?node_uuid=%s' % shown['uuid'],
            headers={'X-OpenStack-Ironic-API-Version': '1.69'})
        error = self.assertRaises(urllib.error.HTTPError,
                                  urllib.request.urlopen, lookup)
        self.assertEqual(403, error.code)
        # The run directory is never written.
        self.assertEqual(
            ['dump.sql', 'inventory.json', 'ironic-steps.log', 'report.json'],
            sorted(os.listdir(self.run_dir)))

    def test_inspect_on_a_port_in_use_says_so(self):
        with socket.socket() as taken:
            taken.bind(('127.0.0.1', 0))
            taken.listen(1)
            port = taken.getsockname()[1]
            shown = self.run_command('inspect', self.run_dir,
                                     '--port', str(port))
        self.assertEqual(2, shown.returncode, shown.stderr)
        self.assertIn('ironic-steps inspect: cannot serve on 127.0.0.1:%d: '
                      'Address already in use' % port, shown.stderr)
        self.assertNotIn('Traceback', shown.stderr)

    def test_inspect_refuses_a_port_that_cannot_be(self):
        for port in ('99999', '-1', 'http', '\u00b2'):
            shown = self.run_command('inspect', self.run_dir, '--port', port)
            self.assertEqual(2, shown.returncode, shown.stderr)
            self.assertIn('a port is a number from 0 to 65535, not %r'
                          % port, shown.stderr)
            self.assertNotIn('Traceback', shown.stderr)

    def _wait_for(self, endpoint, process, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                self.fail('inspect exited %s: %s' % (process.returncode,
                                                     process.stderr.read()))
            try:
                urllib.request.urlopen(endpoint + '/v1', timeout=1)
                return
            except OSError:
                time.sleep(0.1)
        self.fail('inspect did not serve %s' % endpoint)

    @staticmethod
    def _stop(process):
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
        process.stdout.close()
        process.stderr.close()


class FailedNodeTest(EphemeralRunTestCase):

    def test_a_failing_step_is_named_with_its_node_and_error(self):
        failing = fake_node('bad-1')
        failing['driver_info']['fake_fail_step'] = 'boot.prepare_instance_boot'
        inventory = self.write_inventory([fake_node('good-1'), failing])
        run_dir = os.path.join(self.tmp, 'run')
        result = self.run_command('run', inventory, '--run-dir', run_dir)
        self.assertEqual(1, result.returncode, result.stderr)
        failed = [line for line in result.stdout.splitlines()
                  if line.startswith('FAILED')]
        self.assertEqual(1, len(failed), result.stdout)
        self.assertIn('bad-1: deploy failed, at step '
                      'boot.prepare_instance_boot: ', failed[0])
        self.assertIn('simulated failure', failed[0])
        report = self.read_json(run_dir, 'report.json')
        self.assertEqual('failed', report['outcome'])
        bad = next(node for node in report['nodes']
                   if node['name'] == 'bad-1')
        self.assertEqual(('boot.prepare_instance_boot', 'failed'),
                         (bad['steps'][-1]['step'],
                          bad['steps'][-1]['outcome']))
        self.assertIn('simulated failure', bad['steps'][-1]['error'])
        self.assertEqual({'active': 1, 'deploy failed': 1}, report['states'])
        self.assertFalse(os.path.exists(os.path.join(run_dir,
                                                     'live.sqlite')))


class FixedAndResumedTest(EphemeralRunTestCase):

    def test_a_node_fixed_in_the_inventory_resumes_from_its_failed_step(
            self):
        failing = fake_node('flaky')
        failing['driver_info']['fake_fail_step'] = 'deploy.write_image'
        inventory = self.write_inventory([fake_node('steady'), failing])
        run_dir = os.path.join(self.tmp, 'run')
        first = self.run_command('run', inventory, '--run-dir', run_dir)
        self.assertEqual(1, first.returncode, first.stderr)
        # The fix: the run directory's inventory, edited.
        saved = os.path.join(run_dir, 'inventory.json')
        spec = self.read_json(saved)
        del spec['nodes'][1]['driver_info']['fake_fail_step']
        with open(saved, 'w') as stream:
            json.dump(spec, stream)
        resumed = self.run_command('run', '--resume', run_dir)
        self.assertEqual(0, resumed.returncode, resumed.stdout
                         + resumed.stderr)
        report = self.read_json(run_dir, 'report.json')
        flaky = next(node for node in report['nodes']
                     if node['name'] == 'flaky')
        self.assertEqual('active', flaky['provision_state'])
        self.assertNotIn('fake_fail_step', flaky['driver_info'])
        deploy = [step for step in flaky['steps'] if step['flow'] == 'deploy']
        outcomes = [(step['step'], step['outcome']) for step in deploy]
        failed_at = outcomes.index(('deploy.write_image', 'failed'))
        # Resumed at the failed step: it ran again and succeeded, and the
        # steps before it were not run a second time.
        self.assertEqual(('deploy.write_image', 'success'),
                         outcomes[failed_at + 1])
        before = [name for name, _ in outcomes[:failed_at]]
        self.assertTrue(before)
        for name in before:
            self.assertEqual(1, [step for step, _ in outcomes].count(name),
                             outcomes)


class BadInventoryTest(EphemeralRunTestCase):

    def test_every_problem_is_named_before_anything_starts(self):
        inventory = self.write_inventory(
            [{'name': 'n1', 'driver_info': []},
             fake_node('n2', deploy_templates=['CUSTOM_NOPE'], colour='red'),
             fake_node('n2')])
        run_dir = os.path.join(self.tmp, 'run')
        result = self.run_command('run', inventory, '--run-dir', run_dir)
        self.assertEqual(2, result.returncode)
        self.assertIn('%s: node n1 (#1): driver: required' % inventory,
                      result.stderr)
        self.assertIn('node n1 (#1): driver_info: must be a mapping',
                      result.stderr)
        self.assertIn('node n2 (#2): deploy_templates: CUSTOM_NOPE is not '
                      'a template of this inventory', result.stderr)
        self.assertIn('node n2 (#2): unknown field(s) colour', result.stderr)
        self.assertIn('node n2 (#3): name: n2 is also the name of node #2',
                      result.stderr)
        self.assertFalse(os.path.exists(run_dir))
        self.assertFalse(os.path.exists(self.state_path))

    def test_a_node_the_api_refuses_stops_the_run_before_provisioning(self):
        inventory = self.write_inventory([fake_node('fine'),
                                          fake_node('odd', driver='nope')])
        run_dir = os.path.join(self.tmp, 'run')
        result = self.run_command('run', inventory, '--run-dir', run_dir)
        self.assertEqual(1, result.returncode)
        self.assertIn('%s: node odd (#2): the API refused it: ' % inventory,
                      result.stdout)
        self.assertIn('nope', result.stdout)
        self.assertIn('nothing was provisioned', result.stdout)
        report = self.read_json(run_dir, 'report.json')
        self.assertEqual('refused', report['outcome'])
        self.assertEqual({'enroll': 1}, report['states'])

    def test_a_missing_file_is_named(self):
        result = self.run_command('run', os.path.join(self.tmp, 'no.yaml'))
        self.assertEqual(2, result.returncode)
        self.assertIn('no.yaml: cannot be read', result.stderr)

    def test_pinned_before_ephemeral_runs_they_are_refused(self):
        pinned = self.write_config('pinned.conf', DEFAULT={
            'pin_release_version': '0.6'})
        result = self.run_command(
            'run', self.write_inventory([fake_node('n1')]), config=pinned)
        self.assertEqual(2, result.returncode)
        self.assertIn('Ephemeral runs came with release 0.7', result.stderr)


class DryRunTest(EphemeralRunTestCase):

    def test_the_plan_of_each_node_is_shown_and_nothing_is_kept(self):
        inventory = self.write_inventory(
            [fake_node('plain'),
             fake_node('stepped', deploy_steps=[
                 {'interface': 'raid', 'step': 'apply_configuration',
                  'priority': 90, 'args': {'raid_config': {
                      'logical_disks': [
                          {'size_gb': 100, 'raid_level': '1'}]}}}]),
             fake_node('wrong', deploy_steps=[
                 {'interface': 'raid', 'step': 'no_such_step',
                  'priority': 90, 'args': {}}])])
        result = self.run_command('run', inventory, '--dry-run')
        self.assertEqual(1, result.returncode, result.stderr)
        plans = result.stdout.split('\n')
        stepped = plans[plans.index(next(line for line in plans
                                         if line.startswith('stepped:'))):]
        self.assertIn('raid.apply_configuration  (user)',
                      '\n'.join(stepped[:12]))
        self.assertIn('deploy.deploy  (driver)', result.stdout)
        wrong = result.stdout[result.stdout.index('wrong:'):]
        self.assertIn('ERROR: ', wrong)
        self.assertIn('no_such_step', wrong)
        self.assertNotIn('ERROR', result.stdout[:result.stdout.index(
            'wrong:')])
        self.assertIn('2 of 3 nodes would deploy.', result.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.state_path,
                                                     'runs')))


def _communicate_or_show_stacks(process, timeout):
    """``process.communicate``; if it does not end in time, what its
    threads were doing (SIGUSR1: every stack to stderr) is the failure."""
    try:
        return process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGUSR1)
        time.sleep(2)
        process.kill()
        _out, errors = process.communicate()
        raise AssertionError('still running after %s s; its threads:\n%s'
                             % (timeout, errors[-20000:]))


class InterruptedRunTest(EphemeralRunTestCase):

    def _start_slow_run(self, nodes):
        """A run of ``nodes`` slow nodes, once the first deploys: (the
        process, its run directory, the configuration file)."""
        # Parked for its agent 5 s: a deploy that a signal finds waiting
        # stays waiting, for the resume to take over.
        slow = self.write_config('slow.conf', fake={'step_delay': 0.1,
                                                    'agent_delay': 5})
        inventory = self.write_inventory(
            [fake_node('slow-%d' % number) for number in range(nodes)])
        run_dir = os.path.join(self.tmp, 'run')
        process = subprocess.Popen(
            [IRONIC_STEPS, '--config-file', slow, 'run', inventory,
             '--run-dir', run_dir],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            # As a shell starts a command: its own process group, the
            # one a terminal's Ctrl-C is sent to.
            start_new_session=True)
        self.addCleanup(lambda: process.poll() is None and process.kill())
        for line in process.stdout:
            if line.endswith(' deploying\n'):
                break
        return process, run_dir, slow

    def test_sigint_saves_the_evidence_and_resume_finishes_the_run(self):
        process, run_dir, slow = self._start_slow_run(6)
        os.killpg(process.pid, signal.SIGINT)   # Ctrl-C
        rest, errors = _communicate_or_show_stacks(process, timeout=120)
        self.assertEqual(128 + signal.SIGINT, process.returncode, errors)
        self.assertNotIn('Traceback', errors)
        self.assertIn('Interrupted by SIGINT', rest)
        self.assertIn('Carry on with: ironic-steps run --resume %s'
                      % run_dir, rest)
        report = self.read_json(run_dir, 'report.json')
        self.assertEqual('interrupted', report['outcome'])
        self.assertEqual('SIGINT', report['interrupted_by'])
        unfinished = [node['name'] for node in report['nodes']
                      if node['provision_state'] != 'active']
        self.assertTrue(unfinished)
        # The node seen deploying rests waiting for its agent.
        self.assertIn('wait call-back', report['states'])
        # No step was cut short: each ended, or the node waits for its
        # agent, parked, to be taken over by the next run.
        for node in report['nodes']:
            self.assertNotIn(node['provision_state'],
                             ('deploy failed', 'clean failed'))
        self.assertFalse(os.path.exists(os.path.join(run_dir,
                                                     'live.sqlite')))

        resumed = self.run_command('run', '--resume', run_dir, config=slow)
        self.assertEqual(0, resumed.returncode, resumed.stdout
                         + resumed.stderr)
        self.assertIn('All 6 nodes are active.', resumed.stdout)
        report = self.read_json(run_dir, 'report.json')
        self.assertEqual(('succeeded', True),
                         (report['outcome'], report['resumed']))
        self.assertEqual({'active': 6}, report['states'])
        for node in report['nodes']:
            deploys = {step['flow_run'] for step in node['steps']
                       if step['flow'] == 'deploy'}
            # Each node deployed once: the resume carried the
            # interrupted deploys on rather than starting them again.
            self.assertEqual(1, len(deploys), node['name'])

    def test_sigterm_stops_the_run_and_its_driver(self):
        process, run_dir, _ = self._start_slow_run(3)
        # The process that drives the nodes, beside the service's.
        with open('/proc/%d/task/%d/children' % (process.pid,
                                                 process.pid)) as listed:
            (driver,) = [int(pid) for pid in listed.read().split()]
        process.send_signal(signal.SIGTERM)   # not its driver: a service
        rest, errors = _communicate_or_show_stacks(process, timeout=120)
        self.assertEqual(128 + signal.SIGTERM, process.returncode, errors)
        self.assertIn('Interrupted by SIGTERM', rest)
        report = self.read_json(run_dir, 'report.json')
        self.assertEqual(('interrupted', 'SIGTERM'),
                         (report['outcome'], report['interrupted_by']))
        self.assertIn('wait call-back', report['states'])
        self.assertFalse(os.path.exists(os.path.join(run_dir,
                                                     'live.sqlite')))
        # The driver ended with the run, and was reaped by it.
        self.assertFalse(os.path.exists('/proc/%d' % driver))

    def test_resume_refuses_a_directory_that_is_not_a_run(self):
        result = self.run_command('run', '--resume', self.tmp)
        self.assertEqual(2, result.returncode)
        self.assertIn('is not the directory of a run', result.stderr)


@ddt.ddt
class ServerDatabaseRunTest(EphemeralRunTestCase):
    """A large run's database: an empty PostgreSQL or MariaDB one, dumped
    with the server's own tool (pg_dump, mysqldump) and emptied at the
    end."""

    @ddt.data((postgresql.PostgreSQLServer, 'postgresql'),
              (mariadb.MariaDBServer, 'mysql'))
    @ddt.unpack
    def test_the_run_dumps_the_database_and_drops_its_tables(self, kind,
                                                             dialect):
        kind.require(self)
        self.server = kind.shared()
        url = self.server.url()
        inventory = self.write_inventory([fake_node('db-%d' % number)
                                          for number in range(3)])
        run_dir = os.path.join(self.tmp, 'run')
        result = self.run_command('run', inventory, '--run-dir', run_dir,
                                  '--database-connection', url)
        self.assertEqual(0, result.returncode, result.stdout + result.stderr)
        report = self.read_json(run_dir, 'report.json')
        self.assertEqual({'active': 3}, report['states'])
        self.assertTrue(report['database'].startswith(dialect))
        self.assertEqual([], evidence.tables(url))
        # Restored with the server's client into another empty database:
        # the same nodes.
        copy = self.server.url()
        evidence.restore(os.path.join(run_dir, 'dump.sql'), copy)
        engine = sa.create_engine(copy)
        self.addCleanup(engine.dispose)
        with engine.connect() as connection:
            rows = connection.execute(sa.text(
                'SELECT name, provision_state FROM nodes')).fetchall()
        self.assertEqual({('db-0', 'active'), ('db-1', 'active'),
                          ('db-2', 'active')}, set(map(tuple, rows)))
        # A database with tables is refused: a run never reads another's
        # state, and never drops what it did not make.
        again = self.run_command('run', inventory, '--database-connection',
                                 copy)
        self.assertEqual(2, again.returncode)
        self.assertIn('is not empty', again.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.state_path,
                                                     'runs')) and os.listdir(
            os.path.join(self.state_path, 'runs')))


class RedfishInventoryTest(EphemeralRunTestCase):
    """The Redfish lab driven by an inventory: sushy-tools' emulator is
    the BMC, and what the deploy did is read back from it."""

    def test_an_inventory_of_redfish_nodes_deploys_through_the_bmc(self):
        password = 'bmc-Pa55word-e1d7'
        emulator = self.useFixture(RedfishEmulator(
            systems=2, username='admin', password=password))
        boot_iso = 'http://127.0.0.1:9/images/instance.iso'
        config = self.write_config('redfish.conf', redfish={
            'power_state_poll_interval': 0.1, 'server_side_retries': 0,
            'connect_timeout': 2, 'read_timeout': 10},
            conductor={'step_poll_interval': 0.1})
        inventory = self.write_inventory([
            {'name': 'bmc-%d' % index, 'driver': 'redfish',
             'deploy_interface': 'ramdisk',
             'driver_info': {'redfish_address': emulator.address,
                             'redfish_system_id': system,
                             'redfish_username': 'admin',
                             'redfish_password': password},
             'instance_info': {'boot_iso': boot_iso}}
            for index, system in enumerate(emulator.system_ids)])
        run_dir = os.path.join(self.tmp, 'run')
        result = self.run_command('run', inventory, '--run-dir', run_dir,
                                  config=config)
        self.assertEqual(0, result.returncode, result.stdout + result.stderr)
        report = self.read_json(run_dir, 'report.json')
        self.assertEqual({'active': 2}, report['states'])
        for system in emulator.system_ids:
            media = emulator.virtual_media(system)
            self.assertEqual((boot_iso, True),
                             (media['Image'], media['Inserted']))
            self.assertEqual('On', emulator.power_state(system))
        for name in ('report.json', 'ironic-steps.log'):
            with open(os.path.join(run_dir, name)) as stream:
                self.assertNotIn(password, stream.read(), name)
