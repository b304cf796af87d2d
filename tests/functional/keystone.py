"""A real Keystone for the tests: one per test process, on loopback.

The Keystone of ``tools/keystone-venv`` (PyPI's, in a venv of its own),
started from a copy of the SQLite database and keys that script
bootstrapped, served by :mod:`keystone_wsgi` on 127.0.0.1 on a free port,
and stopped by its PID at exit.  Through Keystone's own API it then gets
what the tests authenticate as (:class:`KeystoneServer`):

- ``admin``: the bootstrap's administrator, admin of the system;
- ``system-reader``: reader of the system;
- ``member-a``, ``reader-a``, ``member-b``, ``reader-b``: member and
  reader of the projects ``project-a`` and ``project-b``;
- ``observer-a``: a role no policy of ours knows (``observer``) in
  ``project-a``;
- ``ironic``: the service's own user (``service`` in project
  ``service``), with which the API's keystonemiddleware validates tokens.

Every user's password is ``<name>-pw`` (the admin's comes from the
bootstrap).  A test without Keystone skips, or fails in CI.
"""

import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request

from keystoneauth1.identity import v3
from keystoneauth1 import session

from tests.functional import fixtures as functional

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
_BUILD = os.path.join(_REPO, 'tools', 'keystone-venv')
_RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       'keystone_wsgi.py')
REGION = 'RegionOne'
#: (user, role, project or None for the system) made at start.
USERS = (('system-reader', 'reader', None),
         ('member-a', 'member', 'project-a'),
         ('reader-a', 'reader', 'project-a'),
         ('member-b', 'member', 'project-b'),
         ('reader-b', 'reader', 'project-b'),
         ('observer-a', 'observer', 'project-a'),
         ('ironic', 'service', 'service'))


def venv():
    """Where tools/keystone-venv builds the venv."""
    return subprocess.run([_BUILD, '--path'], check=True, text=True,
                          capture_output=True).stdout.strip()


def _bootstrapped():
    return os.path.join(venv(), 'bootstrapped')


def available():
    return os.path.exists(os.path.join(_bootstrapped(), 'admin.json'))


def require(test):
    """Skip ``test`` where Keystone is not built; in CI that is a failure."""
    if available():
        return
    if os.environ.get('CI'):
        test.fail('Keystone is required in CI: tools/run-tests builds it '
                  'with tools/keystone-venv, which failed or did not run')
    test.skipTest('no Keystone to test against: run tools/keystone-venv')


class KeystoneServer(functional.SharedPerProcess):
    """A running Keystone with the users above; ``url`` is its v3 API."""

    def _setUp(self):
        # Not under TMPDIR: a per-test directory, gone while a shared
        # Keystone still runs.
        self.root = tempfile.mkdtemp(prefix='ironic-steps-keystone-',
                                     dir='/tmp')
        self.addCleanup(shutil.rmtree, self.root, True)
        state = os.path.join(self.root, 'state')
        shutil.copytree(_bootstrapped(), state)
        with open(os.path.join(state, 'admin.json')) as admin:
            self.admin = json.load(admin)
        self.port = functional.free_port()
        self.url = 'http://127.0.0.1:%d/v3' % self.port
        self.log_file = os.path.join(self.root, 'keystone.log')
        config = self._write_config(state)
        started = time.monotonic()
        with open(self.log_file, 'ab') as log:
            # -I: not this directory first on the path, where keystone.py
            # and fixtures.py would hide Keystone's own.
            self.process = subprocess.Popen(
                [os.path.join(venv(), 'bin', 'python'), '-I', _RUNNER,
                 str(self.port)],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                env=dict(os.environ, OS_KEYSTONE_CONFIG_FILES=config))
        self.addCleanup(functional.stop_process, self.process)
        self._wait_until_up(timeout=120)
        #: Seconds from the start of the process to its first answer.
        self.start_seconds = time.monotonic() - started
        self._api = session.Session(auth=self.password_auth(
            self.admin['username'], system=True))
        self._populate()

    def _write_config(self, state):
        path = os.path.join(self.root, 'keystone.conf')
        with open(path, 'w') as conf:
            conf.write(
                '[DEFAULT]\nlog_file = %(log)s\n'
                '[database]\nconnection = sqlite:///%(state)s/keystone.sqlite'
                '\n[fernet_tokens]\nkey_repository = %(state)s/fernet-keys\n'
                '[fernet_receipts]\nkey_repository = %(state)s/receipt-keys\n'
                '[credential]\nkey_repository = %(state)s/credential-keys\n'
                '[identity]\npassword_hash_rounds = 4\n'
                % {'state': state, 'log': self.log_file})
        return path

    def _wait_until_up(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError('keystone exited with %s: %s' % (
                    self.process.returncode, self.log()[-3000:]))
            try:
                urllib.request.urlopen(self.url, timeout=1)
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError('keystone did not start in %d s: %s' % (
            timeout, self.log()[-3000:]))

    def log(self):
        with open(self.log_file, errors='replace') as log:
            return log.read()

    # --- Keystone's API, as its administrator --------------------------------

    def _call(self, method, path, body=None):
        response = self._api.request(self.url + path, method, json=body,
                                     raise_exc=True)
        return response.json() if response.content else None

    def _populate(self):
        self._call('POST', '/regions', {'region': {'id': REGION}})
        identity = self._create('service', {'type': 'identity',
                                            'name': 'keystone'})
        for interface in ('public', 'internal'):
            self._add_endpoint(identity, interface, self.url)
        self._baremetal = self._create('service', {'type': 'baremetal',
                                                   'name': 'ironic'})
        self._baremetal_endpoints = []
        # Keystone answers in ~0.1 s: each id is asked for once.
        roles = {role['name']: role['id']
                 for role in self._call('GET', '/roles')['roles']}
        targets = {None: '/system'}
        for user, role, project in USERS:
            if role not in roles:
                roles[role] = self._create('role', {'name': role})
            if project not in targets:
                targets[project] = '/projects/%s' % self._create(
                    'project', {'name': project, 'domain_id': 'default'})
            user_id = self._create('user', {
                'name': user, 'password': self.password(user),
                'domain_id': 'default'})
            self._call('PUT', '%s/users/%s/roles/%s' % (
                targets[project], user_id, roles[role]))

    def project_id(self, name):
        """The id Keystone gave the project called ``name``."""
        return self._call('GET', '/projects?name=%s' % name)[
            'projects'][0]['id']

    def _create(self, kind, body):
        """The id of a new ``kind`` (``role``, ``project``, ...)."""
        return self._call('POST', '/%ss' % kind, {kind: body})[kind]['id']

    def _add_endpoint(self, service, interface, url):
        return self._create('endpoint', {
            'service_id': service, 'interface': interface, 'url': url,
            'region_id': REGION})

    def register_baremetal(self, endpoint):
        """Make ``endpoint`` the catalog's bare metal service (one at a
        time: the CLI finds the API there)."""
        for endpoint_id in self._baremetal_endpoints:
            self._call('DELETE', '/endpoints/%s' % endpoint_id)
        self._baremetal_endpoints = [
            self._add_endpoint(self._baremetal, interface, endpoint)
            for interface in ('public', 'internal')]

    # --- what the tests authenticate with ------------------------------------

    def password(self, user):
        return (self.admin['password'] if user == self.admin['username']
                else user + '-pw')

    def password_auth(self, user, project=None, system=False):
        """keystoneauth's password plugin for ``user``, scoped to
        ``project`` or to the system."""
        scope = ({'system_scope': 'all'} if system else
                 {'project_name': project, 'project_domain_id': 'default'})
        return v3.Password(auth_url=self.url, username=user,
                           password=self.password(user),
                           user_domain_id='default', **scope)

    def token(self, user, project=None, system=False):
        """A token of ``user``, from Keystone's API."""
        auth = self.password_auth(user, project, system)
        return session.Session(auth=auth).get_token()

    def authtoken_options(self, **overrides):
        """``[keystone_authtoken]`` of an API that trusts this Keystone."""
        options = {'www_authenticate_uri': self.url, 'auth_url': self.url,
                   'auth_type': 'password', 'username': 'ironic',
                   'password': 'ironic-pw', 'project_name': 'service',
                   'user_domain_name': 'Default',
                   'project_domain_name': 'Default', 'region_name': REGION,
                   'http_request_max_retries': 0}
        options.update(overrides)
        return options

    def cli_environment(self, user, project=None, system=False):
        """The ``OS_*`` variables of ``user`` for the `openstack` CLI."""
        env = {'OS_AUTH_TYPE': 'password', 'OS_AUTH_URL': self.url,
               'OS_IDENTITY_API_VERSION': '3', 'OS_USERNAME': user,
               'OS_PASSWORD': self.password(user),
               'OS_USER_DOMAIN_NAME': 'Default', 'OS_REGION_NAME': REGION,
               'OS_INTERFACE': 'public'}
        if system:
            env['OS_SYSTEM_SCOPE'] = 'all'
        else:
            env.update(OS_PROJECT_NAME=project,
                       OS_PROJECT_DOMAIN_NAME='Default')
        return env
