"""Run sushy-tools' Redfish emulator with our backend, on loopback.

    python -m tests.redfish_emulator.server --port 8000 --systems 2 \\
        [--state-dir DIR] [--power-delay 0|SECONDS|random] \\
        [--volume-seconds 1] [--update-seconds 1] [--drive SSD:480 ...] \\
        [--username admin --password secret | --auth-file HTPASSWD] \\
        [--no-bios-registry]

sushy-tools' Flask application is a module-level object whose views call it
by name, so we configure *that* object rather than build another:

- its class is narrowed to ``EmulatorApplication``, whose backends are ours
  (``systems.EmulatedSystems``, ``storage.VolumeStore``,
  ``vmedia.LinkedImages``, ``tasks.TaskStore``) -- the stock fake driver
  answers 501/500 for BIOS, volumes, processors and SimpleUpdate;
- each of our resource modules ``install``s its views, either new routes or
  in place of a stock view (``replace_view`` fails loudly if sushy-tools
  renamed the endpoint, rather than silently serving the stock one);
- WSGI middleware, outermost first: request counts (``counters``), failure
  injection (``faults``), one
  request at a time (the stock store is read-modify-write), then sushy-tools'
  own basic authentication, then Flask.

State (systems, BIOS, volumes, virtual media, tasks) lives in SQLite files
in ``--state-dir``: a server restarted on the same directory keeps it.
"""

import argparse
import os
import sys
import tempfile
import threading

import bcrypt
from sushy_tools.emulator import main as stock
from sushy_tools.emulator import memoize
from sushy_tools import error as stock_error
from werkzeug import serving

from tests.redfish_emulator import bios
from tests.redfish_emulator import computer_system
from tests.redfish_emulator import counters
from tests.redfish_emulator import errors
from tests.redfish_emulator import faults
from tests.redfish_emulator import managers
from tests.redfish_emulator import storage
from tests.redfish_emulator import systems
from tests.redfish_emulator import tasks
from tests.redfish_emulator import updates
from tests.redfish_emulator import vmedia

AUTH_FILE = 'htpasswd'


class EmulatorApplication(stock.Application):
    """sushy-tools' application with our backends."""

    @property
    @memoize.memoize()
    def systems(self):
        return systems.EmulatedSystems.initialize(self.config, self.logger)()

    @property
    @memoize.memoize()
    def volumes(self):
        return storage.VolumeStore(self.config, self.logger)

    @property
    @memoize.memoize()
    def vmedia(self):
        return vmedia.LinkedImages(self.config, self.logger)

    @property
    @memoize.memoize()
    def tasks(self):
        return tasks.TaskStore(self.config['SUSHY_EMULATOR_STATE_DIR'])


class Serialized:
    """One request at a time: the stock store is read-modify-write."""

    def __init__(self, app):
        self.app = app
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        with self._lock:
            return list(self.app(environ, start_response))


def write_auth_file(path, username, password):
    # A low bcrypt cost: the file guards a test BMC, and sushy-tools checks
    # it on every request.
    digest = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=4))
    with open(path, 'w') as auth:
        auth.write('%s:%s\n' % (username, digest.decode()))


def build(state_dir, system_count=2, power_delay=0, volume_seconds=1,
          update_seconds=1, drives=storage.DEFAULT_DRIVES, auth_file=None,
          bios_registry=True):
    """Configure sushy-tools' application with our backend; return it.

    Once per process: the application is sushy-tools' module-level one.
    """
    app = stock.app
    if isinstance(app, EmulatorApplication):
        raise RuntimeError('the emulator application is built once per '
                           'process; run another process for another one')
    app.__class__ = EmulatorApplication
    fake = systems.fake_systems(system_count)
    app.config.update(
        SUSHY_EMULATOR_FAKE_DRIVER=True,
        SUSHY_EMULATOR_FAKE_SYSTEMS=fake,
        SUSHY_EMULATOR_STATE_DIR=state_dir,
        SUSHY_EMULATOR_AUTH_FILE=auth_file,
        **storage.stock_config([s['uuid'] for s in fake], drives),
        **{systems.POWER_DELAY: power_delay,
           storage.VOLUME_SECONDS: volume_seconds,
           updates.UPDATE_SECONDS: update_seconds,
           bios.REGISTRY: bios_registry})
    app.configure()  # installs the stock authentication, if asked

    def replace_view(endpoint, view):
        if endpoint not in app.view_functions:
            raise RuntimeError('sushy-tools has no endpoint %r to extend; '
                               'has its version changed?' % endpoint)
        app.view_functions[endpoint] = view

    app.register_error_handler(errors.RedfishError, errors.render)
    for module in (computer_system, bios, storage, tasks, updates, managers):
        module.install(app, replace_view)

    def aliases(target):
        if target == '*':
            return {'*'}
        try:
            uuid = app.systems.uuid(target)
            return {uuid, app.systems.name(uuid)}
        except stock_error.NotFound:
            raise LookupError('No system %s; systems are: %s.' % (
                target, ', '.join(app.systems.systems))) from None

    app.wsgi_app = counters.RequestCounter(
        faults.FaultInjector(Serialized(app.wsgi_app), aliases))
    return app


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m tests.redfish_emulator.server',
        description='sushy-tools Redfish emulator with the ironic-steps '
                    'test backend (BIOS, volumes, SimpleUpdate, faults).')
    parser.add_argument('--host', default='127.0.0.1',
                        help='address to listen on (loopback by default)')
    parser.add_argument('--port', type=int, default=8000)
    parser.add_argument('--systems', type=int, default=2,
                        help='how many systems to emulate')
    parser.add_argument('--state-dir',
                        help='where state is kept (a new temporary '
                             'directory by default); reuse it to restart')
    parser.add_argument('--power-delay', default='0',
                        help="seconds before a power change shows, or "
                             "'random' for sushy-tools' 1-11 s")
    parser.add_argument('--volume-seconds', type=float, default=1.0,
                        help='how long a volume create/delete task runs')
    parser.add_argument('--update-seconds', type=float, default=1.0,
                        help='how long a SimpleUpdate task runs')
    parser.add_argument('--drive', action='append', dest='drives',
                        help='a drive of each system, MEDIA:GB (SSD:480); '
                             'repeat; default %s'
                             % ' '.join(storage.DEFAULT_DRIVES))
    parser.add_argument('--username', help='require basic auth as this user')
    parser.add_argument('--password', help='... with this password')
    parser.add_argument('--auth-file',
                        help='an htpasswd file (bcrypt) to require instead')
    parser.add_argument('--no-bios-registry', dest='bios_registry',
                        action='store_false',
                        help='the Bios resources name no attribute registry')
    args = parser.parse_args(argv)
    if (args.username is None) != (args.password is None):
        parser.error('--username and --password go together')
    if args.power_delay != 'random':
        try:
            args.power_delay = float(args.power_delay)
        except ValueError:
            parser.error("--power-delay is seconds or 'random'")
    return args


def main(argv=None):
    args = parse_args(argv)
    state_dir = args.state_dir or tempfile.mkdtemp(prefix='redfish-emulator-')
    os.makedirs(state_dir, exist_ok=True)
    auth_file = args.auth_file
    if args.username is not None:
        auth_file = os.path.join(state_dir, AUTH_FILE)
        write_auth_file(auth_file, args.username, args.password)
    app = build(state_dir, args.systems, args.power_delay,
                args.volume_seconds, args.update_seconds,
                tuple(args.drives or storage.DEFAULT_DRIVES), auth_file,
                args.bios_registry)
    server = serving.make_server(args.host, args.port, app, threaded=True)
    print('Redfish emulator on http://%s:%d/redfish/v1/ (state in %s)'
          % (args.host, server.server_port, state_dir), file=sys.stderr,
          flush=True)
    server.serve_forever()


if __name__ == '__main__':
    main()
