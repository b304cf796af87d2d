"""What a trait is: the names node traits and deploy templates may take.

A trait names a capability, as Placement and Ironic spell them: one of the
standard traits of the ``os-traits`` library (``HW_CPU_X86_VMX``), or a
custom one, ``CUSTOM_`` followed by capital letters, digits and
underscores; at most 255 characters either way.  A node has at most
:data:`MAX_PER_NODE` of them, as in Ironic.  A deploy template's name is a
trait: a deploy applies the templates named by the traits it asks for.
"""

import re

import os_traits

from ironic_steps.common import exception

MAX_LENGTH = 255
MAX_PER_NODE = 50
CUSTOM_PREFIX = os_traits.CUSTOM_NAMESPACE
# Anchored with \A and \Z: ``$`` also matches before a final newline.
_CUSTOM = re.compile(r'\A%s[A-Z0-9_]+\Z' % re.escape(CUSTOM_PREFIX))
STANDARD = frozenset(os_traits.get_traits())

#: What a valid trait looks like, said in error messages.
RULE = ('a trait is a standard trait of os-traits (e.g. HW_CPU_X86_VMX) or '
        '%s followed by capital letters, digits and underscores, at most '
        '%d characters' % (CUSTOM_PREFIX, MAX_LENGTH))


def problem(name):
    """Why ``name`` is not a trait, or None if it is one."""
    if not isinstance(name, str):
        return '%r is not a string' % (name,)
    if len(name) > MAX_LENGTH:
        return '%r is longer than %d characters' % (name, MAX_LENGTH)
    if name in STANDARD or _CUSTOM.match(name):
        return None
    return '%r is not a trait; %s' % (name, RULE)


def check(name):
    """``name``, if it is a trait.

    :raises InvalidTrait: naming it and saying what a trait is.
    """
    reason = problem(name)
    if reason is not None:
        raise exception.InvalidTrait(reason=reason)
    return name
