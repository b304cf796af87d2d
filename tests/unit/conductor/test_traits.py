"""The conductor changes a node's traits under its lock (RPC 1.2)."""


from ironic_steps.common import exception
from ironic_steps.conductor import rpcapi
from ironic_steps import objects
from tests import base


class NodeTraitsTest(base.ConductorTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')

    def stored(self):
        return objects.Node.get(self.context, self.node.uuid)

    def test_traits_are_added_replaced_and_removed_and_the_lock_dropped(self):
        self.rpcapi.add_node_traits(self.context, self.node.uuid,
                                    ['CUSTOM_B', 'CUSTOM_A'])
        self.rpcapi.add_node_traits(self.context, self.node.uuid,
                                    ['CUSTOM_C'])
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'],
                         self.stored().traits)
        self.rpcapi.add_node_traits(self.context, self.node.uuid,
                                    ['CUSTOM_D'], replace=True)
        self.assertEqual(['CUSTOM_D'], self.stored().traits)
        self.rpcapi.remove_node_traits(self.context, self.node.uuid,
                                       ['CUSTOM_D'])
        self.assertEqual([], self.stored().traits)
        self.rpcapi.add_node_traits(self.context, self.node.uuid,
                                    ['CUSTOM_E'])
        self.rpcapi.remove_node_traits(self.context, self.node.uuid)
        node = self.stored()
        self.assertEqual([], node.traits)
        self.assertIsNone(node.reservation)

    def test_a_node_locked_by_another_keeps_its_traits(self):
        self.config(node_locked_retry_attempts=2, group='conductor')
        objects.Node.reserve(self.context, 'other', self.node.id)
        exc = self.assertRaises(exception.NodeLocked,
                                self.rpcapi.add_node_traits, self.context,
                                self.node.uuid, ['CUSTOM_A'])
        self.assertIn('other', str(exc))
        self.assertEqual([], self.stored().traits)

    def test_removing_a_trait_the_node_lacks_is_refused_naming_it(self):
        self.rpcapi.add_node_traits(self.context, self.node.uuid,
                                    ['CUSTOM_A'])
        exc = self.assertRaises(exception.NodeTraitNotFound,
                                self.rpcapi.remove_node_traits, self.context,
                                self.node.uuid, ['CUSTOM_A', 'CUSTOM_B'])
        self.assertIn('CUSTOM_B', str(exc))
        self.assertEqual(['CUSTOM_A'], self.stored().traits)
        self.assertIsNone(self.stored().reservation)

    def test_pinned_to_0_2_the_calls_are_not_sent(self):
        self.config(pin_release_version='0.2')
        pinned = rpcapi.ConductorAPI()
        exc = self.assertRaises(exception.NotInPinnedRelease,
                                pinned.add_node_traits, self.context,
                                self.node.uuid, ['CUSTOM_A'])
        self.assertIn('release 0.3', str(exc))
        self.assertIn('pinned to release 0.2', str(exc))
        self.assertRaises(exception.NotInPinnedRelease,
                          pinned.remove_node_traits, self.context,
                          self.node.uuid)
        self.config(pin_release_version=None)
        self.assertEqual([], self.stored().traits)


class NodeTraitsOverMessagingTest(base.TestCase):
    """The same calls through oslo.messaging, errors coming back as ours."""

    def setUp(self):
        super().setUp()
        self.use_in_memory_messaging()
        self.useFixture(base.RPCConductors(self.context, ['conductor-a']))
        self.rpcapi = rpcapi.ConductorAPI()

    def test_traits_change_and_refusals_keep_their_class(self):
        node = self.create_node()
        self.rpcapi.add_node_traits(self.context, node.uuid, ['CUSTOM_A'])
        self.assertEqual(['CUSTOM_A'], objects.Node.get(
            self.context, node.uuid).traits)
        exc = self.assertRaises(
            exception.TooManyTraits, self.rpcapi.add_node_traits,
            self.context, node.uuid,
            ['CUSTOM_%d' % i for i in range(60)], replace=True)
        self.assertEqual(400, exc.code)
        self.assertRaises(exception.NodeTraitNotFound,
                          self.rpcapi.remove_node_traits, self.context,
                          node.uuid, ['CUSTOM_B'])
        self.assertEqual(['CUSTOM_A'], objects.Node.get(
            self.context, node.uuid).traits)
