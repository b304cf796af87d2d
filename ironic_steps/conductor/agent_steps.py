"""The steps a node's agent offers: in-band steps, cached on the node.

A deploy interface that drives an agent (``direct``) has two kinds of
steps: its own, decorated methods the conductor runs (out-of-band: the
BMC, the boot device, power), and the agent's, which the agent runs on the
machine (in-band: writing the image, erasing disks, software RAID).  The
agent reports its steps when it first heartbeats in a flow; this module
keeps them, and hands them to the planner (:mod:`steps`) as steps like
any other, marked ``in_band``.

The rules, as Ironic's:

* the agent's steps of a kind are cached in the node's
  ``driver_internal_info['agent_cached_<kind>_steps']`` (a list of step
  dicts), replaced at each flow's first heartbeat, and kept between flows
  so that a request can be checked against them before anything changes;
* an out-of-band step shadows an in-band step of the same interface and
  name (the deploy interface's ``write_image`` is the one that runs, and it
  asks the agent to write);
* ``[deploy] erase_devices_priority`` and
  ``erase_devices_metadata_priority`` replace the priorities the agent
  reports for its two erase steps.

What it does not do: talk to the agent (the deploy interface does, through
its one client), order or check a plan (:mod:`steps`), save a node.
"""

from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps.drivers import base

_CACHE_KEY = 'agent_cached_%s_steps'
#: Set (in ``driver_internal_info``) once the agent reported its steps in
#: the running flow; forgotten when the flow ends.
REFRESHED_KEY = 'agent_steps_refreshed'
#: The keys of a step as ironic-python-agent reports it.
_AGENT_STEP_KEYS = ('interface', 'step', 'priority', 'argsinfo',
                    'abortable', 'reboot_requested')


def cache_key(kind):
    return _CACHE_KEY % kind


def uses_agent(task):
    """Whether the node's deploy interface drives an agent's steps."""
    return bool(getattr(task.driver.deploy, 'uses_agent', False))


def cached(node, kind):
    """The agent's steps of ``kind`` as last reported, or None if its
    agent never reported them."""
    return (node.driver_internal_info or {}).get(cache_key(kind))


def _priority_overrides(kind):
    if kind != base.CLEAN:
        return {}
    overrides = {('deploy', 'erase_devices'):
                 CONF.deploy.erase_devices_priority,
                 ('deploy', 'erase_devices_metadata'):
                 CONF.deploy.erase_devices_metadata_priority}
    return {key: value for key, value in overrides.items()
            if value is not None}


def offered(task, kind, shadowed):
    """The agent's cached steps of ``kind`` that the planner may use: step
    dicts marked ``in_band``, minus those whose (interface, step) is in
    ``shadowed`` (the driver's own steps)."""
    if not uses_agent(task):
        return []
    overrides = _priority_overrides(kind)
    found = []
    for step in cached(task.node, kind) or ():
        key = (step['interface'], step['step'])
        if key in shadowed:
            continue
        step = dict(step, in_band=True)
        if key in overrides:
            step['priority'] = overrides[key]
        if kind != base.CLEAN:
            step.pop('abortable', None)
        found.append(step)
    return found


#: The deploy step that boots the agent: in-band steps run after it.
AGENT_BOOT_STEP = ('deploy', 'deploy')


def before_the_agent(enabled, kind):
    """Problems for in-band deploy steps (of ``enabled``, planned
    steps.Step values) that would run before the step that starts the
    agent (or with no such step)."""
    if kind != base.DEPLOY:
        return []   # cleaning starts its agent before any step
    boot = next((step for step in enabled
                 if (step.interface, step.name) == AGENT_BOOT_STEP), None)
    return ['in-band step %s (priority %d) would run %s, which starts the '
            'agent; give it a priority below %s' % (
                step.label, step.priority,
                'before %s.%s' % AGENT_BOOT_STEP if boot else
                'without %s.%s' % AGENT_BOOT_STEP,
                boot.priority if boot else 'that step\'s, and enable it')
            for step in enabled if step.in_band and (
                boot is None or step.priority >= boot.priority)]


def normalise(node_uuid, kind, reported):
    """The agent's answer to ``get_<kind>_steps`` as a list of step dicts.

    ironic-python-agent answers ``{'<kind>_steps': {manager: [step, ...]},
    ...}``; a step two of its hardware managers report is kept once, with
    the higher priority.

    :raises AgentStepsInvalid: naming what is wrong with the answer.
    """
    by_manager = (reported or {}).get('%s_steps' % kind)
    if not isinstance(by_manager, dict):
        raise exception.AgentStepsInvalid(
            node=node_uuid, kind=kind,
            reason='no %s_steps object in its answer' % kind)
    steps = {}
    for manager, listed in sorted(by_manager.items()):
        for step in listed if isinstance(listed, list) else [listed]:
            problem = _shape_problem(step)
            if problem:
                raise exception.AgentStepsInvalid(
                    node=node_uuid, kind=kind, reason='hardware manager %s '
                    'reports %s' % (manager, problem))
            clean = {key: step.get(key) for key in _AGENT_STEP_KEYS}
            clean['abortable'] = bool(clean['abortable'])
            clean['reboot_requested'] = bool(clean['reboot_requested'])
            if not isinstance(clean['argsinfo'], dict):
                clean['argsinfo'] = None
            key = (clean['interface'], clean['step'])
            if key not in steps or steps[key]['priority'] < clean['priority']:
                steps[key] = clean
    return [steps[key] for key in sorted(steps)]


def _shape_problem(step):
    """What keeps ``step`` out of a plan (the rule steps.Step holds a
    stored plan's steps to), or None."""
    if not isinstance(step, dict):
        return 'a step that is not an object'
    name = step.get('step')
    if not isinstance(name, str) or not name:
        return 'a step without a name'
    if not isinstance(step.get('interface'), str) or not step['interface']:
        return 'step %s without an interface' % name
    priority = step.get('priority')
    if (not isinstance(priority, int) or isinstance(priority, bool)
            or priority < 0):
        return 'step %s.%s without a non-negative integer priority' % (
            step['interface'], name)
    return None


def store(node, kind, steps):
    """Cache the agent's ``steps`` of ``kind`` on ``node`` (saved with its
    next save)."""
    node.driver_internal_info = {**(node.driver_internal_info or {}),
                                 cache_key(kind): steps}
