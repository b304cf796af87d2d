"""A real API app over a real conductor and database, driven over WSGI."""

import copy
import json
import os

import fixtures

from ironic_steps.api import app
from ironic_steps.api import policy
from ironic_steps.api import versions
from ironic_steps.conf import CONF
from tests import base

LATEST = '1.69'


def changed(document, **changes):
    """A deep copy of ``document`` (a request body) with ``changes``; a
    change to None drops the key."""
    result = copy.deepcopy(document)
    for key, value in changes.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = value
    return result


class KeptEnforcer(fixtures.Fixture):
    """The API's policy enforcer, kept from one test to the next that
    runs with the same ``[oslo_policy]`` options and no policy file.

    Building the enforcer costs an API test about 15 ms (oslo.policy
    deep-copies every rule in code), and one built from the same options
    without a file is the same in every test.  Any other is forgotten.
    """

    #: (enforcer, the [oslo_policy] options it was built with)
    _kept = (None, None)

    def _setUp(self):
        options = self._options()
        enforcer = policy.current_enforcer()
        if enforcer is not None and self._kept != (enforcer, options):
            policy.reset()
        self.addCleanup(self._keep, options)

    @staticmethod
    def _options():
        # Registered by the first enforcer built in the process.
        return dict(CONF.oslo_policy.items()) if 'oslo_policy' in CONF else {}

    @classmethod
    def _keep(cls, options):
        enforcer = policy.current_enforcer()
        if (enforcer is None or enforcer.policy_path is not None
                or cls._options() != options):
            policy.reset()
            cls._kept = (None, None)
        else:
            cls._kept = (enforcer, options)


class ApiTestMixin:
    """``self.client`` talks to ``create_app()`` as configured in setUp."""

    def setUp(self):
        super().setUp()
        self.useFixture(KeptEnforcer())
        self._serve()

    def make_client(self):
        """(Re)build the app, e.g. after changing its configuration."""
        policy.reset()
        self._serve()

    def _serve(self):
        self.app = app.create_app()
        self.client = self.app.test_client()

    def use_policy(self, rules):
        """Serve with a policy file of ``rules`` ({rule: check string})."""
        directory = self.useFixture(fixtures.TempDir()).path
        policy_file = os.path.join(directory, 'policy.yaml')
        with open(policy_file, 'w') as written:
            written.writelines('"%s": "%s"\n' % item for item in rules.items())
        self.config(policy_file=policy_file, group='oslo_policy')
        self.make_client()

    def request(self, method, path, version=LATEST, headers=None, **kwargs):
        headers = dict(headers or {})
        if version is not None:
            headers.setdefault(versions.HEADER, version)
        return self.client.open(path, method=method, headers=headers,
                                **kwargs)

    def get(self, path, **kwargs):
        return self.request('GET', path, **kwargs)

    def post(self, path, **kwargs):
        return self.request('POST', path, **kwargs)

    def patch(self, path, **kwargs):
        return self.request('PATCH', path, **kwargs)

    def put(self, path, **kwargs):
        return self.request('PUT', path, **kwargs)

    def delete(self, path, **kwargs):
        return self.request('DELETE', path, **kwargs)

    def fault(self, response):
        """The parsed fault of an error response, as ironicclient reads it."""
        self.assertEqual('application/json', response.mimetype)
        return json.loads(response.get_json()['error_message'])

    def assertError(self, response, status, *fragments):
        """``response`` is a ``status`` error whose message has fragments."""
        self.assertEqual(status, response.status_code, response.data)
        fault = self.fault(response)
        self.assertEqual('Client' if status < 500 else 'Server',
                         fault['faultcode'])
        self.assertIsNone(fault['debuginfo'])
        for fragment in fragments:
            self.assertIn(fragment, fault['faultstring'])
        return fault['faultstring']

    def created(self, path, body, **kwargs):
        """POST ``body`` to ``path``, which must answer 201; its body."""
        response = self.post(path, json=body, **kwargs)
        self.assertEqual(201, response.status_code, response.data)
        return response.get_json()

    def stored_records(self, object_class):
        """Every stored record of ``object_class``, as the object layer
        reads it (primitives)."""
        return [record.obj_to_primitive()['ironic_steps_object.data']
                for record in object_class.list(self.context)]

    def api_create(self, **fields):
        """Create a node through the API; return its body."""
        fields.setdefault('driver', 'fake-hardware')
        response = self.post('/v1/nodes', json=fields)
        self.assertEqual(201, response.status_code, response.data)
        return response.get_json()

    def lookup_token(self, node_uuid):
        """The agent token a lookup hands out (once per flow)."""
        response = self.get('/v1/lookup?node_uuid=%s' % node_uuid,
                            version='latest')
        self.assertEqual(200, response.status_code, response.data)
        return response.get_json()['config']['agent_token']

    def provision(self, ident, target, **kwargs):
        return self.put('/v1/nodes/%s/states/provision' % ident,
                        json={'target': target}, **kwargs)


class ApiTestCase(ApiTestMixin, base.ConductorTestCase):
    """The API over a conductor started in this process."""


class AheadOfTheLadderMixin:
    """The API serving the versions it has built ahead of its maximum
    (``versions.AWAITING_LADDER``), so that their gated code is tested at
    its versions before the service offers them: a maximum promises every
    version below it, and some are not built yet."""

    def setUp(self):
        super().setUp()
        if versions.AWAITING_LADDER:    # empty: every version is served
            self.useFixture(fixtures.MonkeyPatch(
                'ironic_steps.api.versions._MAX_VERSION',
                versions.at(max(versions.AWAITING_LADDER))))


class AheadOfTheLadderTestCase(AheadOfTheLadderMixin, ApiTestCase):
    """:class:`ApiTestCase` ahead of the ladder (see
    :class:`AheadOfTheLadderMixin`)."""
