"""Decode request bodies as strict JSON, which every client can read back.

Python's ``json`` module accepts more than JSON (RFC 8259): ``NaN``,
``Infinity``, numbers such as ``1e999`` that become infinite, repeated
object keys (the last one wins, silently), and escaped lone surrogates
(``"\\ud800"``), which no UTF-8 encoder can write, so they break log lines
and strict readers later; and it lets ``"\\u0000"`` through, a NUL
character that PostgreSQL cannot store in a text column (a 500 in the
distributed mode, once).  Its decoder also recurses once per nesting
level, so a body of 100,000 ``[`` exhausts the stack.  :func:`loads`
refuses all of these with a :class:`StrictJSONError` naming the problem,
and whatever it returns is plain JSON again: bodies stored from it can be
read back by any client.

Nothing here knows about HTTP or the API; :mod:`body` reads the request
and turns a refusal into a 400.
"""

import json
import math
import re


class StrictJSONError(ValueError):
    """A body that is not strict JSON; the message says why."""


_SURROGATE = re.compile('[\ud800-\udfff]')


def _no_constants(name):
    raise StrictJSONError('%s is not a JSON number' % name)


def _finite_float(text):
    number = float(text)
    if not math.isfinite(number):
        raise StrictJSONError('number %s is out of range' % text[:40])
    return number


def _object(pairs):
    result = dict(pairs)
    if len(result) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise StrictJSONError('key %s appears twice in one object'
                                      % json.dumps(key)[:100])
            seen.add(key)
    return result


def _check_text(text):
    if not text.isascii() and _SURROGATE.search(text):
        raise StrictJSONError('a string holds an unpaired UTF-16 surrogate '
                              '(\\ud800-\\udfff), which is not text')
    if '\x00' in text:
        raise StrictJSONError('a string holds a NUL character (\\u0000), '
                              'which cannot be stored as text')


def check_tree(value, max_depth):
    """Refuse a document nested deeper than ``max_depth`` or holding an
    unpaired surrogate or a NUL character; iterative, so any depth is safe
    to check.

    :raises StrictJSONError:
    """
    stack = [(value, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            items = value.values()
            for key in value:
                _check_text(key)
        elif isinstance(value, list):
            items = value
        else:
            if isinstance(value, str):
                _check_text(value)
            continue
        if depth > max_depth:
            raise _too_deep(max_depth)
        stack.extend((item, depth + 1) for item in items)


def count_values(value, budget):
    """How many JSON values ``value`` holds (itself included), counting no
    further than ``budget`` + 1, so that an enormous value costs little."""
    count, stack = 0, [value]
    while stack and count <= budget:
        value = stack.pop()
        count += 1
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return count


def _too_deep(max_depth):
    return StrictJSONError('objects and arrays are nested deeper than %d '
                           'levels' % max_depth)


def loads(raw, max_depth):
    """The JSON document in ``raw`` (UTF-8 bytes), strictly.

    :param max_depth: how many objects and arrays may nest in each other
        (``{"a": [1]}`` is 2 deep).
    :raises StrictJSONError: naming what is not strict JSON.
    """
    try:
        text = raw.decode('utf-8')
    except UnicodeDecodeError as exc:
        raise StrictJSONError('the body is not UTF-8 text (byte %d)'
                              % exc.start) from exc
    try:
        value = json.loads(text, parse_constant=_no_constants,
                           parse_float=_finite_float,
                           object_pairs_hook=_object)
    except RecursionError as exc:
        # The decoder recursed as deep as the interpreter allows: far
        # deeper than any limit, so this is the same refusal.
        raise _too_deep(max_depth) from exc
    except StrictJSONError:
        raise
    except ValueError as exc:
        # json.JSONDecodeError, and int() refusing a number of more digits
        # than the interpreter converts.
        raise StrictJSONError('malformed JSON: %s' % exc) from exc
    check_tree(value, max_depth)
    return value
