"""The agent token: the one secret that lets an agent resume its node.

A flow that waits for its agent (deploy, cleaning) is resumed by the
agent's heartbeat.  So that nobody else who can reach the API can resume it,
the agent proves itself with a token, as in Ironic (API 1.62): the first
lookup of the node during the flow hands a new random token out, once;
every later lookup sees it masked; a heartbeat without it, or with another,
is refused and changes nothing.  The token lives in
``driver_internal_info['agent_secret_token']`` (masked in every API view,
like any key naming a token) and is forgotten when the flow ends, fails or
is aborted, so a late heartbeat resumes nothing.

A heartbeat's token is checked before its node is locked or written
(:class:`KnownTokens`): a caller without the token cannot hold a node's
lock, even for a moment, nor make its conductor write.  The first lookup
itself can still be raced by whoever reaches the API before the agent does
(as in Ironic when the token is not passed on virtual media); the agent
that loses that race is refused and its deploy times out.

While pinned to a release from before tokens, none are handed out or
required, since the conductors of that release neither store nor send them.
"""

import collections
import hmac
import secrets
import threading

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.common import step_kinds
from ironic_steps.conf import CONF
from ironic_steps.db import api as db_api
from ironic_steps import objects
from ironic_steps import release_mappings

LOG = log.getLogger(__name__)

TOKEN_KEY = 'agent_secret_token'
#: Where the agent's heartbeat said it listens (a flow's agent's only).
URL_KEY = 'agent_url'
#: What a lookup shows once the token was handed out.
MASK = '******'
#: The first RPC version whose heartbeat carries the token.
RPC_VERSION = '1.2'


def required():
    """Whether heartbeats must carry a token (not while pinned before)."""
    pinned = release_mappings.pinned_release(CONF)
    return pinned is None or release_mappings.rpc_at_least(pinned,
                                                           RPC_VERSION)


def hand_out(info):
    """The token for the agent's lookup: new the first time, then masked.

    :param info: the node's ``driver_internal_info`` as read.
    :returns: (token as shown, the ``driver_internal_info`` to store, or
        None when nothing changes).
    """
    info = info or {}
    if info.get(TOKEN_KEY):
        return MASK, None
    token = secrets.token_urlsafe(32)
    return token, {**info, TOKEN_KEY: token}


def _same(expected, token):
    return (bool(expected) and isinstance(token, str)
            and hmac.compare_digest(expected.encode(), token.encode()))


def check(node, token):
    """:raises InvalidAgentToken: unless ``token`` is the node's token."""
    if not required():
        return
    if not _same((node.driver_internal_info or {}).get(TOKEN_KEY), token):
        raise exception.InvalidAgentToken()


def check_logged(node, token):
    """:func:`check`, a refusal logged."""
    try:
        check(node, token)
    except exception.InvalidAgentToken:
        LOG.warning('Heartbeat for node %s refused: invalid or missing agent '
                    'token', node.uuid)
        raise


class KnownTokens:
    """The tokens a conductor handed out or saw accepted, by node.

    A heartbeat whose token is the one known for its node goes on to the
    lock without reading anything; any other is checked against the
    node's row first (a token handed out by another conductor, or one
    forgotten here), so only a refused heartbeat costs a read, and never a
    lock.  A known token may be stale (its flow ended): the check under
    the lock, against the locked node, stays the one that counts.
    """

    #: Nodes remembered at most; the oldest are forgotten first (they are
    #: read again if their agent heartbeats).
    LIMIT = 100000

    def __init__(self):
        self._tokens = collections.OrderedDict()
        self._lock = threading.Lock()

    def remember(self, node_id, token):
        with self._lock:
            self._tokens[node_id] = token
            self._tokens.move_to_end(node_id)
            while len(self._tokens) > self.LIMIT:
                self._tokens.popitem(last=False)

    def knows(self, node_id, token):
        """Whether ``token`` is the one remembered for ``node_id``."""
        return _same(self._tokens.get(node_id), token)

    def look_up(self, context, node_id):
        """An agent's lookup: the node's token, handed out once.

        Only a node in a flow that an agent serves can be looked up; any
        other is not found, as in Ironic.  The token is stored with one
        conditional statement instead of a lock and a save: only if no one
        holds the node and its bookkeeping is still what was read (else
        NodeLocked, and the agent looks up again, as it would anyway).

        :returns: the token, or :data:`MASK` once it was handed out.
        """
        node = objects.Node.get_row(context, node_id)
        if node.provision_state not in step_kinds.LOOKUP_STATES:
            raise exception.NodeNotFound(node=node_id)
        token, info = hand_out(node.driver_internal_info)
        if info is None:
            return token
        if not db_api.get_instance().update_node_if_unchanged(
                node.id, 'driver_internal_info', node.driver_internal_info,
                info):
            raise exception.NodeLocked(node=node.uuid,
                                       host='another operation')
        self.remember(node_id, token)
        return token

    def check_before_lock(self, context, node_id, token):
        """A heartbeat's token, before its node is locked: known, or
        read from the node (then remembered).

        :raises InvalidAgentToken: (logged) for any other.
        """
        if not required() or self.knows(node_id, token):
            return
        check_logged(objects.Node.get_row(context, node_id), token)
        self.remember(node_id, token)


#: This process's: its conductors' heartbeats and the flows they park.
KNOWN = KnownTokens()


def park(node):
    """A flow parks ``node`` for its agent: the token it holds, made here
    for the agent ahead of its boot, is known, so the agent's first
    heartbeat reads nothing before the lock.  (Known before the node is
    saved, or the agent could be first; if the save fails the token
    known is stale, which the check under the lock refuses.)"""
    token = (node.driver_internal_info or {}).get(TOKEN_KEY)
    if token:
        KNOWN.remember(node.uuid, token)


def forget_agent(node):
    """Drop the token and the agent's URL (saved with the node's next
    save): the agent the machine boots next looks up afresh."""
    info = node.driver_internal_info or {}
    if TOKEN_KEY in info or URL_KEY in info:
        node.driver_internal_info = {k: v for k, v in info.items()
                                     if k not in (TOKEN_KEY, URL_KEY)}


def forget(node):
    """Drop the token (saved with the node's next save)."""
    info = node.driver_internal_info or {}
    if TOKEN_KEY in info:
        node.driver_internal_info = {k: v for k, v in info.items()
                                     if k != TOKEN_KEY}
