"""A node's history (API 1.78): its step history, shown as Ironic shows
node history events.

Through the real API, a real conductor and its step runner, real SQLite;
the steps belong to test-only hardware (:class:`tests.plugins.
HardwarePlugin`).
"""

import datetime
import urllib.parse

from ironic_steps.api import policy
from ironic_steps.common import states
from ironic_steps.drivers import base
from tests import base as tests_base
from tests import plugins
from tests.unit.api import base as api_base

VERSION = '1.78'
LIST_FIELDS = {'uuid', 'created_at', 'severity', 'event', 'links'}
ALL_FIELDS = LIST_FIELDS | {'event_type', 'conductor', 'user'}


class ThreeSteps(base.DeployInterface):

    @base.deploy_step(priority=90)
    def partition(self, task):
        pass

    @base.deploy_step(priority=80)
    def write_image(self, task):
        pass

    @base.deploy_step(priority=70)
    def configure(self, task):
        pass


class FailingDeploy(base.DeployInterface):

    def __init__(self, message='image checksum mismatch'):
        self.message = message

    @base.deploy_step(priority=90)
    def partition(self, task):
        pass

    @base.deploy_step(priority=50)
    def write_image(self, task):
        raise RuntimeError(self.message)


class BrokenCleaning(base.DeployInterface):
    """Cleaning fails before its first step: what runs it never boots."""

    @base.clean_step(priority=10)
    def erase_devices(self, task):
        pass

    def prepare_cleaning(self, task):
        raise RuntimeError('no DHCP answer on the provisioning network')


class _NodeHistoryTestBase(api_base.ApiTestCase):

    def use_hardware(self, deploy):
        self.useFixture(plugins.HardwarePlugin('test-hw', deploy=deploy))

    def deployed(self, deploy, state=states.ACTIVE):
        """A node of test hardware with ``deploy``, after a deploy."""
        self.use_hardware(deploy)
        node = self.make_available(driver='test-hw')
        response = self.provision(node.uuid, 'active')
        self.assertEqual(202, response.status_code, response.data)
        return self.wait_for_state(node, state)

    def get_ok(self, path, version=VERSION):
        response = self.get(path, version=version)
        self.assertEqual(200, response.status_code, response.data)
        return response.get_json()

    def history(self, node, query='', version=VERSION):
        return self.get_ok('/v1/nodes/%s/history%s' % (node.uuid, query),
                           version)

    def events(self, node, query=''):
        return self.history(node, query)['history']


class NodeHistoryTest(_NodeHistoryTestBase):

    def test_a_deploy_whose_step_fails_shows_an_error_event(self):
        # Given a deploy whose second step failed
        failed = self.deployed(FailingDeploy(), states.DEPLOYFAIL)
        # When its history is listed
        events = self.events(failed)
        # Then each step is an event, oldest first, the failed one an error
        self.assertEqual(['INFO', 'ERROR'], [e['severity'] for e in events])
        self.assertRegex(events[0]['event'],
                         r'^Deploy step deploy\.partition succeeded in '
                         r'[\d.]+ seconds$')
        self.assertRegex(events[1]['event'],
                         r'^Deploy step deploy\.write_image failed after '
                         r'[\d.]+ seconds: RuntimeError: image checksum '
                         r'mismatch$')
        self.assertIn('image checksum mismatch', failed.last_error)
        # a plain list showing Ironic's four fields and a self link
        self.assertEqual([LIST_FIELDS] * 2, [set(e) for e in events])
        self.assertEqual(
            [{'rel': 'self', 'href': 'http://localhost/v1/nodes/%s/history/%s'
              % (failed.uuid, events[1]['uuid'])}], events[1]['links'])
        self.assertLessEqual(events[0]['created_at'], events[1]['created_at'])
        self.assertEqual(datetime.timezone.utc, datetime.datetime.fromisoformat(
            events[1]['created_at']).tzinfo)

    def test_a_detailed_list_and_one_event_show_every_field(self):
        node = self.deployed(FailingDeploy(), states.DEPLOYFAIL)
        detailed = self.events(node, '?detail=True')
        self.assertEqual([ALL_FIELDS] * 2, [set(e) for e in detailed])
        self.assertEqual({'deploying'}, {e['event_type'] for e in detailed})
        # Not recorded by the step history: shown as unknown
        self.assertEqual({None}, {e['conductor'] for e in detailed}
                         | {e['user'] for e in detailed})
        # When one event is read, it is the detailed list's
        shown = self.get_ok('/v1/nodes/%s/history/%s'
                            % (node.name or node.uuid, detailed[1]['uuid']))
        self.assertEqual(detailed[1], shown)

    def test_a_long_event_is_cut_in_a_plain_list_only(self):
        node = self.deployed(FailingDeploy('x' * 400), states.DEPLOYFAIL)
        cut = self.events(node)[1]['event']
        self.assertEqual(254, len(cut))
        self.assertTrue(cut.endswith('x...'))
        whole = self.events(node, '?detail=true')[1]['event']
        self.assertTrue(whole.endswith('x' * 400))
        self.assertTrue(whole.startswith(cut[:-3]))

    def test_cleaning_failing_before_its_first_step_is_an_event_too(self):
        # Given automated cleaning whose ramdisk cannot be booted
        self.use_hardware(BrokenCleaning())
        node = self.create_node(driver='test-hw')
        self.assertEqual(202, self.provision(node.uuid, 'manage')
                         .status_code)
        self.wait_for_state(node, states.MANAGEABLE)
        self.assertEqual(202, self.provision(node.uuid, 'provide')
                         .status_code)
        failed = self.wait_for_state(node, states.CLEANFAIL)
        # Then the history says why, as an error of cleaning
        (event,) = self.events(node, '?detail=True')
        self.assertEqual(('ERROR', 'cleaning'),
                         (event['severity'], event['event_type']))
        self.assertEqual('Cleaning failed before its first step: '
                         + failed.last_error, event['event'])
        self.assertIn('no DHCP answer', event['event'])
        # and the step history, which lists steps, has none
        response = self.get('/v1/nodes/%s/x-steps/history' % node.uuid)
        self.assertEqual([], response.get_json()['history'])

    def test_events_are_paged_with_limit_and_marker(self):
        # Given a node deployed twice: six events
        node = self.deployed(ThreeSteps())
        self.assertEqual(202, self.provision(node.uuid, 'rebuild')
                         .status_code)
        self.wait_for_state(node, states.ACTIVE)
        every = [e['uuid'] for e in self.events(node)]
        self.assertEqual(6, len(every))
        # When they are read two at a time, following the next links
        seen, query = [], '?limit=2&fields=uuid,severity'
        while query is not None:
            page = self.history(node, query)
            seen.append([e['uuid'] for e in page['history']])
            for event in page['history']:
                self.assertEqual({'uuid', 'severity', 'links'}, set(event))
            query = ('?' + urllib.parse.urlsplit(page['next']).query
                     if 'next' in page else None)
        # Then every event comes once, in order, and the last page is
        # empty (a full page cannot know it is the last)
        self.assertEqual([every[0:2], every[2:4], every[4:6], []], seen)
        # newest first, and from a marker
        self.assertEqual(every[::-1],
                         [e['uuid'] for e in self.events(node,
                                                         '?sort_dir=desc')])
        self.assertEqual(every[3:], [e['uuid'] for e in self.events(
            node, '?marker=%s&sort_key=uuid' % every[2])])
        self.assertEqual(sorted(every), every)

    def test_fields_pick_what_an_event_shows(self):
        node = self.deployed(FailingDeploy(), states.DEPLOYFAIL)
        listed = self.events(node, '?fields=event_type,user')
        self.assertEqual([{'event_type', 'user', 'links'}] * 2,
                         [set(e) for e in listed])
        uuid = self.events(node)[0]['uuid']
        shown = self.get_ok('/v1/nodes/%s/history/%s?fields=severity'
                            % (node.uuid, uuid))
        self.assertEqual({'severity': 'INFO'},
                         {k: v for k, v in shown.items() if k != 'links'})

    def test_reading_a_page_is_one_query_of_the_history(self):
        node = self.deployed(ThreeSteps())
        recorded = self.useFixture(tests_base.SQLStatements())
        self.events(node)
        self.assertEqual(1, len([s for s in recorded.statements
                                 if 'node_step_history' in s]))


class RefusalTest(_NodeHistoryTestBase):

    def setUp(self):
        super().setUp()
        self.node = self.deployed(FailingDeploy(), states.DEPLOYFAIL)
        self.path = '/v1/nodes/%s/history' % self.node.uuid
        self.event = self.events(self.node)[0]['uuid']

    def test_below_1_78_the_paths_do_not_exist(self):
        for path in (self.path, self.path + '/' + self.event):
            self.assertError(self.get(path, version='1.77'), 404,
                             'needs API version 1.78')

    def test_an_unknown_event_is_404_naming_it(self):
        for event in ('52949728-59fc-4651-84c8-b0a16b469372', 'no-such',
                      self.event[:-1] + 'f'):
            self.assertError(self.get(self.path + '/' + event,
                                      version=VERSION),
                             404, 'Node history record %s of node %s could '
                             'not be found' % (event, self.node.uuid))

    def test_an_event_of_another_node_is_not_found_under_this_one(self):
        other = self.create_node(name='other')
        self.assertError(
            self.get('/v1/nodes/other/history/%s' % self.event,
                     version=VERSION), 404, self.event, other.uuid)

    def test_an_unknown_node_is_404(self):
        self.assertError(self.get('/v1/nodes/no-such-node/history',
                                  version=VERSION), 404, 'no-such-node')

    def test_bad_query_parameters_are_400_naming_the_problem(self):
        cases = [
            ('?limit=0', 'limit must be a positive integer'),
            ('?marker=nope', 'marker must be the UUID'),
            ('?marker=52949728-59fc-4651-84c8-b0a16b469372',
             'is not the UUID of an event of node %s' % self.node.uuid),
            ('?sort_key=severity',
             "sort_key must be one of created_at, uuid, got 'severity'"),
            ('?sort_dir=up', "sort_dir must be 'asc' or 'desc'"),
            ('?detail=maybe', 'detail must be true or false'),
            # (project is a field from 1.113: 406, LaterHistoryFieldsTest)
            ('?fields=uuid,colour', 'colour'),
            ('?fields=uuid&detail=true', 'cannot be combined'),
            ('?flow=deploy', 'Unknown query parameter(s) flow'),
        ]
        for query, fragment in cases:
            self.assertError(self.get(self.path + query, version=VERSION),
                             400, fragment)
        self.assertError(self.get('%s/%s?detail=true' % (self.path,
                                                         self.event),
                                  version=VERSION), 400, 'detail')

    def test_whoever_may_read_a_nodes_last_error_may_read_its_history(self):
        # As in Ironic 39: the system's readers and the owner's, not the
        # lessee's (history tells of the infrastructure, as last_error).
        rules = {r.name: r for r in policy.list_rules()}
        self.assertEqual(
            rules['baremetal:node:get:last_error'].check_str,
            rules['baremetal:node:history:get'].check_str)


class PinnedTest(_NodeHistoryTestBase):

    def test_pinned_to_0_9_the_paths_are_unknown(self):
        node = self.deployed(FailingDeploy(), states.DEPLOYFAIL)
        event = self.events(node)[0]['uuid']
        self.config(pin_release_version='0.9')
        for path in ('/v1/nodes/%s/history' % node.uuid,
                     '/v1/nodes/%s/history/%s' % (node.uuid, event)):
            for version in ('1.69', 'latest'):
                self.assertError(self.get(path, version=version), 404,
                                 'could not be found')


class LaterHistoryFieldsTest(api_base.AheadOfTheLadderMixin,
                             _NodeHistoryTestBase):
    """``project`` (1.113); ``state``, ``target_provision_state`` and
    ``duration_seconds`` (1.115): absent below their versions."""

    def test_each_field_appears_at_its_version(self):
        node = self.deployed(FailingDeploy(), states.DEPLOYFAIL)
        for version, fields in (
                ('1.112', ALL_FIELDS),
                ('1.113', ALL_FIELDS | {'project'}),
                ('1.115', ALL_FIELDS | {'project', 'state',
                                        'target_provision_state',
                                        'duration_seconds'})):
            events = self.history(node, '?detail=True', version)['history']
            self.assertEqual([fields] * 2, [set(e) for e in events], version)
        [ok, failed] = events
        self.assertEqual(('deploying', 'active', None),
                         (failed['state'], failed['target_provision_state'],
                          failed['project']))
        self.assertIsInstance(failed['duration_seconds'], int)
        self.assertEqual(failed, self.get_ok('/v1/nodes/%s/history/%s' % (
            node.uuid, failed['uuid']), version='1.115'))

    def test_asking_for_one_below_its_version_is_406(self):
        node = self.deployed(ThreeSteps())
        for field, version in (('project', '1.112'),
                               ('duration_seconds', '1.114')):
            response = self.get('/v1/nodes/%s/history?fields=uuid,%s'
                                % (node.uuid, field), version=version)
            self.assertError(response, 406, field)
        [event, *_rest] = self.history(
            node, '?fields=uuid,duration_seconds', '1.115')['history']
        self.assertEqual({'uuid', 'duration_seconds', 'links'}, set(event))
