"""An agent's heartbeat, once its token is checked: what it means.

Called by the conductor's ``heartbeat`` endpoint with the node locked.  A
heartbeat:

1. records where the agent listens and what it is (``agent_url``,
   ``agent_version``, ``agent_verify_ca`` in ``driver_internal_info``,
   Ironic's keys), so the deploy interface's agent client can reach it;
2. in a flow that waits, the first time in that flow (for a deploy
   interface that drives an agent): asks the agent for its steps, caches
   them on the node (:mod:`agent_steps`) and plans the flow again with
   them, the steps that already ran staying where they were; a requested
   step the agent turns out not to offer fails the flow, naming it;
3. asks the deploy interface whether the waiting step is done
   (:meth:`DeployInterface.heartbeat`): done, the flow goes on (the
   flow's ``resume``, from :mod:`flows`); not yet, the node goes on
   waiting, its wait started afresh (a working agent is not timed out);
   failed, the flow fails with the agent's reason;
4. for a rescue waiting for its agent (``rescue wait``): finishes the
   rescue (:func:`rescue.agent_called_back`).

What it never does: check the token (the endpoint does, before the lock
matters), talk to the agent itself (the deploy interface does), or act on
a node that does not wait.
"""

import os

from oslo_log import log
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import agent_steps
from ironic_steps.conductor import flows
from ironic_steps.conductor import rescue
from ironic_steps.conductor import step_polling
from ironic_steps.conductor import step_runner
from ironic_steps.conf import CONF
from ironic_steps.drivers import base

LOG = log.getLogger(__name__)

#: Where the agent's answers are kept, by what it sends.
_RECORDED = (('agent_url', 'callback_url'), ('agent_version',
                                             'agent_version'),
             ('agent_verify_ca', 'agent_verify_ca'))


def handle(task, worker, **sent):
    """Act on a heartbeat of ``task.node``'s agent (see the module doc).

    :param sent: ``callback_url``, ``agent_version``, ``agent_verify_ca``
        as the agent sent them (None: not sent).
    """
    node = task.node
    _record(node, sent)
    if node.provision_state == states.RESCUEWAIT:
        return rescue.agent_called_back(task, worker)
    waiting = flows.BY_WAIT_STATE.get(node.provision_state)
    if waiting is None or step_polling.is_polled(node):
        LOG.debug('Heartbeat from node %s in state %s: nothing to resume%s',
                  node.uuid, node.provision_state,
                  ' (its step is polled)' if waiting else '')
        if node.obj_what_changed():
            task.save_and_release()
        return
    flow = waiting.flow
    try:
        if (agent_steps.uses_agent(task)
                and not (node.driver_internal_info or {}).get(
                    agent_steps.REFRESHED_KEY)):
            _refresh_steps(task, flow)
        verdict = task.driver.deploy.heartbeat(task)
    except Exception as exc:
        LOG.warning('Heartbeat of node %s: the waiting %s step failed: %s',
                    node.uuid, flow.kind, exc,
                    exc_info=not isinstance(exc,
                                            exception.IronicStepsException))
        return step_runner.fail(task, flow, '%s step %s failed: %s' % (
            flow.title, _current_label(node, flow), step_runner.reason(exc)))
    if verdict is base.DONE:
        return waiting.resume(task, worker)
    # The agent works on: its wait starts afresh.
    node.provision_updated_at = timeutils.utcnow()
    task.save_and_release()


def _record(node, sent):
    info = node.driver_internal_info or {}
    if sent.get('agent_verify_ca'):
        sent = dict(sent, agent_verify_ca=_keep_certificate(
            node.uuid, sent['agent_verify_ca']))
    changes = {key: sent[name] for key, name in _RECORDED
               if sent.get(name) is not None and info.get(key) != sent[name]}
    if changes:
        node.driver_internal_info = {**info, **changes}


def _keep_certificate(node_uuid, certificate):
    """Keep the agent's certificate (PEM, as its heartbeat sent it) where
    the agent client reads it: :returns: its path."""
    directory = os.path.join(CONF.state_path, 'agent-certificates')
    path = os.path.join(directory, '%s.crt' % node_uuid)
    try:
        with open(path) as kept:
            if kept.read() == certificate:
                return path     # every heartbeat sends it: write it once
    except FileNotFoundError:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    with open(path, 'w') as kept:
        kept.write(certificate)
    return path


def _current_label(node, flow):
    step = getattr(node, flow.step_field) or {}
    if not step:
        return '(waiting for the agent)'
    return '%s.%s' % (step.get('interface'), step.get('step'))


def _refresh_steps(task, flow):
    """Cache the agent's steps and plan the flow again with them.

    :raises AgentStepsInvalid: when the agent's answer is not steps.
    :raises InvalidRequestedSteps: when a requested step is still
        offered by nobody, or would have had to run before the agent.
    """
    node = task.node
    reported = task.driver.deploy.agent_steps(task, flow.kind)
    agent_steps.store(node, flow.kind, agent_steps.normalise(
        node.uuid, flow.kind, reported))
    node.driver_internal_info = {**node.driver_internal_info,
                                 agent_steps.REFRESHED_KEY: True}
    LOG.info('The agent of node %s reported its %s steps: %s', node.uuid,
             flow.kind, ', '.join('%s.%s (%s)' % (
                 step['interface'], step['step'], step['priority'])
                 for step in agent_steps.cached(node, flow.kind)) or 'none')
    old = step_runner.load_plan(node, flow)
    index = step_runner.current_index(node, flow)
    new = flows.replan(task, flow)
    if index is None:
        step_runner.store_plan(task, flow, new)
        return
    current = old[index]
    labels = [step.label for step in new]
    ran = [step.label for step in old[:index]]
    if current.label not in labels or labels[:labels.index(
            current.label)] != ran:
        early = [label for label in labels[:len(ran) + 1]
                 if label not in ran and label != current.label]
        raise exception.InvalidRequestedSteps(
            kind=flow.kind, node=node.uuid, problems=(
                'step(s) %s of the agent would have to run before %s, '
                'which starts the agent; give them a lower priority' % (
                    ', '.join(early) or '?', current.label)))
    step_runner.replace_plan(node, flow, new, labels.index(current.label))
