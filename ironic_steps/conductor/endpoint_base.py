"""What every group of the conductor's RPC endpoints shares.

The conductor answers RPC through several endpoint objects, one per
concern (:mod:`manager`: node records and provisioning;
:mod:`hardware_endpoints`: questions about a node's hardware and driver;
:mod:`agent_endpoints`: the agent running on a machine;
:mod:`vmedia_endpoints`: a node's virtual media).  oslo.messaging
dispatches a call to the endpoint that has the method, and so does the
in-process transport (:func:`rpcapi.set_local_manager`); all of them speak
one RPC version, kept here.
"""

import oslo_messaging as messaging

from ironic_steps.common import exception

#: The conductor's RPC version; see conductor/rpcapi.py for the history.
#: The server accepts every 1.x call up to it, so conductors of the
#: previous release keep working with it during an upgrade.
RPC_API_VERSION = '1.9'

#: Errors that answer a caller, not bugs: oslo.messaging returns them to
#: the client without logging a server-side traceback.
expected = messaging.expected_exceptions(exception.IronicStepsException)


def target():
    """The target every endpoint object answers on."""
    return messaging.Target(version=RPC_API_VERSION)
