"""What a run leaves behind: a database dump, a report, a log.

A run directory holds::

    inventory.json     the inventory as run (a resume reads it)
    ironic-steps.log   the service's log, every attempt appended
    dump.sql           the database as SQL text, restorable with the
                       database's own tool (``sqlite3 copy.db < dump.sql``,
                       ``psql``, ``mysql``)
    report.json        per node: final state, error, every step with its
                       start, end, duration, outcome and error; secrets
                       masked

and, only while a run is under way, ``live.sqlite`` (its SQLite database),
which the end of the run removes once the dump is written.

::

    dump(connection_url, path)            # after the service stopped
    restore(path, connection_url)         # into an empty database
    report = build_report(context, meta)  # while the database is there
    write_report(report, run_dir); read_report(run_dir)
    print(table(report))
"""

import json
import os
import sqlite3
import subprocess

import sqlalchemy as sa

from ironic_steps.common import masking
from ironic_steps.common import private_files
from ironic_steps.drivers import base
from ironic_steps import objects
from ironic_steps.objects import step_history

INVENTORY = 'inventory.json'
LOG = 'ironic-steps.log'
DUMP = 'dump.sql'
REPORT = 'report.json'
LIVE_DATABASE = 'live.sqlite'

_NODE_FIELDS = ('uuid', 'name', 'driver', 'provision_state',
                'target_provision_state', 'last_error', 'deploy_step',
                'driver_info', 'instance_info', 'driver_internal_info',
                'provision_updated_at')


class EvidenceError(Exception):
    """A dump or a restore did not work; the message says why."""


# --- the database -----------------------------------------------------------

def sqlite_url(path):
    return 'sqlite:///%s' % os.path.abspath(path)


def _sqlite_path(url):
    return sa.engine.make_url(url).database


def _server_args(url):
    """(tool environment, host/port/user arguments, database name) of a
    PostgreSQL or MySQL/MariaDB URL."""
    parsed = sa.engine.make_url(url)
    env = dict(os.environ)
    args = []
    if parsed.host:
        args += ['--host', parsed.host]
    if parsed.port:
        args += ['--port', str(parsed.port)]
    if parsed.username:
        args += (['--username', parsed.username]
                 if parsed.get_backend_name() == 'postgresql'
                 else ['--user', parsed.username])
    if parsed.password is not None:
        env['PGPASSWORD' if parsed.get_backend_name() == 'postgresql'
            else 'MYSQL_PWD'] = parsed.password
    socket_dir = parsed.query.get('host') or parsed.query.get('unix_socket')
    if socket_dir and not parsed.host:
        args += ['--host' if parsed.get_backend_name() == 'postgresql'
                 else '--socket', socket_dir]
    return env, args, parsed.database


def _run_tool(command, env, what, stdin=None, stdout=None):
    try:
        result = subprocess.run(command, env=env, stdin=stdin, stdout=stdout,
                                stderr=subprocess.PIPE, check=False)
    except FileNotFoundError as exc:
        raise EvidenceError('%s needs %s, which is not installed' % (
            what, command[0])) from exc
    if result.returncode:
        raise EvidenceError('%s failed (%s exited %d): %s' % (
            what, command[0], result.returncode,
            result.stderr.decode('utf-8', 'replace').strip()))


def dump(url, path):
    """Write the database at ``url`` to ``path`` as SQL text."""
    backend = sa.engine.make_url(url).get_backend_name()
    partial = path + '.partial'
    if backend == 'sqlite':
        source = sqlite3.connect(_sqlite_path(url))
        try:
            with private_files.open_for_writing(
                    partial, encoding='utf-8') as out:
                for statement in source.iterdump():
                    out.write(statement + '\n')
        finally:
            source.close()
    else:
        env, args, database = _server_args(url)
        tool = (['pg_dump', '--no-owner', '--no-privileges'] + args
                + ['--dbname', database] if backend == 'postgresql'
                else ['mysqldump', '--single-transaction'] + args
                + [database])
        with private_files.open_for_writing(partial, 'wb') as out:
            _run_tool(tool, env, 'Dumping the database', stdout=out)
    os.replace(partial, path)


def restore(path, url):
    """Load the dump at ``path`` into the (empty) database at ``url``."""
    backend = sa.engine.make_url(url).get_backend_name()
    if backend == 'sqlite':
        with open(path, encoding='utf-8') as stream:
            script = stream.read()
        private_files.create(_sqlite_path(url))
        target = sqlite3.connect(_sqlite_path(url))
        try:
            target.executescript(script)
        finally:
            target.close()
        return
    env, args, database = _server_args(url)
    tool = (['psql', '--quiet', '--set', 'ON_ERROR_STOP=1'] + args
            + ['--dbname', database] if backend == 'postgresql'
            else ['mysql'] + args + [database])
    with open(path, 'rb') as stream:
        _run_tool(tool, env, 'Restoring the dump', stdin=stream,
                  stdout=subprocess.DEVNULL)


def tables(url):
    """The names of the tables of the database at ``url``."""
    engine = sa.create_engine(url)
    try:
        return sa.inspect(engine).get_table_names()
    finally:
        engine.dispose()


def remove(url):
    """Remove the run's database: its file, or every table it made."""
    if sa.engine.make_url(url).get_backend_name() == 'sqlite':
        database = _sqlite_path(url)
        for suffix in ('', '-wal', '-shm', '-journal'):
            if os.path.exists(database + suffix):
                os.remove(database + suffix)
        return
    engine = sa.create_engine(url)
    try:
        metadata = sa.MetaData()
        metadata.reflect(engine)
        metadata.drop_all(engine)
    finally:
        engine.dispose()


def shown_url(url):
    """``url`` without its password, for messages."""
    parsed = sa.engine.make_url(url)
    return parsed.render_as_string(hide_password=True)


# --- the report -------------------------------------------------------------

def _time(value):
    return value.isoformat() + 'Z' if value is not None else None


def _step(entry):
    duration = (entry.finished_at - entry.started_at).total_seconds()
    return {'flow': entry.flow, 'flow_run': entry.flow_run,
            'step': '%s.%s' % (entry.interface, entry.step),
            'priority': entry.priority,
            'args': masking.mask(entry.args or {}),
            'started_at': _time(entry.started_at),
            'finished_at': _time(entry.finished_at),
            'duration': round(duration, 3),
            'outcome': entry.outcome, 'error': masking.mask(entry.error)}


def node_report(row, history):
    """``row``: the node (:data:`_NODE_FIELDS`); ``history``: its step
    history, oldest first."""
    progress = (row.driver_internal_info or {}).get(base.PROGRESS_KEY)
    steps = [_step(entry) for entry in history]
    return {'name': row.name, 'uuid': row.uuid, 'driver': row.driver,
            'provision_state': row.provision_state,
            'target_provision_state': row.target_provision_state,
            'last_error': masking.mask(row.last_error),
            'deploy_step': masking.mask(row.deploy_step or {}),
            'progress': masking.mask(progress) if progress else None,
            'driver_info': masking.mask(row.driver_info or {}),
            'instance_info': masking.mask(row.instance_info or {}),
            'provision_updated_at': _time(row.provision_updated_at),
            'steps': steps}


def build_report(context, meta, order=None):
    """The report of every node in the database, in ``order`` (names)
    where given; ``meta`` says what the run was and how it ended."""
    rows = objects.Node.list_fields(context, _NODE_FIELDS)
    if order:
        rank = {name: number for number, name in enumerate(order)}
        rows.sort(key=lambda row: rank.get(row.name, len(rank)))
    history = objects.NodeStepHistory.rows_by_node(context)
    nodes = [node_report(row, history.get(row.id, ())) for row in rows]
    counts = {}
    for node in nodes:
        counts[node['provision_state']] = counts.get(
            node['provision_state'], 0) + 1
    return dict(meta, states=counts, nodes=nodes)


def write_report(report, run_dir):
    partial = os.path.join(run_dir, REPORT + '.partial')
    with private_files.open_for_writing(partial, encoding='utf-8') as out:
        json.dump(report, out, indent=2, sort_keys=True)
        out.write('\n')
    os.replace(partial, os.path.join(run_dir, REPORT))


def read_report(run_dir):
    """The report of the run in ``run_dir``.

    :raises EvidenceError: there is none, or it cannot be read.
    """
    path = os.path.join(run_dir, REPORT)
    try:
        with open(path, encoding='utf-8') as stream:
            return json.load(stream)
    except OSError as exc:
        raise EvidenceError('%s: no report of a run (%s)' % (
            run_dir, exc.strerror or exc)) from exc
    except ValueError as exc:
        raise EvidenceError('%s: not a report: %s' % (path, exc)) from exc


def _last_step(node):
    steps = node.get('steps') or []
    failed = [step for step in steps
              if step['outcome'] != step_history.SUCCESS]
    chosen = failed[-1] if failed else (steps[-1] if steps else None)
    return chosen['step'] if chosen else ''


def _one_line(text, width):
    text = ' '.join((text or '').split())
    return text if len(text) <= width else text[:width - 3] + '...'


def table(report, error_width=70):
    """The report as a text table: one line per node."""
    rows = [('node', 'state', 'steps', 'seconds', 'last step', 'error')]
    for node in report['nodes']:
        steps = node.get('steps') or []
        ok = sum(1 for step in steps
                 if step['outcome'] == step_history.SUCCESS)
        rows.append((node['name'] or node['uuid'], node['provision_state'],
                     '%d/%d' % (ok, len(steps)),
                     '%.1f' % sum(step['duration'] for step in steps),
                     _last_step(node),
                     _one_line(node.get('last_error'), error_width)))
    widths = [max(len(row[column]) for row in rows)
              for column in range(len(rows[0]))]
    lines = ['  '.join(cell.ljust(width) for cell, width
                       in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, '  '.join('-' * width for width in widths))
    return '\n'.join(lines)
