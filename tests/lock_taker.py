"""A process of its own that takes node locks, for the lock contract tests.

:func:`start` starts one, with SETTINGS::

    {"database": URL, "options": {"GROUP": {"OPTION": VALUE}},
     "host": NAME, "node": UUID, "mode": "hold" | "race",
     "racers": N, "record": PATH}

``hold``: heartbeat as conductor ``host`` (as a real one does), lock the
node and say ``held``; then, for each word it is told, try to write the
node under that lock and say ``saved`` or ``lost`` (NodeLockLost).

``race``: say ``ready``, wait to be told anything, then ``racers``
threads each try once to run the node's step (see :func:`run_step`);
say ``done``.

A taker is forked from a multiprocessing fork server that imported this
module once (on a single thread, with no database connection): a fresh
interpreter per taker spent a second or more importing ironic-steps
before it took any lock.
"""

import multiprocessing
import threading
import time
import traceback

from ironic_steps.common import context as ironic_context
from ironic_steps.common import exception
from ironic_steps.conductor import registry
from ironic_steps.conductor import task_manager
from ironic_steps.conf import CONF
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api

#: How long the step runs: long enough for every racer to try meanwhile.
STEP_SECONDS = 0.3


def run_step(context, node_uuid, racer, record):
    """Under the node's lock, run its step unless it ran already: append
    ``racer`` to ``record``, note it on the node.  A racer that finds the
    node locked gives up.

    :returns: whether this racer ran the step.
    """
    try:
        with task_manager.acquire(context, node_uuid, host=racer,
                                  retry=False, purpose='lock race') as task:
            if (task.node.extra or {}).get('step_ran_by'):
                return False
            time.sleep(STEP_SECONDS)
            with open(record, 'a') as runs:
                runs.write(racer + '\n')
            task.node.extra = dict(task.node.extra or {}, step_ran_by=racer)
            task.node.save()
            return True
    except exception.NodeLocked:
        return False


def _configure(settings):
    CONF([], project='ironic-steps', default_config_files=[])
    for group, options in settings.get('options', {}).items():
        for name, value in options.items():
            CONF.set_override(name, value, group=group)
    sqlalchemy_api.configure(connection=settings['database'])


def _hold(context, settings, connection):
    registry.register(settings['host'])
    registry.Heart(settings['host']).start()
    task = task_manager.acquire(context, settings['node'],
                                host=settings['host'], retry=False,
                                purpose='holding until killed')
    connection.send('held')
    while True:
        connection.recv()
        task.node.extra = dict(task.node.extra or {},
                               written_by=settings['host'])
        try:
            task.node.save()
            connection.send('saved')
        except exception.NodeLockLost:
            connection.send('lost')


def _race(context, settings, connection):
    racers = [threading.Thread(target=run_step, args=(
        context, settings['node'], '%s-%d' % (settings['host'], number),
        settings['record'])) for number in range(settings['racers'])]
    connection.send('ready')
    connection.recv()
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    connection.send('done')


def _serve(settings, connection):
    """The taker's process: what it says and is told goes over
    ``connection``; an error is said as its traceback."""
    try:
        _configure(settings)
        context = ironic_context.get_admin_context()
        {'hold': _hold, 'race': _race}[settings['mode']](
            context, settings, connection)
    except EOFError:
        pass   # The test is done with it.
    except Exception:
        connection.send(traceback.format_exc())
        raise


_FORK_SERVER = multiprocessing.get_context('forkserver')
# The fork server imports what a taker needs before it forks the first.
_FORK_SERVER.set_forkserver_preload([__name__])


class Taker:
    """A running lock taker: its process, and a line to talk to it."""

    def __init__(self, settings):
        self.connection, theirs = _FORK_SERVER.Pipe()
        self.process = _FORK_SERVER.Process(target=_serve,
                                            args=(settings, theirs),
                                            daemon=True)
        self.process.start()
        theirs.close()

    @property
    def pid(self):
        return self.process.pid

    def tell(self, word):
        self.connection.send(word)

    def hear(self, timeout=60):
        """What it says next; None if it said nothing within ``timeout``
        seconds or is gone."""
        try:
            if self.connection.poll(timeout):
                return self.connection.recv()
        except (EOFError, OSError):
            pass
        return None

    def stop(self):
        """Kill it if it still runs; wait for its end."""
        if self.process.exitcode is None:
            self.process.kill()
        self.process.join()
        self.connection.close()


def start(settings):
    """A new :class:`Taker` with ``settings`` (see the module's doc)."""
    return Taker(settings)
