"""Secrets in the free-form dicts of a resource: what they are, hiding them.

A value whose key contains ``password``, ``secret``, ``token``, ``key`` or
``configdrive`` (any case; a config drive carries SSH keys and passwords)
is a secret, at any depth, inside dicts and lists alike, in the
fields a resource masks (a node's ``driver_info``, ``driver_internal_info``
and ``instance_info``, and its ``deploy_step`` and ``clean_step``, whose
``args`` may carry credentials, as may a deploy template's ``steps``; the
node an agent looks up).  Matching is deliberately
broad: showing ``******`` for a harmless ``keyboard_layout`` costs less
than leaking a BMC password.

Secrets are write-only: they are shown as ``******`` (:func:`mask`), and
no request may read them any other way.  A JSON patch may set (``add``,
``replace``) and ``remove`` them, but not ``test`` them (a test would tell
a secret by trying values), nor ``copy`` or ``move`` them (a copy in a
field that is not masked would show it); :func:`path_is_secret` and
:func:`holds_secret` tell which paths and values that rule covers.  No
error message and no log line carries the value of a secret.

The API masks what it shows and the conductor what it records (a step's
arguments in the step history), by this one rule: so it lives in
``common``, below both.
"""

import functools

MASK = '******'
_SECRET_WORDS = ('password', 'secret', 'token', 'key', 'configdrive')
_CONTAINERS = (dict, list)


# Every node shown asks again about the same few dozen keys.
@functools.lru_cache(maxsize=4096)
def is_secret(key):
    key = str(key).lower()
    return any(word in key for word in _SECRET_WORDS)


def mask(value):
    """A copy of ``value`` with every secret replaced by :data:`MASK`."""
    if isinstance(value, dict):
        return {k: MASK if is_secret(k) else
                mask(v) if isinstance(v, _CONTAINERS) else v
                for k, v in value.items()}
    if isinstance(value, list):
        return [mask(item) if isinstance(item, _CONTAINERS) else item
                for item in value]
    return value


def path_is_secret(parts):
    """Whether a path inside a masked field (its parts below the field)
    passes through a secret's key, and so leads to a secret or into one."""
    return any(is_secret(part) for part in parts)


def holds_secret(value):
    """Whether ``value`` has a secret anywhere inside it."""
    stack = [value]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if any(is_secret(key) for key in value):
                return True
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False
