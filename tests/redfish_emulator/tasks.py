"""Redfish tasks: long operations that finish later, as on a real BMC.

sushy-tools serves one static task (``/redfish/v1/TaskService/Tasks/42``,
always Completed).  Volume creation and firmware updates on a real BMC
answer 202 with a task that runs for a while and then completes or fails,
and the redfish hardware type polls it.  This module owns:

- the task store (persistent, in the emulator's state directory, so a
  restart keeps running tasks running);
- a task's lifecycle, computed from the clock: ``Pending`` until the
  system's next boot (for ``OnReset`` operations), then ``Running`` with a
  ``PercentComplete`` for ``seconds``, then the task's *effect* runs once
  and the task is ``Completed`` -- or ``Exception`` if the effect raised
  :class:`TaskFailed`;
- the views: the TaskService's Tasks collection and each task, which answers
  **202 while the task runs and 200 once it is done** (what sushy's
  ``TaskMonitor`` and ``Task.is_processing`` read).

Effects are registered by kind (``EFFECTS``) by the modules that start
tasks (``storage``, ``updates``); this module never knows what a task does.
"""

import datetime
import threading
import time

import flask
from sushy_tools.emulator import memoize

from tests.redfish_emulator import errors

EFFECTS = {}
"""kind -> callable(app, task) run when a task's time is up; it returns a
message (str) for the task's Messages or raises TaskFailed."""

FINISHED = ('Completed', 'Exception')
_LOCK = threading.Lock()


class TaskFailed(Exception):
    """An effect's failure; its text becomes the task's Critical message."""


def _iso(timestamp):
    if timestamp is None:
        return None
    return datetime.datetime.fromtimestamp(
        timestamp, datetime.timezone.utc).isoformat(timespec='seconds')


class TaskStore:
    """The tasks of one emulator, kept in its state directory."""

    def __init__(self, state_dir):
        self._tasks = memoize.PersistentDict()
        self._tasks.make_permanent(state_dir, 'emulator-tasks')
        # Ids of the tasks still to advance, so that the check every request
        # makes reads only those from the store.
        self._open = {task['id'] for task in self._tasks.values()
                      if task['state'] not in FINISHED}

    def start(self, kind, name, seconds, system=None, after_boot=None,
              payload=None):
        """Record a new task and return it.

        :param system: the UUID of the system the task acts on, if any.
        :param after_boot: the system's boot count now, for a task that
            only starts on the system's next boot (ApplyTime OnReset).
        :param payload: what the effect needs (free-form, JSON-able).
        """
        with _LOCK:
            task_id = str(len(self._tasks) + 1)
            task = {'id': task_id, 'kind': kind, 'name': name,
                    'seconds': float(seconds), 'system': system,
                    'after_boot': after_boot, 'payload': payload or {},
                    'created': time.time(), 'started': None,
                    'ended': None, 'state': 'New', 'percent': 0,
                    'messages': []}
            self._tasks[task_id] = task
            self._open.add(task_id)
        return task

    def get(self, task_id):
        try:
            return self._tasks[task_id]
        except KeyError:
            raise errors.RedfishError(
                'No task %s; tasks are: %s.' % (
                    task_id, ', '.join(sorted(self._tasks, key=int))
                    or 'none'),
                code=404, message_id='ResourceMissingAtURI',
                args=[flask.request.path]) from None

    def all(self):
        return sorted(self._tasks.values(), key=lambda t: int(t['id']))

    def unfinished(self, kind=None, system=None):
        tasks = [self._tasks[task_id] for task_id in sorted(self._open, key=int)]
        return [t for t in tasks if kind in (None, t['kind'])
                and system in (None, t['system'])]

    def advance(self, app):
        """Bring every unfinished task up to the clock; run due effects."""
        for task in self.unfinished():
            self._advance(app, task)

    def _advance(self, app, task):
        now = time.time()
        started = task['started']
        if started is None:
            if task['after_boot'] is None:
                started = task['created']
            else:
                boots, last_boot = app.systems.boot_count(task['system'])
                if boots <= task['after_boot']:
                    self._save(task, state='Pending')
                    return
                started = last_boot
        if now < started + task['seconds']:
            self._save(task, state='Running', started=started,
                       percent=int(100 * (now - started) / task['seconds']))
            return
        ended = started + task['seconds']
        try:
            message = EFFECTS[task['kind']](app, task)
        except TaskFailed as exc:
            self._save(task, state='Exception', started=started,
                       ended=ended, percent=100, messages=[{
                           'MessageId': 'TaskEvent.1.0.TaskAborted',
                           'Message': str(exc), 'MessageArgs': [task['id']],
                           'Severity': 'Critical'}])
            return
        self._save(task, state='Completed', started=started, ended=ended,
                   percent=100, messages=[{
                       'MessageId': 'TaskEvent.1.0.TaskCompletedOK',
                       'Message': message, 'MessageArgs': [task['id']],
                       'Severity': 'OK'}])

    def _save(self, task, **changes):
        task.update(changes)
        self._tasks[task['id']] = task
        if task['state'] in FINISHED:
            self._open.discard(task['id'])


def path(task_id):
    return '/redfish/v1/TaskService/Tasks/%s' % task_id


def representation(task):
    body = {
        '@odata.type': '#Task.v1_4_3.Task',
        '@odata.id': path(task['id']),
        'Id': task['id'], 'Name': task['name'],
        'TaskState': task['state'],
        'TaskStatus': 'Critical' if task['state'] == 'Exception' else 'OK',
        'PercentComplete': task['percent'],
        'StartTime': _iso(task['started'] or task['created']),
        'TaskMonitor': path(task['id']),
        'Messages': task['messages'],
    }
    if task['ended'] is not None:
        body['EndTime'] = _iso(task['ended'])
    return body


def accepted(task):
    """The 202 answer that hands a new task to the client."""
    response = flask.jsonify(representation(task))
    response.status_code = 202
    response.headers['Location'] = path(task['id'])
    return response


def task_resource(task_id):
    task = flask.current_app.tasks.get(task_id)
    response = flask.jsonify(representation(task))
    if task['state'] not in FINISHED:
        response.status_code = 202
    return response


def task_collection():
    members = [{'@odata.id': path(t['id'])}
               for t in flask.current_app.tasks.all()]
    return flask.jsonify({
        '@odata.type': '#TaskCollection.TaskCollection',
        '@odata.id': '/redfish/v1/TaskService/Tasks',
        'Name': 'Task Collection', 'Members': members,
        'Members@odata.count': len(members)})


def install(app, replace_view):
    app.add_url_rule('/redfish/v1/TaskService/Tasks',
                     endpoint='emulator_tasks', view_func=task_collection)
    app.add_url_rule('/redfish/v1/TaskService/Tasks/<task_id>',
                     endpoint='emulator_task', view_func=task_resource)
    # The stock static route for task 42 wins over ours: answer it the same.
    replace_view('simple_task', lambda: task_resource('42'))
    app.before_request(lambda: app.tasks.advance(app))
