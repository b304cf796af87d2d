"""Client side of the conductor RPC API.

The API service (and the fake agent) call the conductor only through this
class.  In the embedded mode the calls go straight to the conductor manager
running in the same process.

Version history (bump on every change of a method or its arguments):

* 1.0 - create_node, update_node, destroy_node, do_provisioning_action,
  do_node_deploy, do_node_tear_down, continue_node_deploy, heartbeat
"""

from ironic_steps.common import exception

_local_manager = None


def set_local_manager(manager):
    """Route calls to ``manager`` in this process (embedded mode)."""
    global _local_manager
    _local_manager = manager


class ConductorAPI:

    RPC_API_VERSION = '1.0'

    def _call(self, context, method, **kwargs):
        if _local_manager is None:
            raise exception.TemporaryFailure(
                'No conductor is running to handle %s' % method)
        return getattr(_local_manager, method)(context, **kwargs)

    def create_node(self, context, node_obj):
        return self._call(context, 'create_node', node_obj=node_obj)

    def update_node(self, context, node_obj):
        return self._call(context, 'update_node', node_obj=node_obj)

    def destroy_node(self, context, node_id):
        return self._call(context, 'destroy_node', node_id=node_id)

    def do_provisioning_action(self, context, node_id, action):
        return self._call(context, 'do_provisioning_action',
                          node_id=node_id, action=action)

    def do_node_deploy(self, context, node_id):
        return self._call(context, 'do_node_deploy', node_id=node_id)

    def do_node_tear_down(self, context, node_id):
        return self._call(context, 'do_node_tear_down', node_id=node_id)

    def continue_node_deploy(self, context, node_id):
        return self._call(context, 'continue_node_deploy', node_id=node_id)

    def heartbeat(self, context, node_id, callback_url=None,
                  agent_version=None):
        return self._call(context, 'heartbeat', node_id=node_id,
                          callback_url=callback_url,
                          agent_version=agent_version)
