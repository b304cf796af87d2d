"""A process of its own that takes node locks, for the lock contract tests.

Run as ``python -m tests.lock_taker SETTINGS_JSON``, with SETTINGS::

    {"database": URL, "options": {"GROUP": {"OPTION": VALUE}},
     "host": NAME, "node": UUID, "mode": "hold" | "race",
     "racers": N, "record": PATH}

``hold``: heartbeat as conductor ``host`` (as a real one does), lock the
node and print ``held``; then, for each line on stdin, try to write the
node under that lock and print ``saved`` or ``lost`` (NodeLockLost).

``race``: print ``ready``, wait for a line on stdin, then ``racers``
threads each try once to run the node's step (see :func:`run_step`);
print ``done``.
"""

import json
import sys
import threading
import time

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


def _hold(context, settings):
    registry.register(settings['host'])
    registry.Heart(settings['host']).start()
    task = task_manager.acquire(context, settings['node'],
                                host=settings['host'], retry=False,
                                purpose='holding until killed')
    print('held', flush=True)
    for line in sys.stdin:
        task.node.extra = dict(task.node.extra or {},
                               written_by=settings['host'])
        try:
            task.node.save()
            print('saved', flush=True)
        except exception.NodeLockLost:
            print('lost', flush=True)


def _race(context, settings):
    racers = [threading.Thread(target=run_step, args=(
        context, settings['node'], '%s-%d' % (settings['host'], number),
        settings['record'])) for number in range(settings['racers'])]
    print('ready', flush=True)
    sys.stdin.readline()
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    print('done', flush=True)


def main():
    settings = json.loads(sys.argv[1])
    _configure(settings)
    context = ironic_context.get_admin_context()
    {'hold': _hold, 'race': _race}[settings['mode']](context, settings)


if __name__ == '__main__':
    main()
