"""The x-steps extension: what ironic-steps offers beyond Ironic (preview,
resume, per-step timeouts), and whether it is on.

One switch for every layer: the API routes its paths, the conductor
honours its step keys, only while :func:`enabled`.
"""

from ironic_steps.conf import CONF
from ironic_steps import release_mappings

#: The release that brought the extension.
RELEASE = '0.6'


def enabled():
    """Whether the extension is on: not while pinned to a release from
    before it, whose conductors would not honour it (nor read a stored
    step carrying its keys)."""
    return not release_mappings.pinned_before(CONF, RELEASE)
