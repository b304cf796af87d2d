"""Who may do what through the API: the oslo.policy enforcer.

The rules in code are Ironic's secure RBAC defaults
(:mod:`ironic_steps.api.policy_defaults`: system and project scope,
admin/member/reader, owner and lessee); which target each request is
checked against is :mod:`ironic_steps.api.tenancy`'s.  Agents heartbeat
without credentials.  Operators override any rule in
``[oslo_policy] policy_file``; ``oslopolicy-sample-generator --namespace
ironic-steps`` lists them all (see :func:`list_rules`).

Who may run one step is the operator's to say, with a rule
``baremetal:step:execute:<interface>.<step>`` in the policy file
(:func:`authorize_steps`), as in Ironic 39: checked for the caller's deploy
and clean steps, for the steps of a deploy template or a runbook as its
author writes them, and for a runbook's steps when a node is to run them.

Where the roles come from is :mod:`ironic_steps.api.auth`'s business.
"""

import threading

from oslo_policy import policy

from ironic_steps.api import errors
from ironic_steps.api import policy_defaults
from ironic_steps.common import step_kinds
from ironic_steps.conf import CONF
from ironic_steps import release_mappings

_enforcer = None
_enforcer_lock = threading.Lock()

#: (rule, roles) -> True: the grants of the rules in code to system
#: callers, remembered.  For a caller without a project, each of those
#: rules looks at roles and the system scope only (a test holds them to
#: that: their project branches compare a target with the caller's
#: project, which it has not), so its answer depends on the caller's roles
#: alone; asking oslo.policy costs a request about 0.1 ms.  Refusals are
#: not remembered.
_granted = {}
_MAX_GRANTS = 1024


def list_rules():
    """Every default rule (the ``oslo.policy.policies`` entry point)."""
    return policy_defaults.all_rules()


def get_enforcer():
    """The process-wide enforcer, built on first use."""
    global _enforcer
    with _enforcer_lock:
        if _enforcer is None:
            enforcer = policy.Enforcer(CONF)
            enforcer.register_defaults(list_rules())
            enforcer.load_rules()
            if enforcer.policy_path is None:
                # No policy file: the rules in code are all there is, so
                # stop looking for one on every request (~0.07 ms each).
                # A file added later takes effect at the next restart.
                enforcer.use_conf = False
            _enforcer = enforcer
        return _enforcer


def get_oslo_policy_enforcer():
    """For the oslopolicy-* tools (the ``oslo.policy.enforcer`` entry point)."""
    CONF([], project='ironic-steps')
    return get_enforcer()


def current_enforcer():
    """The enforcer built so far, or None (tests)."""
    return _enforcer


def reset():
    """Forget the enforcer, so that the next check reloads (tests)."""
    global _enforcer
    with _enforcer_lock:
        _enforcer = None
        _granted.clear()


#: The rule an operator may write, in the policy file, to say who may run
#: one step (``interface.step``), as in Ironic 39.  There is no default:
#: without the rule, whoever may make the request may run the step.
STEP_RULE = 'baremetal:step:execute:%s'
#: The first release that checks step rules (older API services do not).
STEP_RULES_SINCE = '0.9'


def authorize_steps(context, steps, node=None):
    """Check the step rules the policy file has for ``steps``.

    :param steps: step dicts as a request gives them (the caller's deploy
        or clean steps, a deploy template's); what is not a well-formed
        step is left to the planner, which refuses it (400).
    :param node: a callable returning the node the steps would run on:
        read only when some rule applies, so that a rule may compare
        ``node.owner`` and ``node.lessee`` with the caller's project.
    :raises Forbidden: naming the rule (and so the step) of the first
        step the caller may not run.
    """
    if release_mappings.pinned_before(CONF, STEP_RULES_SINCE):
        return
    enforcer = get_enforcer()
    if not enforcer.use_conf:
        return   # no policy file: only the rules in code, none per step
    enforcer.load_rules()
    rules = [STEP_RULE % label for step in steps if isinstance(step, dict)
             and isinstance(step.get('interface'), str)
             and isinstance(step.get('step'), str)
             for label in step_kinds.labels(step['interface'], step['step'])]
    rules = [rule for rule in rules if rule in enforcer.rules]
    if not rules:
        return
    target = dict(context.to_policy_values())
    if node is not None:
        row = node()
        # Only those the node has: an empty one must match no caller
        # (oslo.policy would compare "None" with a caller's None).
        target.update({key: value for key, value in (
            ('node.owner', row.owner), ('node.lessee', row.lessee)) if value})
    for rule in rules:
        # enforce(), not authorize(): these rules exist only in the file.
        enforcer.enforce(rule, target, context, do_raise=True,
                         exc=errors.Forbidden, policy=rule,
                         roles=', '.join(context.roles) or '(none)')


def is_system(context):
    """Whether ``context`` is a system caller: a system-scoped token, the
    noauth caller or an HTTP basic user without a project."""
    return context.system_scope == 'all'


def _refused(rule, context):
    return errors.Forbidden(policy=rule,
                            roles=', '.join(context.roles) or '(none)')


def allowed(rule, context, target=None):
    """Whether ``context`` may do ``rule`` on ``target``: a check, not a
    refusal (what a view leaves out)."""
    try:
        authorize(rule, context, target)
    except errors.Forbidden:
        return False
    return True


def authorize(rule, context, target=None):
    """:raises Forbidden: unless ``context`` may do ``rule`` on ``target``
    (``node.owner``, ``node.lessee``, ``allocation.owner``: those of
    them the record has)."""
    enforcer = get_enforcer()
    # Only without a policy file: a file may hold rules of any kind, and
    # oslo.policy reloads it when it changes.  Only for system callers:
    # a project caller's answer depends on the target.
    key = ((rule, frozenset(context.roles))
           if is_system(context) and not enforcer.use_conf else None)
    if key is not None and key in _granted:
        return
    values = context.to_policy_values()
    if target:
        values = dict(values)
        values.update(target)
    try:
        enforcer.authorize(
            rule, values, context, do_raise=True, exc=errors.Forbidden,
            policy=rule, roles=', '.join(context.roles) or '(none)')
    except policy.InvalidScope as exc:
        # A rule for system callers asked by a project caller, or the
        # reverse: refused as any other refusal is.
        raise _refused(rule, context) from exc
    if key is not None and len(_granted) < _MAX_GRANTS:
        _granted[key] = True
