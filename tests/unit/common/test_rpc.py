"""A conductor call the broker returns untaken is re-sent, then refused."""

import oslo_messaging as messaging
import testtools

from ironic_steps.common import exception
from ironic_steps.common import rpc


class UntakenClient:
    """A client whose first ``untaken`` calls no queue takes."""

    def __init__(self, untaken):
        self.untaken = untaken
        self.sent = 0

    def call(self, context, method, **kwargs):
        self.sent += 1
        if self.sent <= self.untaken:
            raise messaging.MessageUndeliverable(
                None, 'ironic-steps', 'ironic-steps.conductor', None)
        return (method, kwargs)


class UntakenCallTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.patch(rpc, 'UNDELIVERABLE_SPACING', 0.01)
        self.patch(rpc, 'UNDELIVERABLE_WAIT', 0.2)

    def test_a_call_no_queue_took_is_sent_again_until_one_does(self):
        client = UntakenClient(untaken=3)
        self.assertEqual(('get_node', {'node_id': 'n1'}),
                         rpc._call_taken(client, None, 'get_node',
                                         {'node_id': 'n1'}))
        self.assertEqual(4, client.sent)

    def test_a_call_no_queue_takes_in_time_is_refused_saying_why(self):
        client = UntakenClient(untaken=1000)
        error = self.assertRaises(exception.NoConductorListening,
                                  rpc._call_taken, client, None, 'get_node',
                                  {})
        self.assertIn('No conductor is listening', str(error))
        self.assertEqual(503, error.code)
        self.assertLess(client.sent, 1000)
