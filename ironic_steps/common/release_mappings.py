"""What each release speaks: API microversion, RPC version, object versions.

During a rolling upgrade, ``[DEFAULT] pin_release_version`` names the
release every service still running must understand.  A pinned service
caps what it sends at that release's entry here: the API's maximum
microversion, the conductor RPC version and the version of every object it
sends or saves.

When adding a release, or changing a version:

* add the new release at the end, copying the previous entry and changing
  only what changed; never edit an entry once released;
* ``master`` always equals the newest release plus unreleased changes, and
  equals the versions in the code (a test checks it);
* every registered object appears in every release that has it.
"""

import collections

RELEASE_MAPPING = collections.OrderedDict([
    # Before deploy steps: a deploy was one call to DeployInterface.deploy.
    ('0.1', {
        'api': '1.43',
        'rpc': '1.0',
        'objects': {'Node': ['1.0']},
    }),
    # Deploy steps: Node.deploy_step, continue_node_deploy, API 1.44.
    ('0.2', {
        'api': '1.44',
        'rpc': '1.1',
        'objects': {'Node': ['1.1']},
    }),
    # Operators choose the steps; the node API up to 1.69 (power, RAID,
    # maintenance, validate, conductors, ...).
    ('0.3', {
        'api': '1.69',
        'rpc': '1.2',
        'objects': {'Node': ['1.2'], 'Conductor': ['1.0']},
    }),
])

RELEASE_MAPPING['master'] = RELEASE_MAPPING[next(reversed(RELEASE_MAPPING))]

#: Release names an operator may pin to, oldest first.
RELEASES = [name for name in RELEASE_MAPPING if name != 'master']


def pinned_release(conf):
    """The mapping entry of the pinned release, or None when unpinned."""
    name = conf.pin_release_version
    return RELEASE_MAPPING[name] if name else None


def object_version(conf, obj_name, current):
    """The version of ``obj_name`` to send and save under the pin."""
    release = pinned_release(conf)
    if release is None:
        return current
    return release['objects'][obj_name][-1]
