"""Who may see, change and run a runbook, and what running one asks for.

**Seeing and changing.**  As Ironic's default policy says: a caller
scoped to a project sees the public runbooks and those its project owns,
and changes only its own; anything it does not see is not found (404).
Creating, it owns what it creates, and may neither name another owner
nor make a public runbook (400).  A caller with system scope, or with no
project (``http_basic``, ``noauth``), sees and changes every runbook.
The role each verb needs is the policy's (:mod:`policy`,
``baremetal:runbook:*``).

**Running** (:func:`steps_of_runbook`): a node may run a runbook when it
carries one of the runbook's traits (from API 1.112), or, below 1.112,
the runbook's name as a trait, as in Ironic; otherwise the request is
refused (400) before anything changes.  The runbook's steps become the
request's steps, in the runbook's ``order`` (ties: as listed); checking
them against the node's driver is the conductor's, as for steps a
request names.
"""

from ironic_steps.api import identifiers
from ironic_steps.api import policy
from ironic_steps.api import runbook_view
from ironic_steps.common import exception
from ironic_steps import objects

#: A step's keys as a request names them (a runbook's ``order`` is where
#: it stands, not part of the step).
_STEP_KEYS = ('interface', 'step', 'args')


def project_of(context):
    """The project a caller is confined to; None when it sees everything
    (system scope, or no project at all)."""
    if getattr(context, 'system_scope', None) == 'all':
        return None
    return context.project_id or None


def get(context, ident):
    """The runbook ``ident`` (a UUID, either case, or a name) names, if the
    caller may see it.

    :raises RunbookNotFound: also for one the caller may not see.
    """
    if identifiers.is_uuid(ident):
        runbook = objects.Runbook.get_by_uuid(context, ident.lower())
    else:
        runbook = objects.Runbook.get_by_name(context, ident)
    project = project_of(context)
    if project is not None and not (runbook.public
                                    or runbook.owner == project):
        raise exception.RunbookNotFound(runbook=ident)
    return runbook


def get_to_change(context, ident):
    """:func:`get`, for a caller that means to change the runbook.

    :raises RunbookNotOwned: (403) for a public runbook of another owner.
    """
    runbook = get(context, ident)
    project = project_of(context)
    if project is not None and runbook.owner != project:
        raise exception.RunbookNotOwned(runbook=runbook.uuid,
                                        project=project)
    return runbook


def check_new(context, values):
    """The owner rules of a new runbook's ``values``: a project's caller
    owns what it creates (``owner`` set to it here).

    :raises InvalidParameterValue: for another owner, or a public runbook
        made by a project's caller.
    """
    project = project_of(context)
    if project is None:
        if values.get('public') and values.get('owner'):
            raise exception.InvalidParameterValue(
                err='A public runbook cannot have an owner (got owner %s)'
                % values['owner'])
        return
    if values.get('owner') not in (None, project):
        raise exception.InvalidParameterValue(
            err='A runbook created with the credentials of project %s is '
                'owned by it; it cannot be created for owner %s'
                % (project, values['owner']))
    if values.get('public'):
        raise exception.InvalidParameterValue(
            err='A runbook created with the credentials of project %s '
                'cannot be public' % project)
    values['owner'] = project


def check_changed(runbook, touched):
    """After a PATCH (``touched``: the fields it names): a public runbook
    has no owner; making one public drops its owner, as in Ironic.

    :raises InvalidParameterValue: for a PATCH that gives a public runbook
        an owner.
    """
    if not runbook.public or runbook.owner is None:
        return
    if 'owner' in touched:
        raise exception.InvalidParameterValue(
            err='A public runbook cannot have an owner: make it private '
                '(public false) to give it owner %s' % runbook.owner)
    runbook.owner = None


def steps_of_runbook(context, node, ident, version):
    """What running runbook ``ident`` on ``node`` asks for: its steps as a
    request names them, in order, and whether to run them without the
    agent (see :func:`steps_of`), once the caller may use the runbook
    (``baremetal:runbook:use``), the node may run it
    (:func:`check_approved`) and the caller may run its steps.

    The step rules (``baremetal:step:execute:*``) are checked for a
    runbook a project owns; what an administrator made (no owner) or
    published is approved for its users, as in Ironic.  Used by the
    ``clean`` target; meant for ``service`` too.

    :param node: the node's row, with its ``traits``.
    :param version: the request's API version: from 1.112 the runbook's
        traits decide, before it its name.
    :raises Forbidden: for a rule that refuses.
    :raises RunbookNotFound: for a runbook the caller may not see.
    :raises RunbookNotApproved: (400) unless the node may run it.
    """
    policy.authorize('baremetal:runbook:use', context)
    runbook = get(context, ident)
    check_approved(runbook, node, version)
    if runbook.owner is not None and not runbook.public:
        policy.authorize_steps(context, runbook.steps, node=lambda: node)
    return steps_of(runbook)


def steps_of(runbook):
    """The steps of ``runbook`` as a request names them, in the runbook's
    ``order`` (ties: as listed), and its ``disable_ramdisk``."""
    ordered = sorted(runbook.steps, key=lambda step: step['order'])
    return ([{key: step[key] for key in _STEP_KEYS} for step in ordered],
            runbook.disable_ramdisk)


def check_approved(runbook, node, version):
    """:raises RunbookNotApproved: unless ``node`` may run ``runbook``."""
    node_traits = set(node.traits or ())
    if version < runbook_view.TRAITS_VERSION:
        if runbook.name not in node_traits:
            raise exception.RunbookNotApproved(
                runbook=runbook.name, node=node.uuid,
                reason='the node does not have the runbook\'s name as a '
                'trait; an administrator may add trait %s to the node'
                % runbook.name)
        return
    if not runbook.traits:
        raise exception.RunbookNotApproved(
            runbook=runbook.name, node=node.uuid,
            reason='the runbook has no traits; an administrator may add '
            'one (PUT /v1/runbooks/%s/traits/{trait}) that the node has'
            % runbook.uuid)
    if not node_traits.intersection(runbook.traits):
        raise exception.RunbookNotApproved(
            runbook=runbook.name, node=node.uuid,
            reason='the node has none of the runbook\'s traits (%s); an '
            'administrator may add one of them to the node'
            % ', '.join(runbook.traits))
