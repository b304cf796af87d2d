"""Root device hints a direct deploy accepts (``agent.
check_root_device_hints``), on a real node."""

from ironic_steps.common import exception
from ironic_steps.drivers.modules import agent
from tests import base


class RootDeviceHintsTest(base.TestCase):

    def node(self, where, hints):
        return self.create_node(**{where: {'root_device': hints}})

    def test_an_empty_object_is_no_hints_as_in_ironic(self):
        # Metal3's baremetal-operator always sends instance_info/
        # root_device, {} for a host without hints.
        for where in ('instance_info', 'properties'):
            agent.check_root_device_hints(self.node(where, {}))

    def test_known_hints_are_accepted(self):
        agent.check_root_device_hints(self.node(
            'instance_info', {'name': '/dev/sda', 'size': 100}))

    def test_what_is_not_an_object_of_known_hints_is_refused_naming_it(self):
        for hints, fragment in (
                ('/dev/sda', 'must be an object of root device hints'),
                ([], 'must be an object of root device hints'),
                ({'colour': 'red'}, 'unknown hint(s) colour')):
            node = self.node('instance_info', hints)
            error = self.assertRaises(exception.InvalidParameterValue,
                                      agent.check_root_device_hints, node)
            self.assertIn('instance_info/root_device of node %s' % node.uuid,
                          str(error))
            self.assertIn(fragment, str(error))
