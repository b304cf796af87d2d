"""An Ironic client that sends what Metal3's baremetal-operator (BMO) sends.

BMO talks to Ironic through gophercloud v2 (``openstack/baremetal/v1``),
with no authentication (``noauth``) against an endpoint that ends in
``/v1/``.  :class:`GophercloudSession` reproduces that client on the
wire, over plain ``http.client``, so that a test replays BMO's requests
as our API receives them:

* every request carries ``Accept: application/json``, gophercloud's
  ``User-Agent`` and, once a microversion is chosen, both
  ``X-OpenStack-Ironic-API-Version`` and ``OpenStack-API-Version:
  baremetal <version>`` (gophercloud's ``ServiceClient.
  setMicroversionHeader``); a body goes as JSON;
* a query string is built as Go's ``url.Values.Encode`` builds it: keys
  sorted, values escaped (a comma is ``%2C``), lists comma-separated
  (gophercloud's ``BuildQueryString``, ``format:"comma-separated"``);
* :meth:`negotiate` is BMO's version discovery: a ``GET`` of the endpoint
  (``utils.GetSupportedMicroversions``, no version header), refusing a
  maximum below 1.89, then ``AvailableFeatures.ChooseMicroversion``
  (``pkg/provisioner/ironic/clients/features.go``);
* each call names the status codes gophercloud accepts for it
  (``OkCodes``); any other answer fails the test, with Ironic's error.

Nothing of BMO's or gophercloud's code is copied: this is written from
reading them.
"""

import http.client
import json
import time
import urllib.parse

USER_AGENT = 'gophercloud/v2.13.0'
#: BMO refuses an Ironic whose maximum is below 1.89 (features.go,
#: ``baseline``: virtual media attach and detach).
BASELINE_MINOR = 89
#: The versions BMO asks for, highest first, and the served maximum each
#: needs (features.go, ``ChooseMicroversion``): deployment abort 1.110,
#: health 1.109, disable_power_off 1.95, virtual media GET 1.93.
CHOICES = ((110, '1.110'), (109, '1.109'), (95, '1.95'), (93, '1.93'))


def choose_microversion(max_minor):
    """The microversion BMO asks for when Ironic serves up to 1.max_minor."""
    for needed, version in CHOICES:
        if max_minor >= needed:
            return version
    return '1.%d' % BASELINE_MINOR


def query(**params):
    """A query string as gophercloud builds it: sorted keys, lists joined
    with commas, everything escaped as Go's ``url.Values.Encode`` does."""
    pairs = []
    for key in sorted(params):
        value = params[key]
        if isinstance(value, (list, tuple)):
            value = ','.join(value)
        elif isinstance(value, bool):
            value = 'true' if value else 'false'
        pairs.append((key, value))
    return '?' + urllib.parse.urlencode(pairs, quote_via=urllib.parse.quote,
                                        safe='')


class UnexpectedAnswer(AssertionError):
    """Ironic answered a code gophercloud does not accept for the call."""


class GophercloudSession:
    """BMO's client of one Ironic endpoint (``http://host:port``)."""

    def __init__(self, endpoint):
        parsed = urllib.parse.urlsplit(endpoint)
        self.host, self.port = parsed.hostname, parsed.port
        self.microversion = None
        self.max_minor = None
        #: Every (method, path, status) sent, in order.
        self.sent = []

    def negotiate(self):
        """BMO's discovery: the served maximum from ``GET /v1/`` and the
        version chosen from it; refuses an Ironic below 1.89 as BMO does."""
        document = self.call('GET', '/v1/', ok=(200, 300))
        served = document['version']
        major, minor = (int(part) for part in served['version'].split('.'))
        if major != 1 or minor < BASELINE_MINOR:
            raise AssertionError('BMO refuses Ironic %s: it needs 1.%d'
                                 % (served['version'], BASELINE_MINOR))
        self.max_minor = minor
        self.microversion = choose_microversion(minor)
        return served

    def request(self, method, path, body=None):
        """Send one request; (status, decoded JSON body or None)."""
        headers = {'Accept': 'application/json', 'User-Agent': USER_AGENT}
        if self.microversion:
            headers['X-OpenStack-Ironic-API-Version'] = self.microversion
            headers['OpenStack-API-Version'] = 'baremetal %s' % (
                self.microversion)
        data = None
        if body is not None:
            data = json.dumps(body)
            headers['Content-Type'] = 'application/json'
        connection = http.client.HTTPConnection(self.host, self.port,
                                                timeout=30)
        try:
            connection.request(method, path, data, headers)
            response = connection.getresponse()
            payload = response.read()
        finally:
            connection.close()
        self.sent.append((method, path, response.status))
        return response.status, json.loads(payload) if payload else None

    def call(self, method, path, body=None, ok=None):
        """Send one request that must answer one of ``ok`` (gophercloud's
        defaults by method when None: GET 200, POST 201/202, PUT 201/202,
        PATCH 200/201/204, DELETE 202/204); its decoded body."""
        if ok is None:
            ok = {'GET': (200,), 'POST': (201, 202), 'PUT': (201, 202),
                  'PATCH': (200, 201, 204), 'DELETE': (202, 204)}[method]
        status, answer = self.request(method, path, body)
        if status not in ok:
            raise UnexpectedAnswer('%s %s answered %d, not %s: %s' % (
                method, path, status, ok, answer))
        return answer

    def node(self, ident):
        """``nodes.Get``: what BMO's ``getNode`` reads on each reconcile."""
        return self.call('GET', '/v1/nodes/%s' % ident)

    def poll(self, ident, until, passing=(), timeout=30):
        """Reconcile as BMO does: read the node until its provision state
        is ``until``; meanwhile it may only be in one of ``passing`` (the
        states BMO answers "operation continuing" to) or ``until``.

        BMO polls every 3 s (``shortRetryDelay``) or 10 s
        (``longRetryDelay``); this polls every 0.1 s.
        """
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            node = self.node(ident)
            state = node['provision_state']
            if not seen or seen[-1] != state:
                seen.append(state)
            if state == until:
                return node
            if state not in passing:
                raise AssertionError(
                    'node %s went %s, BMO waits only through %s for %s '
                    '(last_error: %s)' % (ident, ' -> '.join(seen),
                                          list(passing), until,
                                          node['last_error']))
            if time.monotonic() > deadline:
                raise AssertionError('node %s still %s after %d s, not %s'
                                     % (ident, state, timeout, until))
            time.sleep(0.1)

    def poll_power(self, ident, power_state, timeout=30):
        """Read the node until its power state is ``power_state`` and no
        power change is pending (BMO's ``PowerOn``/``PowerOff`` loop)."""
        deadline = time.monotonic() + timeout
        while True:
            node = self.node(ident)
            if (node['power_state'] == power_state
                    and node['target_power_state'] is None):
                return node
            if time.monotonic() > deadline:
                raise AssertionError('node %s is %s, not %s (last_error: %s)'
                                     % (ident, node['power_state'],
                                        power_state, node['last_error']))
            time.sleep(0.1)
