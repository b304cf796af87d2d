"""Injecting a non-maskable interrupt (API 1.29, release 0.13) through
the API, the real conductor and SQLite, with fake-hardware's management
counting what it is sent."""

from ironic_steps import objects
from tests.unit.api import base

PATH = '/v1/nodes/node-0/management/inject_nmi'


def count(context, name='node-0'):
    return (objects.Node.get(context, name).driver_internal_info
            or {}).get('fake_nmi_count', 0)


class InjectNmiTest(base.ApiTestCase):

    def test_the_machine_is_sent_an_nmi(self):
        self.api_create(name='node-0')
        response = self.put(PATH, json={}, version='1.29')
        self.assertEqual(204, response.status_code, response.data)
        self.assertEqual(1, count(self.context))
        # No body at all is the same, as the openstack client sends it.
        self.assertEqual(204, self.put(PATH, version='latest').status_code)
        self.assertEqual(2, count(self.context))
        self.assertIsNone(objects.Node.get(self.context,
                                           'node-0').reservation)

    def test_before_1_29_the_path_does_not_exist(self):
        self.api_create(name='node-0')
        self.assertEqual(404, self.put(PATH, json={},
                                       version='1.28').status_code)
        self.assertEqual(0, count(self.context))

    def test_a_body_with_anything_in_it_is_refused(self):
        self.api_create(name='node-0')
        self.assertError(self.put(PATH, json={'now': True}), 400, 'now')
        self.assertEqual(0, count(self.context))

    def test_an_unknown_node_is_404(self):
        self.assertEqual(404, self.put(
            '/v1/nodes/nobody/management/inject_nmi', json={}).status_code)


class PinnedTo012Test(base.ApiTestCase):
    """Release 0.12's conductors cannot inject an NMI."""

    conductor_config = {None: {'pin_release_version': '0.12'}}

    def test_it_is_refused_naming_the_release(self):
        self.api_create(name='node-0')
        self.assertError(self.put(PATH, json={}, version='1.29'), 406,
                         '0.13')
        self.assertEqual(0, count(self.context))
