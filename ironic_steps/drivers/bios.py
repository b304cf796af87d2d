"""The node's cached BIOS settings, as BIOS interfaces record them.

The API shows a node's BIOS settings (``GET /v1/nodes/{node}/bios``) from
a cache, never from the hardware: a BIOS interface reads the settings from
the BMC whenever a step may have changed them (``apply_configuration``,
``factory_reset``) and hands them over here::

    from ironic_steps.drivers import bios

    @base.clean_step(priority=0, argsinfo=...)
    def apply_configuration(self, task, settings):
        ...                                      # change them on the BMC
        bios.cache_settings(task, read_all_attributes_from_the_bmc())

The cache then holds exactly what was handed over: a *settings map*
(``{name: value}``, or ``{name: {"value": ..., <registry facts>}}`` from
a BMC that describes its settings; see
:mod:`ironic_steps.objects.bios_setting`), replacing what it held before
in one transaction.  :func:`with_registry` builds the second form from
values and what the BMC's attribute registry says of them (the facts
:mod:`ironic_steps.common.bios_registry` defines; API 1.74 shows them).

This module is the one door from drivers to the cache (drivers touch
neither objects nor the database API themselves: the conductor's task
reads and writes it for them), so that how the cache is stored, and what
a rolling upgrade allows, can change without them.  It never talks to
hardware.
"""

import typing

from oslo_log import log

from ironic_steps.common import bios_registry
from ironic_steps.common import exception
from ironic_steps.drivers import hardware_cache

LOG = log.getLogger(__name__)


def cached_settings(task) -> dict[str, typing.Optional[str]]:
    """The node's cached BIOS settings, ``{name: value}`` ({} if none)."""
    return task.cached_bios_settings()


def cache_settings(task, settings: typing.Mapping[str, object]) -> bool:
    """Make ``settings`` (a settings map) the node's cached BIOS settings.

    Settings the map lacks are dropped from the cache; only those whose
    value changed get a new ``updated_at``.  One transaction, written at
    once (not with the node's next save).  Call it from a step, which
    holds the node's lock.

    :returns: whether the cache was written.  While the services are pinned
        to a release without the cache (a rolling upgrade), nothing is
        written and the step goes on: the cache records the work, it is
        not the work.
    :raises InvalidParameterValue: for a map of the wrong shape (nothing
        written); the message never quotes a value.
    """
    try:
        task.replace_bios_settings(settings)
    except exception.NotInPinnedRelease as exc:
        LOG.debug('BIOS settings of node %s not cached: %s', task.node.uuid,
                  exc)
        return False
    return True


def read_into_cache(task) -> bool:
    """Ask the node's BIOS interface to read its settings into the cache,
    as Ironic does when a node is managed (its ``node_update_cache``): never
    fails the caller (see :func:`ironic_steps.drivers.hardware_cache.read`).

    :returns: whether the cache was written.
    """
    return hardware_cache.read(task, 'bios', 'cache_bios_settings',
                               'BIOS settings')


def with_registry(values: typing.Mapping[str, object],
                  registry: typing.Mapping[str, typing.Mapping[str, object]],
                  node_uuid: typing.Optional[str] = None) -> dict:
    """A settings map of ``values`` (``{name: value}``), each setting with
    the registry facts ``registry`` has for its name.

    ``registry`` maps names to registry facts; a name it lacks has none
    known (a registry usually describes more attributes than a system
    has, sometimes fewer).  Facts of the wrong shape, as a BMC may report
    them, are left out (logged, naming ``node_uuid``): a registry's
    mistake never fails the step that caches the settings.
    """
    settings = {}
    for name, value in values.items():
        facts, dropped = bios_registry.usable(registry.get(name) or {})
        if dropped:
            LOG.warning('The attribute registry of node %s describes BIOS '
                        'setting %s with unusable %s; left unknown',
                        node_uuid, name, ', '.join(dropped))
        settings[name] = dict(facts, value=value)
    return settings


#: The arguments of every BIOS interface's apply_configuration step.
APPLY_CONFIGURATION_ARGSINFO = {
    'settings': {
        'description': 'A list of {"name": ..., "value": ...} BIOS '
                       'settings to apply.',
        'required': True,
    },
}


def requested_settings(settings):
    """``[{"name": ..., "value": ...}, ...]`` -> {name: value}, the later
    of two entries for one name winning, as applying them in order would.

    Problems are named by position and type only: BIOS settings may carry
    passwords.
    """
    if not isinstance(settings, list):
        raise exception.InvalidParameterValue(
            err='settings must be a list of {"name", "value"} dicts, '
                'got a %s' % type(settings).__name__)
    applied = {}
    for index, setting in enumerate(settings):
        if (not isinstance(setting, dict) or set(setting) != {'name', 'value'}
                or not isinstance(setting['name'], str)
                or not setting['name']):
            raise exception.InvalidParameterValue(
                err='settings[%d] must be a {"name": <non-empty string>, '
                    '"value": ...} dict%s' % (index, _keys_of(setting)))
        applied[setting['name']] = setting['value']
    return applied


def _keys_of(setting):
    if isinstance(setting, dict):
        return ', got one with keys %s' % ', '.join(sorted(map(str, setting)))
    return ', got a %s' % type(setting).__name__
