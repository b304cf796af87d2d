"""oslo.messaging plumbing for the distributed mode.

The conductors listen on one topic, each also as its own server (its
``[DEFAULT] host``); clients address a node's conductor by name (see
:mod:`ironic_steps.conductor.registry`).  Contexts travel as dicts and
objects through the versioned-object serializer, so a pinned service sends
what the pinned release understands.  Our exceptions are re-raised on the
caller's side as themselves, so the API maps them to HTTP codes.

A call never waits for an unreachable broker longer than a few seconds
(:func:`get_client`, :func:`reply_queue_ready`): it raises
``BrokerUnreachable`` having sent nothing, and the outage is logged once
(:data:`ironic_steps.common.outage.BROKER`), not once per call.

Nor is a call ever dropped silently.  Calls are published *mandatory*
(oslo.messaging's ``at_least_once``): a message no queue takes, as after a
broker restart until the conductors have declared their queues again, is
returned by the broker and the call is re-sent for up to
:data:`UNDELIVERABLE_WAIT` seconds, then refused (``NoConductorListening``),
instead of waiting ``rpc_response_timeout`` for an answer that cannot come.
The services make calls only, never casts: every request learns whether a
conductor took it.
"""

import logging
import threading
import time

from oslo_log import log
import oslo_messaging as messaging

from ironic_steps.common import context as ironic_context
from ironic_steps.common import exception
from ironic_steps.common import outage
from ironic_steps.conf import CONF

LOG = log.getLogger(__name__)
TOPIC = 'ironic-steps.conductor'
#: Seconds a call waits for the reply queue to be set up (see
#: :func:`reply_queue_ready`); it takes milliseconds with a broker up.
REPLY_QUEUE_WAIT = 2.0
#: Seconds a call no queue takes is re-sent for: conductors declare their
#: queues again within oslo.messaging's reconnection back-off of a broker
#: restart (1 to 5 s with the defaults).
UNDELIVERABLE_WAIT = 6.0
#: Seconds between those sends.
UNDELIVERABLE_SPACING = 0.5

_lock = threading.Lock()
_transport = None
_reply_queue_setup = None
#: ``calling`` is true while this thread is in :func:`call`.
_thread = threading.local()
#: oslo.messaging's loggers that speak of a call's connection.
_TRANSPORT_LOGGERS = ('oslo.messaging._drivers.impl_rabbit',
                      'oslo.messaging._drivers.amqpdriver')

messaging.set_transport_defaults(control_exchange='ironic-steps')


class RequestContextSerializer(messaging.Serializer):

    def __init__(self, base):
        self._base = base

    def serialize_entity(self, context, entity):
        return self._base.serialize_entity(context, entity)

    def deserialize_entity(self, context, entity):
        return self._base.deserialize_entity(context, entity)

    def serialize_context(self, context):
        return context.to_dict()

    def deserialize_context(self, context):
        return ironic_context.RequestContext.from_dict(context)


def get_transport():
    global _transport
    with _lock:
        if _transport is None:
            _transport = messaging.get_rpc_transport(
                CONF, allowed_remote_exmods=[exception.__name__])
        return _transport


def reply_queue_ready(wait=REPLY_QUEUE_WAIT):
    """Whether calls can be answered: the transport's reply queue is set up.

    oslo.messaging sets it up on the first call, and retries that forever
    while the broker is unreachable, whatever the call's ``retry``, holding
    every later call behind it: an API started during a broker outage
    would hang each request that calls a conductor.  Here it is set up on
    a thread of its own, once, and a call waits for it ``wait`` seconds at
    most (for ever if None); it is refused meanwhile, with nothing sent.
    A driver without a reply queue (the in-memory ``fake:``) is ready.
    """
    global _reply_queue_setup
    transport = get_transport()
    set_up = getattr(getattr(transport, '_driver', None), '_get_reply_q',
                     None)
    if set_up is None:
        return True
    with _lock:
        if _reply_queue_setup is None:
            _reply_queue_setup = threading.Thread(
                target=set_up, name='rpc-reply-queue', daemon=True)
            _reply_queue_setup.start()
        setup = _reply_queue_setup
    setup.join(wait)
    return not setup.is_alive()


def call(client, context, method, **kwargs):
    """``client.call(context, method, **kwargs)``, refused at once while
    the broker is unreachable.

    :raises BrokerUnreachable: the broker could not be reached (see
        ``[DEFAULT] rpc_connect_retries``), so no conductor got the call.
    """
    forever = CONF.rpc_connect_retries < 0
    if not reply_queue_ready(wait=None if forever else REPLY_QUEUE_WAIT):
        outage.BROKER.failed(TimeoutError(
            'the reply queue of conductor calls could not be set up in '
            '%.0f s' % REPLY_QUEUE_WAIT))
        raise exception.BrokerUnreachable()
    _thread.calling = True
    try:
        result = _call_taken(client, context, method, kwargs)
    except messaging.MessageDeliveryFailure as exc:
        outage.BROKER.failed(exc)
        raise exception.BrokerUnreachable() from exc
    except messaging.MessagingTimeout:
        raise   # sent, so the broker was there; a conductor did not answer
    except Exception:
        outage.BROKER.succeeded()   # a conductor answered, with an error
        raise
    finally:
        _thread.calling = False
    outage.BROKER.succeeded()
    return result


def _call_taken(client, context, method, kwargs):
    """The call, re-sent while the broker returns it untaken (safe: nobody
    received it)."""
    deadline = time.monotonic() + UNDELIVERABLE_WAIT
    while True:
        try:
            return client.call(context, method, **kwargs)
        except messaging.MessageUndeliverable:
            if time.monotonic() >= deadline:
                LOG.warning('No conductor took the call %s for %.0f s; '
                            'refused.', method, UNDELIVERABLE_WAIT)
                raise exception.NoConductorListening() from None
            time.sleep(UNDELIVERABLE_SPACING)


def cleanup():
    """Close the transport (service stop, tests)."""
    global _transport, _reply_queue_setup
    with _lock:
        transport, _transport = _transport, None
        _reply_queue_setup = None
    if transport is not None:
        transport.cleanup()


class _QuietDuringOutage(logging.Filter):
    """Demotes to debug what oslo.messaging logs about a call that finds
    no broker, once the outage has been logged: two or three error lines
    per request would say it again for every request."""

    def filter(self, record):
        if (record.levelno > logging.DEBUG and outage.BROKER.ongoing
                and getattr(_thread, 'calling', False)):
            record.levelno, record.levelname = logging.DEBUG, 'DEBUG'
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


_QUIET = _QuietDuringOutage()
#: Messages no queue takes come back to the sender (see the module doc).
_MANDATORY = messaging.TransportOptions(at_least_once=True)


def get_client(version_cap, serializer):
    """A client whose calls fail fast while the broker is unreachable;
    ``serializer`` turns the arguments (versioned objects) into messages.

    oslo.messaging retries a send forever by default, and
    ``rpc_response_timeout`` does not bound that: an API request would hang
    for as long as the outage.  ``[DEFAULT] rpc_connect_retries`` bounds
    it; the call then raises ``MessageDeliveryFailure``, having sent
    nothing.
    """
    target = messaging.Target(topic=TOPIC, version='1.0')
    retries = CONF.rpc_connect_retries
    for name in _TRANSPORT_LOGGERS:
        logging.getLogger(name).addFilter(_QUIET)
    return messaging.get_rpc_client(
        get_transport(), target, version_cap=version_cap,
        serializer=RequestContextSerializer(serializer),
        retry=None if retries < 0 else retries,
        transport_options=_MANDATORY)


def get_server(host, endpoints, serializer):
    """The server of conductor ``host``; ``serializer`` as the clients'."""
    target = messaging.Target(topic=TOPIC, server=host)
    return messaging.get_rpc_server(
        get_transport(), target, endpoints, executor='threading',
        serializer=RequestContextSerializer(serializer),
        access_policy=messaging.DefaultRPCAccessPolicy)
