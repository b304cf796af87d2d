"""``ironic-steps run`` and ``ironic-steps inspect``: ephemeral runs.

::

    ironic-steps run INVENTORY [--run-dir DIR] [--database-connection URL]
                     [--concurrency N] [--config-file FILE ...]
    ironic-steps run INVENTORY --dry-run
    ironic-steps run --resume RUN_DIR
    ironic-steps inspect RUN_DIR [--port N]
    ironic-steps inspect RUN_DIR --report

A run never uses the service's own database (``[database] connection``
of the configuration files): it starts from an empty one, a new SQLite
file in its run directory unless ``--database-connection`` names an empty
server database for a large run.  The rest of the configuration (hardware
types, ``[fake]``, ``[redfish]``, ``[conductor]``) applies as it does to
the service.

Exit codes: 0 every node is active; 1 some node is not (each is named);
2 the command line, the inventory or the run directory is refused before
anything starts; 128 + the signal's number when interrupted.
"""

import argparse
import os
import shutil
import sys

from ironic_steps.common import private_files
from ironic_steps.conf import CONF
from ironic_steps.ephemeral import driver
from ironic_steps.ephemeral import evidence
from ironic_steps.ephemeral import inventory
from ironic_steps.ephemeral import runner
from ironic_steps.ephemeral import saved_run
from ironic_steps import release_mappings
from ironic_steps import service

COMMANDS = ('run', 'inspect')
#: The release that brought ephemeral runs.
RELEASE = '0.7'


def _parser():
    parser = argparse.ArgumentParser(
        prog='ironic-steps',
        description='Deploy an inventory with a short-lived service, keep '
                    'the evidence, inspect it later.')
    parser.add_argument('--config-file', action='append', default=[],
                        metavar='FILE',
                        help='configuration file (repeatable)')
    parser.add_argument('--config-dir', action='append', default=[],
                        metavar='DIR')
    commands = parser.add_subparsers(dest='command', required=True)
    run = commands.add_parser(
        'run', help='deploy every node of an inventory',
        description='Deploy every node of INVENTORY (YAML or JSON) with a '
                    'service that lives as long as the run; keep a dump, '
                    'a report and the log in the run directory.')
    run.add_argument('inventory', nargs='?', metavar='INVENTORY')
    run.add_argument('--run-dir', metavar='DIR',
                     help='where the evidence goes (new or empty; default: '
                          'a new directory under [DEFAULT] state_path/runs)')
    run.add_argument('--resume', metavar='RUN_DIR',
                     help='carry on with the interrupted or failed run in '
                          'RUN_DIR, from its saved state')
    run.add_argument('--database-connection', metavar='URL',
                     help='an empty PostgreSQL or MySQL database to run on '
                          '(its tables are removed at the end); default: a '
                          'new SQLite file in the run directory')
    run.add_argument('--dry-run', action='store_true',
                     help='check the inventory and show each node\'s plan; '
                          'provision nothing')
    run.add_argument('--concurrency', type=int, default=driver.CONCURRENCY,
                     metavar='N',
                     help='API requests the run makes at once (default %d)'
                          % driver.CONCURRENCY)
    inspect = commands.add_parser(
        'inspect', help='look at a saved run',
        description='Serve the saved run in RUN_DIR read-only on loopback, '
                    'for the openstack baremetal client; or print its '
                    'report.')
    inspect.add_argument('run_dir', metavar='RUN_DIR')
    inspect.add_argument('--port', type=_port, default=0,
                         help='port on 127.0.0.1 (default: a free one)')
    inspect.add_argument('--report', action='store_true',
                         help='print the report as a table and exit')
    return parser


def _oslo_argv(args, log_file=None):
    argv = ['ironic-steps']
    for path in args.config_file:
        argv += ['--config-file', path]
    for path in args.config_dir:
        argv += ['--config-dir', path]
    if log_file:
        argv += ['--log-file', log_file]
    return argv


def _port(text):
    # ASCII digits only: int() takes signs and spaces, and isdigit() passes
    # characters such as '²' that int() refuses.
    port = int(text) if text.isascii() and text.isdigit() else -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            'a port is a number from 0 to 65535, not %r' % text)
    return port


def _check_run_args(parser, args):
    if args.resume and (args.inventory or args.run_dir or args.dry_run):
        parser.error('--resume RUN_DIR takes no INVENTORY, --run-dir or '
                     '--dry-run: the run directory has them')
    if not args.resume and not args.inventory:
        parser.error('run needs an INVENTORY (or --resume RUN_DIR)')
    if args.concurrency < 1:
        parser.error('--concurrency must be at least 1')


def _prepare_run_dir(args):
    """(the run directory, whether this made it): new or empty, or the
    one to resume."""
    if args.resume:
        if not os.path.isfile(os.path.join(args.resume, evidence.INVENTORY)):
            raise runner.RunError('%s is not the directory of a run (no %s)'
                                  % (args.resume, evidence.INVENTORY))
        return args.resume, False
    if args.run_dir is None:
        return runner.default_run_dir(), True
    if os.path.exists(args.run_dir):
        if os.listdir(args.run_dir):
            raise runner.RunError(
                '--run-dir %s is not empty: a run keeps its evidence in a '
                'directory of its own' % args.run_dir)
        # The evidence holds BMC passwords: its directory is ours alone.
        os.chmod(args.run_dir, private_files.DIRECTORY_MODE)
        return args.run_dir, False
    os.makedirs(args.run_dir, mode=private_files.DIRECTORY_MODE)
    return args.run_dir, True


def _refuse_if_pinned():
    if release_mappings.pinned_before(CONF, RELEASE):
        raise runner.RunError(
            'Ephemeral runs came with release %s; [DEFAULT] '
            'pin_release_version = %s turns them off' % (
                RELEASE, CONF.pin_release_version))


def _run(args, stream):
    # Read the inventory before anything else: a bad one stops here.
    if args.resume:
        _prepare_run_dir(args)   # refuses what is not a run's directory
    spec = inventory.load(os.path.join(args.resume, evidence.INVENTORY)
                          if args.resume else args.inventory)
    if args.dry_run:
        service.prepare_service(_oslo_argv(args, os.devnull))
        _refuse_if_pinned()
        return runner.dry_run(spec, stream)
    chosen = {}

    def place_the_log():
        chosen['run_dir'], chosen['made'] = _prepare_run_dir(args)
        CONF.set_override('log_file', os.path.join(chosen['run_dir'],
                                                   evidence.LOG))

    service.prepare_service(_oslo_argv(args), before_logging=place_the_log)
    _refuse_if_pinned()
    run_dir = chosen['run_dir']
    if args.resume:
        return runner.Run(spec, run_dir,
                          database_url=args.database_connection, resume=True,
                          concurrency=args.concurrency,
                          stream=stream).execute()
    inventory.save(spec, os.path.join(run_dir, evidence.INVENTORY))
    try:
        return runner.Run(spec, run_dir,
                          database_url=args.database_connection,
                          concurrency=args.concurrency,
                          stream=stream).execute()
    except runner.RunError:
        # Refused before it started: a directory with no evidence would
        # only mislead.
        if chosen['made']:
            shutil.rmtree(run_dir, ignore_errors=True)
        else:
            for name in os.listdir(run_dir):
                os.remove(os.path.join(run_dir, name))
        raise


def _inspect(args, stream):
    if args.report:
        saved_run.print_report(args.run_dir, stream)
        return 0
    # The log (each request served) goes to stderr, the run's own
    # messages to stdout.
    service.prepare_service(_oslo_argv(args), before_logging=lambda: (
        CONF.set_override('use_stderr', True)))
    _refuse_if_pinned()
    saved_run.serve(args.run_dir, args.port, stream)
    return 0


def main(argv, stream=None):
    """``argv``: the whole command line (``ironic-steps run ...``)."""
    stream = stream or sys.stdout
    parser = _parser()
    args = parser.parse_args(argv[1:])
    try:
        if args.command == 'run':
            _check_run_args(parser, args)
            return _run(args, stream)
        return _inspect(args, stream)
    except (inventory.InventoryError, runner.RunError,
            evidence.EvidenceError, saved_run.ServeError) as exc:
        sys.stderr.write('ironic-steps %s: %s\n' % (args.command, exc))
        return runner.EXIT_USAGE
