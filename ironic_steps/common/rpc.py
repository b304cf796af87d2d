"""oslo.messaging plumbing for the distributed mode.

The conductors listen on one topic, each also as its own server (its
``[DEFAULT] host``); clients address a node's conductor by name (see
:mod:`ironic_steps.conductor.registry`).  Contexts travel as dicts and
objects through the versioned-object serializer, so a pinned service sends
what the pinned release understands.  Our exceptions are re-raised on the
caller's side as themselves, so the API maps them to HTTP codes.
"""

import threading

import oslo_messaging as messaging

from ironic_steps.common import context as ironic_context
from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps.objects import base as objects_base

TOPIC = 'ironic-steps.conductor'

_lock = threading.Lock()
_transport = None

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


def _serializer():
    return RequestContextSerializer(objects_base.IronicStepsObjectSerializer())


def get_transport():
    global _transport
    with _lock:
        if _transport is None:
            _transport = messaging.get_rpc_transport(
                CONF, allowed_remote_exmods=[exception.__name__])
        return _transport


def cleanup():
    """Close the transport (service stop, tests)."""
    global _transport
    with _lock:
        transport, _transport = _transport, None
    if transport is not None:
        transport.cleanup()


def get_client(version_cap):
    target = messaging.Target(topic=TOPIC, version='1.0')
    return messaging.get_rpc_client(get_transport(), target,
                                    version_cap=version_cap,
                                    serializer=_serializer())


def get_server(host, endpoints):
    target = messaging.Target(topic=TOPIC, server=host)
    return messaging.get_rpc_server(
        get_transport(), target, endpoints, executor='threading',
        serializer=_serializer(),
        access_policy=messaging.DefaultRPCAccessPolicy)
