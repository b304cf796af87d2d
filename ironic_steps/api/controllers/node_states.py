"""/v1/nodes/{node}/states: read a node's states; change its provision
state, its power or its target RAID configuration.

``PUT .../states/provision`` with ``{"target": T}`` asks the conductor for
the action; the work goes on asynchronously, so the answer is 202 with a
``Location`` to poll.  The conductor checks the request under the node's
lock before anything changes (the state, and any steps asked for), so a
refusal is a 4xx that leaves the node as it was.  A target below its
version is refused 406, as Ironic refuses it.

Besides ``target``, ``active`` and ``rebuild`` take ``deploy_steps``
(1.69) and ``clean`` requires ``clean_steps`` (1.15) and may take
``disable_ramdisk`` (1.70); ``service`` (1.87, release 0.12) requires
``service_steps`` and runs them on an active node
(:mod:`ironic_steps.conductor.servicing`); ``unhold`` (1.85, release
0.12) lets a flow held by a ``hold`` step go on; ``deploy`` and
``undeploy`` (1.73) are
``active`` and ``deleted`` by Ironic's newer names.  From 1.92 ``clean``
and ``service`` may take a ``runbook`` instead of their steps (and
``disable_ramdisk``): its steps, once the node may run it (see
:mod:`ironic_steps.api.runbook_access`).  Their checks against
the node's driver are the conductor's (:mod:`ironic_steps.conductor.steps`).
``inspect`` (1.6, release 0.11) reads what the hardware has
(:mod:`ironic_steps.conductor.inspection`); ``abort`` stops an inspection
that waits from 1.41, and a deploy in ``wait call-back`` from 1.110, as in
Ironic.
``active`` and ``rebuild`` (1.35) take a ``configdrive``: an image or a
URL, or an object from 1.56 (``vendor_data`` from 1.59), checked here
(:mod:`ironic_steps.common.configdrive`); ``null``, ``""`` and ``{}`` mean
none, as in Ironic.

``PUT .../states/power`` is asynchronous too (202, the node shows
``target_power_state`` until it is done), and so are ``PUT
.../states/boot_mode`` and ``.../states/secure_boot`` (1.76; a failure is
the node's ``last_error``, 409 while the node moves); ``PUT
.../states/raid`` stores the target RAID configuration once the node's
RAID interface accepted it (204).
"""

import dataclasses

import flask

from ironic_steps.api import body
from ironic_steps.api import errors
from ironic_steps.api import node_ident
from ironic_steps.api import node_view
from ironic_steps.api import policy
from ironic_steps.api import responses
from ironic_steps.api import runbook_access
from ironic_steps.api import tenancy
from ironic_steps.api import versions
from ironic_steps.common import boot_modes
from ironic_steps.common import configdrive
from ironic_steps.common import exception
from ironic_steps.common import state_machine
from ironic_steps.common import states
from ironic_steps.conf import CONF
from ironic_steps import release_mappings

blueprint = flask.Blueprint('node_states', __name__,
                            url_prefix='/v1/nodes/<ident>/states')


@dataclasses.dataclass(frozen=True)
class _Target:
    """What one API provision target asks of the conductor."""

    #: The conductor method and its fixed keyword arguments.
    method: str
    kwargs: dict
    #: The version that introduced the target.
    since: tuple = versions.MIN_VERSION
    #: The body keys besides ``target`` it takes -> their version.
    extras: dict = dataclasses.field(default_factory=dict)
    #: The release of ours that brought it, when that is later than its
    #: version (refused while the services are pinned before it).
    release: str | None = None


_DEPLOY_STEPS = {'deploy_steps': (1, versions.MINOR_69_DEPLOY_STEPS)}
_SERVICE_EXTRAS = {'service_steps': (1, versions.MINOR_87_SERVICE),
                   'disable_ramdisk': (
                       1, versions.MINOR_108_SERVICE_DISABLE_RAMDISK),
                   'runbook': (1, versions.MINOR_92_RUNBOOKS)}
_ACTIVE_EXTRAS = {**_DEPLOY_STEPS, 'configdrive': versions.MIN_VERSION}
_REBUILD_EXTRAS = {**_DEPLOY_STEPS,
                   'configdrive': (1, versions.MINOR_35_REBUILD_CONFIGDRIVE)}

_TARGETS = {
    'manage': _Target('do_provisioning_action',
                      {'action': states.EVENT_MANAGE},
                      since=(1, versions.MINOR_4_MANAGEABLE_STATE)),
    'provide': _Target('do_provisioning_action',
                       {'action': states.EVENT_PROVIDE},
                       since=(1, versions.MINOR_4_MANAGEABLE_STATE)),
    'active': _Target('do_node_deploy', {'rebuild': False},
                      extras=_ACTIVE_EXTRAS),
    'rebuild': _Target('do_node_deploy', {'rebuild': True},
                       extras=_REBUILD_EXTRAS),
    'deleted': _Target('do_node_tear_down', {}),
    # Ironic's newer names for active and deleted.
    'deploy': _Target('do_node_deploy', {'rebuild': False},
                      since=(1, versions.MINOR_73_DEPLOY_UNDEPLOY_VERBS),
                      extras=_ACTIVE_EXTRAS),
    'undeploy': _Target('do_node_tear_down', {},
                        since=(1, versions.MINOR_73_DEPLOY_UNDEPLOY_VERBS)),
    'clean': _Target('do_node_clean', {},
                     since=(1, versions.MINOR_15_MANUAL_CLEAN),
                     extras={'clean_steps': (
                         1, versions.MINOR_15_MANUAL_CLEAN),
                         'disable_ramdisk': (
                             1, versions.MINOR_70_CLEAN_DISABLE_RAMDISK),
                         'runbook': (1, versions.MINOR_92_RUNBOOKS)}),
    'adopt': _Target('do_provisioning_action',
                     {'action': states.EVENT_ADOPT},
                     since=(1, versions.MINOR_17_ADOPT), release='0.11'),
    'rescue': _Target('do_node_rescue', {},
                      since=(1, versions.MINOR_38_RESCUE_INTERFACE),
                      extras={'rescue_password': (
                          1, versions.MINOR_38_RESCUE_INTERFACE)},
                      release='0.11'),
    'unrescue': _Target('do_node_unrescue', {},
                        since=(1, versions.MINOR_38_RESCUE_INTERFACE),
                        release='0.11'),
    'abort': _Target('do_provisioning_action',
                     {'action': states.EVENT_ABORT},
                     since=(1, versions.MINOR_13_ABORT)),
    'inspect': _Target('inspect_hardware', {},
                       since=(1, versions.MINOR_6_INSPECT_STATE)),
    'unhold': _Target('do_provisioning_action',
                      {'action': states.EVENT_UNHOLD},
                      since=(1, versions.MINOR_85_UNHOLD_VERB),
                      release='0.12'),
    'service': _Target('do_node_service', {},
                       since=(1, versions.MINOR_87_SERVICE),
                       extras=_SERVICE_EXTRAS, release='0.12'),
}
#: Where Ironic aborts from a later version than ``abort``'s own: the
#: provision state -> (what is aborted there, the version that allows it).
_ABORT_SINCE = {
    states.INSPECTWAIT: ('an inspection', versions.at(
        versions.MINOR_41_INSPECTION_ABORT)),
    states.DEPLOYWAIT: ('a deploy in wait call-back', versions.at(
        versions.MINOR_110_DEPLOYWAIT_ABORT)),
}
_LAST_ABORT_VERSION = max(needed for _what, needed in _ABORT_SINCE.values())
#: What a request body may name, at the versions that introduced it.
_BODY_KEYS = ('target', 'deploy_steps', 'clean_steps', 'service_steps',
              'configdrive', 'disable_ramdisk', 'rescue_password', 'runbook')

#: Power targets -> the version that accepts them.
_POWER_TARGETS = {
    states.POWER_ON: versions.MINOR_1_INITIAL_VERSION,
    states.POWER_OFF: versions.MINOR_1_INITIAL_VERSION,
    states.REBOOT: versions.MINOR_1_INITIAL_VERSION,
    states.SOFT_POWER_OFF: versions.MINOR_27_SOFT_POWER_OFF,
    states.SOFT_REBOOT: versions.MINOR_27_SOFT_POWER_OFF,
}
#: Power is left alone while cleaning, whose steps may be using it.
_NO_POWER_CHANGE_STATES = (states.CLEANING, states.CLEANWAIT)


@blueprint.get('')
def show(ident):
    context = flask.g.context
    tenancy.authorize_ident('baremetal:node:get', context,
                            ident, flask.g.version)
    node = node_ident.get_row(context, ident, flask.g.version)
    return responses.json_response(node_view.states(node, flask.g.version))


def _target(request_body, version):
    name = request_body.get('target')
    target = _TARGETS.get(name) if isinstance(name, str) else None
    if target is None:
        valid = [n for n, t in _TARGETS.items() if t.since <= version]
        raise exception.InvalidParameterValue(
            err='Unknown provision target %r; valid targets at API version '
                '%s: %s' % (name, versions.to_string(version),
                            ', '.join(valid)))
    if version < target.since:
        # Ironic's answer to a verb from a later version: 406.
        raise errors.FeatureNotInVersion(
            feature='Provision target %r' % name,
            needed=versions.to_string(target.since),
            version=versions.to_string(version))
    if target.release and release_mappings.pinned_before(CONF,
                                                         target.release):
        raise exception.NotInPinnedRelease(
            feature='Provision target %r' % name, needed=target.release,
            pinned=CONF.pin_release_version)
    return name, target


def _extras(name, target, request_body, version):
    """The target's extra body values, each checked against its version."""
    extras = {}
    for key in _BODY_KEYS[1:]:
        if key not in request_body:
            continue
        # A key from a later version does not exist yet, whatever the
        # target: 406 before the target's own rules, as Ironic answers.
        first = min(t.extras[key] for t in _TARGETS.values()
                    if key in t.extras)
        if version < first:
            raise errors.FeatureNotInVersion(
                feature=key, needed=versions.to_string(first),
                version=versions.to_string(version))
        needed = target.extras.get(key)
        if needed is None:
            raise exception.InvalidParameterValue(
                err='%s cannot be given with target %r' % (key, name))
        if version < needed:
            raise errors.FeatureNotInVersion(
                feature=key, needed=versions.to_string(needed),
                version=versions.to_string(version))
        extras[key] = request_body[key]
    if 'runbook' in extras:
        _check_runbook_request(name, extras)
    else:
        for flow in ('clean', 'service'):
            if name == flow and '%s_steps' % flow not in extras:
                raise exception.MissingParameterValue(
                    err='target %s needs %s_steps: the steps to run, in '
                        'order' % (flow, flow))
    if name == 'rescue' and 'rescue_password' not in extras:
        raise exception.MissingParameterValue(
            err='target rescue needs rescue_password: the password of the '
                'rescue environment\'s user')
    if 'disable_ramdisk' in extras:
        extras['disable_ramdisk'] = _flag('disable_ramdisk',
                                          extras['disable_ramdisk'])
    if 'configdrive' in extras:
        if extras['configdrive'] in (None, '', {}):
            del extras['configdrive']   # Ironic's "no config drive"
        else:
            _check_configdrive(extras['configdrive'], version)
    return extras


def _check_runbook_request(name, extras):
    """A runbook names the steps and whether to boot the agent itself."""
    if not isinstance(extras['runbook'], str) or not extras['runbook']:
        raise exception.InvalidParameterValue(
            err='runbook must be the name or UUID of a runbook, got %r'
                % (extras['runbook'],))
    given = sorted({'%s_steps' % name, 'disable_ramdisk'} & set(extras))
    if given:
        raise exception.InvalidParameterValue(
            err='give either a runbook or %s, not both: the runbook says '
                'which steps run and whether the agent boots'
                % ' and '.join(given))


def _run_runbook(context, ident, version, name, extras):
    """The extras of a request naming a runbook: the runbook's steps as
    the target's ``clean_steps`` or ``service_steps`` (see
    :func:`runbook_access.steps_of_runbook`)."""
    node = node_ident.get_row(context, ident, version, with_traits=True)
    extras = dict(extras)
    extras['%s_steps' % name], disable_ramdisk = (
        runbook_access.steps_of_runbook(context, node,
                                        extras.pop('runbook'), version))
    if disable_ramdisk:
        extras['disable_ramdisk'] = True
    return extras


def _flag(key, value):
    """A boolean body value; "true" / "false" as Ironic's clients may
    send them (any case)."""
    if isinstance(value, str) and value.lower() in ('true', 'false'):
        return value.lower() == 'true'
    if not isinstance(value, bool):
        raise exception.InvalidParameterValue(
            err='%s must be true or false, got %r' % (key, value))
    return value


_CONFIGDRIVE_OBJECT = (1, versions.MINOR_56_BUILD_CONFIGDRIVE)
_CONFIGDRIVE_VENDOR_DATA = (1, versions.MINOR_59_CONFIGDRIVE_VENDOR_DATA)


def _check_configdrive(value, version):
    if isinstance(value, dict):
        feature, needed = 'A configdrive object', _CONFIGDRIVE_OBJECT
        if version >= needed and 'vendor_data' in value:
            feature, needed = ('configdrive vendor_data',
                               _CONFIGDRIVE_VENDOR_DATA)
        if version < needed:
            raise errors.FeatureNotInVersion(
                feature=feature, needed=versions.to_string(needed),
                version=versions.to_string(version))
    configdrive.check(value, CONF.deploy.configdrive_max_bytes)


@blueprint.put('/provision')
def set_provision_state(ident):
    context, version = flask.g.context, flask.g.version
    tenancy.authorize_ident('baremetal:node:set_provision_state', context,
                            ident, flask.g.version)
    request_body = body.json_object(_BODY_KEYS)
    name, target = _target(request_body, version)
    extras = _extras(name, target, request_body, version)
    if 'runbook' in extras:
        extras = _run_runbook(context, ident, version, name, extras)
    requested = (extras.get('deploy_steps') or extras.get('clean_steps')
                 or extras.get('service_steps'))
    if isinstance(requested, list) and 'runbook' not in request_body:
        policy.authorize_steps(context, requested, node=lambda: (
            node_ident.get_row(context, ident, version)))
    rpcapi = flask.g.rpcapi
    if name == 'abort' and version < _LAST_ABORT_VERSION:
        _check_abort_version(node_ident.get_row(context, ident, version),
                             version)
    if target.method == 'do_node_deploy' and not rpcapi.can_send_version(
            '1.2'):
        # Conductors of the previous release tell active from rebuild by
        # the node's state: refuse the one they would take for the other.
        node = node_ident.get_row(context, ident, version)
        state_machine.next_state(
            node.provision_state, states.EVENT_REBUILD
            if target.kwargs['rebuild'] else states.EVENT_DEPLOY,
            node=node.uuid)
        node_uuid = node.uuid
    else:
        node_uuid = node_ident.get_uuid(context, ident, version)
    getattr(rpcapi, target.method)(context, node_uuid, **target.kwargs,
                                   **extras)
    return responses.empty(202, headers={
        'Location': responses.url('nodes', node_uuid, 'states')})


def _check_abort_version(node, version):
    """:raises AbortNotInVersion: (406, as Ironic) for an abort from a
    state Ironic aborts from at a later version only."""
    what, needed = _ABORT_SINCE.get(node.provision_state, (None, version))
    if version < needed:
        raise errors.AbortNotInVersion(
            what=what, needed=versions.to_string(needed),
            version=versions.to_string(version))


def _power_request(request_body, version):
    """(target, timeout) of a power request, checked against ``version``."""
    target = request_body.get('target')
    if not isinstance(target, str) or target not in _POWER_TARGETS:
        raise exception.InvalidParameterValue(
            err='Unknown power target %r; valid targets: %s' % (
                target, ', '.join(t for t, minor in _POWER_TARGETS.items()
                                  if version >= versions.at(minor))))
    versions.require(version, _POWER_TARGETS[target],
                     'Power target %r' % target)
    timeout = request_body.get('timeout')
    if timeout is not None:
        versions.require(version, versions.MINOR_27_SOFT_POWER_OFF,
                         'A power timeout')
        if (not isinstance(timeout, int) or isinstance(timeout, bool)
                or timeout < 1):
            raise exception.InvalidParameterValue(
                err='timeout must be a positive integer (seconds), got %r'
                    % (timeout,))
    return target, timeout


@blueprint.put('/power')
def set_power_state(ident):
    context, version = flask.g.context, flask.g.version
    tenancy.authorize_ident('baremetal:node:set_power_state', context,
                            ident, flask.g.version)
    target, timeout = _power_request(
        body.json_object(('target', 'timeout')), version)
    node = node_ident.get_row(context, ident, version)
    if node.provision_state in _NO_POWER_CHANGE_STATES:
        raise exception.InvalidStateRequested(
            action=target, node=node.uuid, state=node.provision_state,
            allowed='none while cleaning')
    flask.g.rpcapi.change_node_power_state(context, node.uuid, target,
                                           timeout=timeout)
    return responses.empty(202, headers={
        'Location': responses.url('nodes', node.uuid, 'states')})


@blueprint.put('/raid')
def set_raid_state(ident):
    """The body is the target RAID configuration itself ({} clears it)."""
    context, version = flask.g.context, flask.g.version
    tenancy.authorize_ident('baremetal:node:set_raid_state', context,
                            ident, flask.g.version)
    versions.require(version, versions.MINOR_12_RAID_CONFIG,
                     'Setting the target RAID configuration')
    target_raid_config = body.json_body()
    if not isinstance(target_raid_config, dict):
        raise exception.InvalidParameterValue(
            err='The target RAID configuration must be a JSON object, got '
                '%r' % (target_raid_config,))
    node = node_ident.get_row(context, ident, version)
    try:
        flask.g.rpcapi.set_target_raid_config(context, node.uuid,
                                              target_raid_config)
    except exception.UnsupportedDriverExtension as exc:
        # As in Ironic: a node without RAID is a missing resource.
        raise exception.NotFound(str(exc)) from exc
    return responses.empty(204)


_BOOT_MODE_VERSION = (1, versions.MINOR_76_NODE_CHANGE_BOOT_MODE)


def _change_boot_setting(ident, converter, rule, rpc_method):
    """Check the ``target`` of a boot setting request with ``converter``
    (which raises InvalidParameterValue) and hand it to the conductor's
    ``rpc_method``: 202, done in a worker; a failure is the node's
    last_error."""
    context, version = flask.g.context, flask.g.version
    versions.check_endpoint(version, _BOOT_MODE_VERSION,
                            flask.request.path, flask.request.method)
    target = converter(body.json_object(('target',)).get('target'))
    tenancy.authorize_ident(rule, context, ident, flask.g.version)
    node_uuid = node_ident.get_uuid(context, ident, version)
    getattr(flask.g.rpcapi, rpc_method)(context, node_uuid, target)
    return responses.empty(202, headers={
        'Location': responses.url('nodes', node_uuid, 'states')})


def _boot_mode_target(value):
    if value not in boot_modes.BOOT_MODES:
        raise exception.InvalidParameterValue(
            err='Unknown boot mode %r; choose one of: %s' % (
                value, ', '.join(boot_modes.BOOT_MODES)))
    return value


def _secure_boot_target(value):
    try:
        return _flag('target', value)
    except exception.InvalidParameterValue:
        raise exception.InvalidParameterValue(
            err='Secure boot target must be true or false, got %r'
                % (value,)) from None


@blueprint.put('/boot_mode')
def set_boot_mode(ident):
    """``{"target": "uefi" | "bios"}`` (1.76)."""
    return _change_boot_setting(ident, _boot_mode_target,
                                'baremetal:node:set_boot_mode',
                                'change_node_boot_mode')


@blueprint.put('/secure_boot')
def set_secure_boot(ident):
    """``{"target": true | false}`` (1.76)."""
    return _change_boot_setting(ident, _secure_boot_target,
                                'baremetal:node:set_secure_boot',
                                'change_node_secure_boot')
