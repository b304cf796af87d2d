"""Secrets in the free-form dicts of a resource: what they are, hiding them.

A secret is, at any depth, inside dicts and lists alike, in the fields a
resource masks (a node's ``driver_info``, ``driver_internal_info``,
``instance_info``, ``network_data`` and ``last_error``, and its
``deploy_step`` and ``clean_step``, whose ``args`` may carry credentials,
as may a deploy template's ``steps``; the node an agent looks up; a step
history entry; a log line):

* the value of a key that names one (:func:`is_secret`): a key containing
  ``password``, ``secret``, ``token``, ``key``, ``signature`` or
  ``configdrive`` (any case; a config drive, masked whole whatever its
  type, carries SSH keys and passwords), one of oslo's
  sanitize keys (:data:`oslo_utils.strutils._SANITIZE_KEYS`, as Ironic
  masks), or a key with a word such as ``pass``, ``passwd``, ``pw`` or
  ``credential`` in it (``adminPass``, ``bmc_pw``; ``passes`` is not);
* the ``value`` of a name/value pair whose ``name`` names one, as BIOS
  and firmware settings are listed (``{"name": "AdminPassword",
  "value": ...}``);
* in a URL, a password (``https://user:PASSWORD@host``; a lone user,
  ``https://TOKEN@host``, is masked whole) and a signature in
  its query (Swift's ``temp_url_sig``, S3's ``X-Amz-Signature``, any
  parameter named like a secret): the rest of the URL stays readable,
  unlike Ironic, which hides a whole ``image_url``;
* in any text (a string value, an error, a log line), what oslo's
  :func:`strutils.mask_password` masks (``password=...``, ``--password
  ...``, ``"token": "..."``) and the secrets of the URLs in it
  (:func:`mask_text`).

Matching is deliberately broad: showing ``******`` for a harmless
``keyboard_layout`` costs less than leaking a BMC password.

Secrets are write-only: they are shown as ``******`` (:func:`mask`), and
no request may read them any other way.  A JSON patch may set (``add``,
``replace``) and ``remove`` them, but not ``test`` them (a test would tell
a secret by trying values), nor ``copy`` or ``move`` them (a copy in a
field that is not masked would show it); :func:`path_is_secret` and
:func:`holds_secret` tell which paths and values that rule covers.  No
error message and no log line carries the value of a secret.

The API masks what it shows and the conductor what it records (a step's
arguments and error in the step history), by this one rule: so it lives in
``common``, below both.  Cost: showing a node masks each of its values;
a string is looked at once (a cache of the strings seen), so a node shown
again costs a lookup per string, not a scan.
"""

import functools
import re
import urllib.parse

from oslo_utils import strutils

MASK = '******'
#: oslo's sanitize keys, which Ironic masks (``mask_dict_password``).
_SANITIZE_KEYS = tuple(strutils._SANITIZE_KEYS)
#: A key containing one of these is a secret's.
_SECRET_PARTS = ('password', 'secret', 'token', 'key', 'configdrive',
                 'signature') + _SANITIZE_KEYS
#: A key with one of these as a word of its own is a secret's (a word:
#: between separators or at a change of case; ``passes`` is no ``pass``).
_SECRET_WORDS = frozenset(['pass', 'passwd', 'pwd', 'pw', 'pswd', 'sig',
                           'credential', 'credentials', 'cookie', 'kek'])
_WORD = re.compile(r'[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+')
_CONTAINERS = (dict, list)
#: Whether a text (lowered) may hold what ``strutils.mask_password``
#: masks: one scan, where that function lowers the text once per key.
#: (``re.IGNORECASE`` would make the scan ten times slower.)
_NAMES_A_SANITIZE_KEY = re.compile(
    '|'.join(re.escape(key) for key in _SANITIZE_KEYS))
#: A URL inside a text: up to a space or a quote.
_URL_IN_TEXT = re.compile(r'[A-Za-z][A-Za-z0-9+.-]*://[^\s\'"<>]+')
#: Strings longer than this are not kept in :data:`_SEEN`.
_CACHED_UP_TO = 512


# Every node shown asks again about the same few dozen keys.
@functools.lru_cache(maxsize=4096)
def is_secret(key):
    """Whether ``key`` names a secret (see the module docstring)."""
    key = str(key)
    lowered = key.lower()
    return (any(part in lowered for part in _SECRET_PARTS)
            or any(word.lower() in _SECRET_WORDS
                   for word in _WORD.findall(key)))


def _is_secret_pair(value):
    """Whether dict ``value`` is a name/value pair naming a secret, or a
    path/value pair whose path leads to one (an inspection rule's
    ``{"path": "driver_info/redfish_password", "value": ...}``)."""
    if 'value' not in value:
        return False
    name = value.get('name', value.get('path'))
    return isinstance(name, str) and is_secret(name)


@functools.lru_cache(maxsize=4096)
def _masked_url(text):
    parts = urllib.parse.urlsplit(text)
    netloc = parts.netloc
    userinfo, at, host = netloc.rpartition('@')
    if at:
        # user:PASSWORD, or a lone TOKEN (https://TOKEN@host)
        user, colon, _password = userinfo.partition(':')
        netloc = (user + ':' if colon else '') + MASK + '@' + host
    query = parts.query
    if query:
        pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
        if any(is_secret(name) for name, _value in pairs):
            query = '&'.join(
                '%s=%s' % (urllib.parse.quote(name, safe=''),
                           MASK if is_secret(name)
                           else urllib.parse.quote(value, safe=''))
                for name, value in pairs)
    if netloc == parts.netloc and query == parts.query:
        return text
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc,
                                                  query=query))


def _mask_url(match):
    try:
        return _masked_url(match.group())
    except ValueError:
        return MASK   # not a URL after all; better hidden than parsed wrong


def mask_text(text):
    """``text`` with the secrets in it masked: what oslo's
    :func:`strutils.mask_password` masks, and in each URL its password and
    signature."""
    if _NAMES_A_SANITIZE_KEY.search(text.lower()):
        text = strutils.mask_password(text, MASK)
    # Cheap tests first: most texts hold no URL with a secret.
    if '://' in text and ('?' in text or '@' in text):
        text = _URL_IN_TEXT.sub(_mask_url, text)
    return text


#: string -> the string masked, for the strings seen (a plain dict: a
#: lookup costs a fifth of an ``lru_cache`` call); emptied when full.
#: At most 16384 strings of at most 512 characters: 8 MiB at worst.
_SEEN = {}
_SEEN_AT_MOST = 16384


def _mask_string(value):
    """:func:`mask_text` of a string value, through :data:`_SEEN`: a node
    shown again shows the same strings."""
    masked = _SEEN.get(value)
    if masked is None:
        masked = mask_text(value)
        if len(value) <= _CACHED_UP_TO:
            if len(_SEEN) >= _SEEN_AT_MOST:
                _SEEN.clear()
            _SEEN[value] = masked
    return masked


def mask(value):
    """A copy of ``value`` with every secret replaced by :data:`MASK`."""
    # Written out, not through a helper per value: every node shown comes
    # here for each of its values, and most need no work at all.
    if isinstance(value, dict):
        secret = (lambda key: key == 'value') if _is_secret_pair(
            value) else is_secret
        return {k: MASK if secret(k) else
                mask(v) if isinstance(v, _CONTAINERS) else
                _mask_string(v) if isinstance(v, str) else v
                for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) if isinstance(v, _CONTAINERS) else
                _mask_string(v) if isinstance(v, str) else v
                for v in value]
    if isinstance(value, str):
        return _mask_string(value)
    return value


def path_is_secret(parts, document=None):
    """Whether a path inside a masked field (its parts below the field)
    passes through a secret's key, and so leads to a secret or into one;
    given the field's ``document``, also whether it passes through the
    ``value`` of a name/value pair naming a secret."""
    if any(is_secret(part) for part in parts):
        return True
    for part in parts:
        if isinstance(document, dict):
            if part == 'value' and _is_secret_pair(document):
                return True
            document = document.get(part)
        elif isinstance(document, list) and str(part).isdigit():
            index = int(part)
            document = document[index] if index < len(document) else None
        else:
            return False
    return False


def holds_secret(value):
    """Whether ``value`` has a secret anywhere inside it."""
    stack = [value]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if any(is_secret(key) for key in value) or _is_secret_pair(
                    value):
                return True
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str) and _mask_string(value) != value:
            return True
    return False
