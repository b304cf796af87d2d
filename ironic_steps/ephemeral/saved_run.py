"""A saved run, looked at later: its report, or its API served read-only.

``ironic-steps inspect RUN_DIR`` restores the run's dump into a scratch
SQLite file (the run directory is never written), brings its schema to
this version's if the run was made by an older one, and serves the API
alone (no conductor: nothing runs, nothing is recovered) on loopback, so
``openstack baremetal node list``, ``node show`` and ``node step
history`` read the run as it ended.  Every write is answered 403.
"""

import os
import shutil
import signal
import sys
import tempfile
import threading

from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps.db import migration
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps.ephemeral import evidence
from ironic_steps import service

READ_ONLY = ('this is a saved run of ironic-steps (%s), served read-only by '
             '"ironic-steps inspect"; run the inventory again to change '
             'anything')


class ServeError(Exception):
    """The saved run cannot be served; the message says why."""


def print_report(run_dir, stream=None):
    report = evidence.read_report(run_dir)
    stream = stream or sys.stdout
    stream.write('Run %s: %s, %s wall seconds, started %s\n\n' % (
        report['run_dir'], report['outcome'], report['wall_seconds'],
        report['started_at']))
    stream.write(evidence.table(report) + '\n')


def serve(run_dir, port, stream=None, stop=None):
    """Serve the saved run in ``run_dir`` until SIGINT / SIGTERM (or
    ``stop``, an Event, is set).

    :raises EvidenceError: the directory holds no dump.
    :raises ServeError: the port cannot be listened on.
    """
    stream = stream or sys.stdout
    dump = os.path.join(run_dir, evidence.DUMP)
    if not os.path.exists(dump):
        raise evidence.EvidenceError(
            '%s: no %s: not the directory of a finished run' % (
                run_dir, evidence.DUMP))
    scratch = tempfile.mkdtemp(prefix='ironic-steps-inspect-')
    stop = stop or threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    running = None
    try:
        url = evidence.sqlite_url(os.path.join(scratch, 'inspect.sqlite'))
        evidence.restore(dump, url)
        CONF.set_override('connection', url, group='database')
        CONF.set_override('host_ip', '127.0.0.1', group='api')
        # Its own client speaks HTTP, on loopback.
        CONF.set_override('enable_ssl_api', False, group='api')
        CONF.set_override('port', port, group='api')
        CONF.set_override('rpc_transport', 'none')
        sqlalchemy_api.configure()
        if migration.pending():
            migration.upgrade()   # the copy, to this version's schema
        running = service.Service(
            api=True, conductor=False,
            read_only=READ_ONLY % os.path.abspath(run_dir))
        try:
            running.start()
        except exception.APICannotListen as exc:
            running = None   # nothing started
            raise ServeError('cannot serve on 127.0.0.1:%d: %s' % (
                port, exc.kwargs['reason'])) from exc
        endpoint = 'http://127.0.0.1:%d' % running.port
        stream.write(
            'Serving the run in %s read-only on %s\n'
            '  export OS_AUTH_TYPE=none OS_ENDPOINT=%s\n'
            '  openstack baremetal node list\n'
            'Ctrl-C stops.\n' % (run_dir, endpoint, endpoint))
        stream.flush()
        while not stop.wait(1):
            pass
    finally:
        if running is not None:
            running.stop()
        sqlalchemy_api.configure()
        shutil.rmtree(scratch, ignore_errors=True)
