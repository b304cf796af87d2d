"""Hide secrets in the free-form dicts a node body shows.

A value whose key contains ``password``, ``secret``, ``token`` or ``key``
(any case) is shown as ``******``, at any depth, inside dicts and lists
alike.  Matching is deliberately broad: showing ``******`` for a harmless
``keyboard_layout`` costs less than leaking a BMC password.
"""

MASK = '******'
_SECRET_WORDS = ('password', 'secret', 'token', 'key')


def is_secret(key):
    key = str(key).lower()
    return any(word in key for word in _SECRET_WORDS)


def mask(value):
    """A copy of ``value`` with every secret replaced by :data:`MASK`."""
    if isinstance(value, dict):
        return {k: MASK if is_secret(k) else mask(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [mask(item) for item in value]
    return value
