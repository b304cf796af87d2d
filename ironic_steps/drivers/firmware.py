"""What a firmware update asks for, and the node's firmware component cache.

Every firmware interface offers the step ``firmware.update`` (Ironic's,
API 1.86), whose one argument, ``settings``, is a *settings list*::

    [{"component": "bios", "url": "http://images/bios-2.1.0.bin"},
     {"component": "bmc", "url": "https://images/bmc-5.10.bin", "wait": 30}]

- ``component``: which firmware the image is for, one of
  :data:`COMPONENTS`;
- ``url``: where the BMC (or the fake machine) fetches the image, an
  http(s) URL;
- ``wait`` (optional): seconds to wait once the component is updated,
  before the next one (a BMC that restarts after its own update).

Components are updated in the list's order.  :func:`checked_settings`
checks a list, naming the first problem by its position; it is the
step's precheck too (:func:`precheck_update`), so a request with a bad
list is refused (400) before anything changes.

The *component cache* is what ``GET /v1/nodes/{node}/firmware`` shows: for
each component, the version the node first reported, the one it reports
now and the one last flashed.  A firmware interface reads the versions
from the hardware (after an update, when the node is managed or inspected,
as Ironic does) and hands them over through :func:`cache_components`, the
one door from drivers to the cache: drivers touch neither objects nor the
database.  This module never talks to hardware.
"""

import typing

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.drivers import hardware_cache

LOG = log.getLogger(__name__)

#: The components an update may name (Ironic's redfish names).
BIOS = 'bios'
BMC = 'bmc'
COMPONENTS = (BIOS, BMC)

#: The arguments of every firmware interface's update step.
UPDATE_ARGSINFO = {
    'settings': {
        'description': 'A list of {"component": "bios" or "bmc", "url": '
                       '<http(s) URL of the image>, "wait": <optional '
                       'seconds to wait after it>} updates, applied in '
                       'order.',
        'required': True,
    },
}

_KEYS = frozenset(['component', 'url', 'wait'])


def _problem(index, setting):
    """What is wrong with ``settings[index]``, or None."""
    if not isinstance(setting, dict):
        return 'must be a {"component", "url"} object, got a %s' % (
            type(setting).__name__)
    unknown = sorted(set(map(str, setting)) - _KEYS)
    if unknown:
        return 'has unknown key(s) %s; allowed: component, url, wait' % (
            ', '.join(unknown))
    component = setting.get('component')
    if component not in COMPONENTS:
        return 'component must be one of %s, got %r' % (
            ', '.join(COMPONENTS), component)
    url = setting.get('url')
    if not isinstance(url, str) or not url.startswith(('http://',
                                                       'https://')):
        return 'url must be an http(s) URL of the %s image, got %r' % (
            component, url if not isinstance(url, str) else url[:200])
    wait = setting.get('wait')
    if wait is not None and (not isinstance(wait, int)
                             or isinstance(wait, bool) or wait < 1):
        return 'wait must be a positive number of seconds, got %r' % (wait,)
    return None


def checked_settings(settings) -> list:
    """``settings`` (a settings list) as a list of dicts, each with
    ``component``, ``url`` and ``wait`` (None when not given).

    :raises InvalidParameterValue: naming the first problem.
    """
    if not isinstance(settings, list) or not settings:
        raise exception.InvalidParameterValue(
            err='firmware.update needs settings: a non-empty list of '
                '{"component": %s, "url": <http(s) URL>} updates, got %s' % (
                    ' or '.join(COMPONENTS),
                    'an empty list' if settings == [] else
                    'a %s' % type(settings).__name__))
    checked = []
    for index, setting in enumerate(settings):
        problem = _problem(index, setting)
        if problem:
            raise exception.InvalidParameterValue(
                err='firmware.update settings[%d] %s' % (index, problem))
        checked.append({'component': setting['component'],
                        'url': setting['url'],
                        'wait': setting.get('wait')})
    return checked


def precheck_update(task, settings=None, **_ignored):
    """The update step's precheck: the settings list is well formed."""
    checked_settings(settings)


def cache_components(task, components: typing.Iterable[dict]) -> bool:
    """Record the versions the node's firmware components run now.

    :param components: dicts with ``component`` and ``current_version``,
        and optionally ``vendor``, ``model`` and ``serial_number``.  A
        component seen for the first time gets its ``initial_version``;
        one whose version changed gets it as ``last_version_flashed``;
        components not listed are kept as they were.  Written at once, in
        one transaction; call it holding the node's lock.
    :returns: whether the cache was written.  While the services are
        pinned to a release without the cache (a rolling upgrade), nothing
        is written and the caller goes on: the cache records the work, it
        is not the work.
    """
    try:
        task.sync_firmware_components(list(components))
    except exception.NotInPinnedRelease as exc:
        LOG.debug('Firmware components of node %s not cached: %s',
                  task.node.uuid, exc)
        return False
    return True


def read_into_cache(task) -> bool:
    """Ask the node's firmware interface to read its components into the
    cache, as Ironic does when a node is managed, inspected or cleaned: never
    fails the caller (see :func:`ironic_steps.drivers.hardware_cache.read`).

    :returns: whether the cache was written.
    """
    return hardware_cache.read(task, 'firmware', 'cache_firmware_components',
                               'firmware components')
