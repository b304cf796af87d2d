"""An operator reads what happened to a node with the real `openstack`
CLI (``openstack baremetal node history list`` and ``history get``, API
1.78) against the real service."""

from tests.functional import fixtures as functional
from tests.functional import test_openstack_client


class NodeHistoryCLITest(test_openstack_client.CLITestCase):

    def test_a_failed_deploy_reads_as_events_the_last_an_error(self):
        # Given a node whose deploy failed at boot.prepare_instance_boot
        service, client = self.start_service()
        failed = self.failed_deploy(client, 'bad-node')
        # When the operator lists its history
        events = client.json('node', 'history', 'list', 'bad-node')
        # Then the cleaning that made it available, then the deploy's
        # steps, the failed one last, as an error naming the failure
        self.assertEqual({'uuid', 'created_at', 'severity', 'event'},
                         set(events[0]))
        self.assertEqual(['INFO'] * (len(events) - 1) + ['ERROR'],
                         [event['severity'] for event in events])
        self.assertIn('erase_devices_metadata succeeded', events[0]['event'])
        self.assertIn('Deploy step boot.prepare_instance_boot failed after',
                      events[-1]['event'])
        self.assertIn(failed['last_error'].split(': ', 1)[1],
                      events[-1]['event'])
        # and in detail, each event says which flow it belongs to
        long = client.json('node', 'history', 'list', 'bad-node', '--long')
        self.assertEqual(['cleaning'] + ['deploying'] * (len(long) - 1),
                         [event['event_type'] for event in long])
        # When they read the failed event alone
        shown = client.json('node', 'history', 'get', 'bad-node',
                            events[-1]['uuid'])
        self.assertEqual(
            (events[-1]['uuid'], 'ERROR', 'deploying', None, None),
            (shown['uuid'], shown['severity'], shown['event_type'],
             shown['conductor'], shown['user']))
        self.assertEqual(long[-1]['event'], shown['event'])
        # An unknown event fails, naming it
        missing = client.run('node', 'history', 'get', 'bad-node',
                             '52949728-59fc-4651-84c8-b0a16b469372',
                             check=False)
        self.assertNotEqual(0, missing.returncode)
        self.assertIn('52949728-59fc-4651-84c8-b0a16b469372',
                      missing.stderr)
        # and below 1.78 the history does not exist
        old = functional.OpenStackClient(service.endpoint,
                                         api_version='1.77')
        refused = old.run('node', 'history', 'list', 'bad-node',
                          check=False)
        self.assertNotEqual(0, refused.returncode)
