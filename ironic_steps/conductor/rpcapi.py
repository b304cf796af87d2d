"""Client side of the conductor RPC API.

The API service (and the fake agent) reach conductors only through this
class.  With ``[DEFAULT] rpc_transport = none`` (the embedded mode) calls go
straight to the conductor manager in this process; with ``oslo`` they go
through oslo.messaging to the conductor the conductor registry assigns
the node to (a live one serving its driver), capped at the pinned
release's RPC version during a rolling upgrade.

Version history (bump on every change of a method or its arguments, and
add the new version to ``release_mappings.py``):

* 1.0 - create_node, update_node, destroy_node, do_provisioning_action,
  do_node_deploy, do_node_tear_down, heartbeat
* 1.1 - continue_node_deploy (deploy steps)
* 1.2 - do_node_deploy takes rebuild and deploy_steps; do_node_clean
  (manual cleaning); do_provisioning_action takes 'abort';
  get_node_with_token (agent lookup); heartbeat takes agent_token;
  add_node_traits, remove_node_traits; change_node_power_state,
  set_target_raid_config, validate_driver_interfaces,
  get_driver_properties; update_node takes reset_interfaces; create_node
  keeps a node's initial ``available`` state (API < 1.11)
* 1.3 - create_allocation, destroy_allocation; get_boot_device,
  set_boot_device, get_supported_boot_devices, set_console_mode,
  get_node_vendor_passthru_methods, get_driver_vendor_passthru_methods,
  get_raid_logical_disk_properties; preview_steps, resume_node_deploy (the
  x-steps extension)
* 1.4 - heartbeat takes agent_verify_ca; do_node_deploy takes configdrive
  (the real agent: ``direct`` deploys, config drives, in-band steps)
* 1.5 - do_node_clean takes disable_ramdisk; change_node_boot_mode,
  change_node_secure_boot (the node API to 1.80)
* 1.6 - inspect_hardware (the ``inspect`` provision target, and
  ``abort`` from ``inspect wait``; the node API to 1.83)
* 1.7 - do_node_rescue, do_node_unrescue (the ``rescue`` and
  ``unrescue`` provision targets)
* 1.8 - do_node_service (servicing, the ``service`` provision target);
  do_provisioning_action takes ``unhold``; continue_inspection (an
  agent's inventory, for the ``agent`` inspect interface; API 1.84);
  attach_virtual_media, detach_virtual_media, get_virtual_media (API
  1.89, 1.93)
* 1.9 - inject_nmi (API 1.29)
"""

import oslo_messaging as messaging
from oslo_utils import versionutils

from ironic_steps.common import exception
from ironic_steps.common import rpc
from ironic_steps.common import states
from ironic_steps.conductor import endpoint_base
from ironic_steps.conductor import registry
from ironic_steps.conf import CONF
from ironic_steps import objects
from ironic_steps.objects import base as objects_base
from ironic_steps import release_mappings

_local_manager = None


def set_local_manager(manager):
    """Route calls to ``manager`` in this process (embedded mode)."""
    global _local_manager
    _local_manager = manager


def _local_method(name):
    """The in-process conductor's endpoint method ``name``, found as
    oslo.messaging's dispatcher finds it: in the first endpoint that has
    it."""
    for endpoint in _local_manager.endpoints:
        method = getattr(endpoint, name, None)
        if method is not None:
            return method
    raise AttributeError('No conductor endpoint has %s' % name)


#: Seconds the API waits for a conductor's answer to a heartbeat.
HEARTBEAT_TIMEOUT = 10


class ConductorAPI:
    """Node ids given to these methods are UUIDs: they route the call."""

    RPC_API_VERSION = endpoint_base.RPC_API_VERSION

    def __init__(self):
        self._client = None
        pinned = release_mappings.pinned_release(CONF)
        self._cap = pinned['rpc'] if pinned else self.RPC_API_VERSION
        if CONF.rpc_transport == 'oslo':
            self._client = rpc.get_client(
                self._cap, objects_base.IronicStepsObjectSerializer())

    def can_send_version(self, version):
        """Whether every conductor the pin allows for understands it.

        In the embedded mode too: a pinned all-in-one service offers what
        the pinned release offers, like a distributed one.
        """
        if self._client is None:
            pinned = release_mappings.pinned_release(CONF)
            return pinned is None or release_mappings.rpc_at_least(
                pinned, version)
        return self._client.can_send_version(version)

    def _check_can_send(self, version, feature):
        """Refuse, clearly, a call the pinned release's conductors lack.

        :raises NotInPinnedRelease:
        """
        pinned = release_mappings.pinned_release(CONF)
        if pinned is None or versionutils.is_compatible(
                version, pinned['rpc'], same_major=True):
            return
        raise exception.NotInPinnedRelease(
            feature=feature, pinned=CONF.pin_release_version,
            needed=next(name for name in release_mappings.RELEASES
                        if versionutils.is_compatible(
                            version, release_mappings.RELEASE_MAPPING[
                                name]['rpc'], same_major=True)))

    def get_conductor_for(self, node_uuid, driver):
        """The conductor that handles ``node_uuid``, whose hardware type
        is ``driver``; None if none is alive.

        Embedded, this process's conductor; distributed, the registry's
        choice, as :meth:`_call` routes.
        """
        if self._client is None:
            return _local_manager.host if _local_manager else None
        try:
            return registry.conductor_for(node_uuid, driver)
        except exception.NoConductorOnline:
            return None

    def _call(self, context, method, version, route=None, driver=None,
              timeout=None, **kwargs):
        """Call ``method``; ``route`` (a node UUID, or a driver name for a
        call about a driver) picks the conductor, among those serving
        ``driver`` (read from the node when not given, and only if the
        conductors do not all serve the same hardware types); with
        neither, any conductor takes the call.  ``timeout``: seconds to
        wait for the answer over a broker, if not ``rpc_response_timeout``."""
        if self._client is None:
            if _local_manager is None:
                raise exception.TemporaryFailure(
                    'No conductor is running to handle %s' % method)
            try:
                return _local_method(method)(context, **kwargs)
            except messaging.ExpectedException as wrapped:
                # oslo.messaging's server unwraps these; so must we.
                raise wrapped.exc_info[1] from None
        if route is not None:
            client = self._client.prepare(
                server=registry.conductor_for(
                    route, driver or _driver_reader(context, route)),
                version=version, timeout=timeout)
        else:
            client = self._client.prepare(version=version, timeout=timeout)
        return rpc.call(client, context, method, **kwargs)

    def create_node(self, context, node_obj):
        version = '1.0'
        if (node_obj.obj_attr_is_set('provision_state')
                and node_obj.provision_state == states.AVAILABLE):
            # Older conductors enrol every new node.
            version = '1.2'
            self._check_can_send(version, 'Creating a node that starts '
                                          'available (API versions before '
                                          '1.11)')
        # To a conductor that serves its driver; a node without a UUID yet
        # gets one there.
        route = (node_obj.uuid if node_obj.obj_attr_is_set('uuid')
                 else node_obj.driver)
        return self._call(context, 'create_node', version, route=route,
                          driver=node_obj.driver, node_obj=node_obj)

    def update_node(self, context, node_obj, reset_interfaces=None):
        """:param reset_interfaces: None (as before 1.2: a new driver gets
            its default interfaces), or whether it does (Ironic's
            ``?reset_interfaces``; False keeps and checks them).
        """
        # Routed by the driver it will have: a conductor that serves a
        # new driver checks the node's interfaces against it.
        route = {'route': node_obj.uuid, 'driver': node_obj.driver}
        if reset_interfaces is None or (
                not reset_interfaces and not self.can_send_version('1.2')):
            return self._call(context, 'update_node', '1.0',
                              node_obj=node_obj, **route)
        self._check_can_send('1.2', 'reset_interfaces')
        return self._call(context, 'update_node', '1.2', node_obj=node_obj,
                          reset_interfaces=reset_interfaces, **route)

    def destroy_node(self, context, node_id):
        return self._call(context, 'destroy_node', '1.0', route=node_id,
                          node_id=node_id)

    def do_provisioning_action(self, context, node_id, action):
        if action == 'abort':
            self._check_can_send('1.2', 'Aborting a flow')
        if action == 'unhold':
            self._check_can_send('1.8', 'Unhold')
            return self._call(context, 'do_provisioning_action', '1.8',
                              route=node_id, node_id=node_id, action=action)
        return self._call(context, 'do_provisioning_action', '1.0',
                          route=node_id, node_id=node_id, action=action)

    def do_node_service(self, context, node_id, service_steps,
                        disable_ramdisk=False):
        """Run the operator's service steps on an active node."""
        self._check_can_send('1.8', 'Servicing')
        return self._call(context, 'do_node_service', '1.8', route=node_id,
                          node_id=node_id, service_steps=service_steps,
                          disable_ramdisk=disable_ramdisk)

    def do_node_deploy(self, context, node_id, rebuild=None,
                       deploy_steps=None, configdrive=None):
        """:param rebuild: True for rebuild, False for active, None to
            decide by the node's state (as the previous release did)."""
        if configdrive is not None:
            self._check_can_send('1.4', 'A config drive')
            return self._call(context, 'do_node_deploy', '1.4',
                              route=node_id, node_id=node_id,
                              rebuild=rebuild, deploy_steps=deploy_steps,
                              configdrive=configdrive)
        if self.can_send_version('1.2'):
            return self._call(context, 'do_node_deploy', '1.2',
                              route=node_id, node_id=node_id,
                              rebuild=rebuild, deploy_steps=deploy_steps)
        if deploy_steps is not None:
            self._check_can_send('1.2', 'deploy_steps')
        # The previous release tells active from rebuild by the state.
        return self._call(context, 'do_node_deploy', '1.0', route=node_id,
                          node_id=node_id)

    def do_node_clean(self, context, node_id, clean_steps,
                      disable_ramdisk=False):
        if disable_ramdisk:
            self._check_can_send('1.5', 'Cleaning with disable_ramdisk')
            return self._call(context, 'do_node_clean', '1.5',
                              route=node_id, node_id=node_id,
                              clean_steps=clean_steps, disable_ramdisk=True)
        self._check_can_send('1.2', 'Manual cleaning')
        return self._call(context, 'do_node_clean', '1.2', route=node_id,
                          node_id=node_id, clean_steps=clean_steps)

    def preview_steps(self, context, node_id, flow, requested_steps=None):
        self._check_can_send('1.3', 'Previewing steps')
        return self._call(context, 'preview_steps', '1.3', route=node_id,
                          node_id=node_id, flow=flow,
                          requested_steps=requested_steps)

    def resume_node_deploy(self, context, node_id):
        self._check_can_send('1.3', 'Resuming a deploy')
        return self._call(context, 'resume_node_deploy', '1.3',
                          route=node_id, node_id=node_id)

    def inspect_hardware(self, context, node_id):
        """Inspect a manageable (or inspect failed) node in a worker."""
        self._check_can_send('1.6', 'Inspection')
        return self._call(context, 'inspect_hardware', '1.6', route=node_id,
                          node_id=node_id)

    def do_node_rescue(self, context, node_id, rescue_password):
        """Boot an active node into its rescue environment."""
        self._check_can_send('1.7', 'Rescue')
        return self._call(context, 'do_node_rescue', '1.7', route=node_id,
                          node_id=node_id, rescue_password=rescue_password)

    def do_node_unrescue(self, context, node_id):
        """Boot a rescued node back into its instance."""
        self._check_can_send('1.7', 'Rescue')
        return self._call(context, 'do_node_unrescue', '1.7', route=node_id,
                          node_id=node_id)

    def attach_virtual_media(self, context, node_id, device_type, image_url,
                             image_download_source):
        """Attach an image as a virtual media device of the node."""
        self._check_can_send('1.8', 'Virtual media')
        return self._call(context, 'attach_virtual_media', '1.8',
                          route=node_id, node_id=node_id,
                          device_type=device_type, image_url=image_url,
                          image_download_source=image_download_source)

    def detach_virtual_media(self, context, node_id, device_types=None):
        """Detach the node's virtual media of ``device_types`` (all if
        None)."""
        self._check_can_send('1.8', 'Virtual media')
        return self._call(context, 'detach_virtual_media', '1.8',
                          route=node_id, node_id=node_id,
                          device_types=device_types)

    def get_virtual_media(self, context, node_id):
        """The node's virtual media devices, a list."""
        self._check_can_send('1.8', 'Virtual media')
        return self._call(context, 'get_virtual_media', '1.8',
                          route=node_id, node_id=node_id)

    def do_node_tear_down(self, context, node_id):
        return self._call(context, 'do_node_tear_down', '1.0',
                          route=node_id, node_id=node_id)

    def continue_node_deploy(self, context, node_id):
        return self._call(context, 'continue_node_deploy', '1.1',
                          route=node_id, node_id=node_id)

    def get_node_with_token(self, context, node_id):
        """The agent token of ``node_id`` for its agent's lookup; None
        while pinned to a release from before tokens."""
        if not self.can_send_version('1.2'):
            return None
        return self._call(context, 'get_node_with_token', '1.2',
                          route=node_id, node_id=node_id)

    def continue_inspection(self, context, node_id, inventory,
                            plugin_data=None):
        """Hand the conductor what the agent of ``node_id``, waiting in
        ``inspect wait``, found; it is recorded in a worker."""
        self._check_can_send('1.8', 'In-band inspection')
        return self._call(context, 'continue_inspection', '1.8',
                          route=node_id, node_id=node_id,
                          inventory=inventory, plugin_data=plugin_data)

    def add_node_traits(self, context, node_id, traits, replace=False):
        """Add ``traits`` to the node, or replace all its traits with
        them if ``replace``."""
        self._check_can_send('1.2', 'Node traits')
        return self._call(context, 'add_node_traits', '1.2', route=node_id,
                          node_id=node_id, traits=traits, replace=replace)

    def remove_node_traits(self, context, node_id, traits=None):
        """Remove ``traits`` from the node; every trait if None."""
        self._check_can_send('1.2', 'Node traits')
        return self._call(context, 'remove_node_traits', '1.2',
                          route=node_id, node_id=node_id, traits=traits)

    def heartbeat(self, context, node_id, callback_url=None,
                  agent_version=None, agent_token=None,
                  agent_verify_ca=None):
        kwargs = {'callback_url': callback_url,
                  'agent_version': agent_version}
        version = '1.0'
        if self.can_send_version('1.2'):
            version, kwargs['agent_token'] = '1.2', agent_token
        if self.can_send_version('1.4'):
            version, kwargs['agent_verify_ca'] = '1.4', agent_verify_ca
        # An agent heartbeats again: a conductor that does not answer
        # (gone, not yet declared dead) must not hold an API thread long.
        return self._call(context, 'heartbeat', version, route=node_id,
                          timeout=HEARTBEAT_TIMEOUT, node_id=node_id,
                          **kwargs)

    def change_node_power_state(self, context, node_id, new_state,
                                timeout=None):
        self._check_can_send('1.2', 'Changing the power state of a node')
        return self._call(context, 'change_node_power_state', '1.2',
                          route=node_id, node_id=node_id,
                          new_state=new_state, timeout=timeout)

    def change_node_boot_mode(self, context, node_id, new_state):
        self._check_can_send('1.5', 'Setting the boot mode')
        return self._call(context, 'change_node_boot_mode', '1.5',
                          route=node_id, node_id=node_id,
                          new_state=new_state)

    def change_node_secure_boot(self, context, node_id, new_state):
        self._check_can_send('1.5', 'Setting secure boot')
        return self._call(context, 'change_node_secure_boot', '1.5',
                          route=node_id, node_id=node_id,
                          new_state=new_state)

    def set_target_raid_config(self, context, node_id, target_raid_config):
        self._check_can_send('1.2', 'Setting the target RAID configuration')
        return self._call(context, 'set_target_raid_config', '1.2',
                          route=node_id, node_id=node_id,
                          target_raid_config=target_raid_config)

    def validate_driver_interfaces(self, context, node_id):
        self._check_can_send('1.2', 'Validating the interfaces of a node')
        return self._call(context, 'validate_driver_interfaces', '1.2',
                          route=node_id, node_id=node_id)

    def get_driver_properties(self, context, driver_name):
        self._check_can_send('1.2', 'Showing the properties of a driver')
        return self._call(context, 'get_driver_properties', '1.2',
                          route=driver_name, driver=driver_name,
                          driver_name=driver_name)

    def create_allocation(self, context, allocation, node_uuid=None):
        """Store and process a new allocation: any conductor finds it a
        node; the node's own conductor backfills it with ``node_uuid``."""
        self._check_can_send('1.3', 'Allocations')
        return self._call(context, 'create_allocation', '1.3',
                          route=node_uuid, allocation=allocation,
                          node_uuid=node_uuid)

    def destroy_allocation(self, context, allocation):
        self._check_can_send('1.3', 'Allocations')
        return self._call(context, 'destroy_allocation', '1.3',
                          route=allocation.node_uuid, allocation=allocation)

    def _call_1_3(self, context, method, feature, node_id=None,
                  driver_name=None, **kwargs):
        """A call of RPC 1.3 about a node (routed to it) or a driver."""
        self._check_can_send('1.3', feature)
        if node_id is not None:
            kwargs['node_id'] = node_id
        if driver_name is not None:
            kwargs['driver_name'] = driver_name
        return self._call(context, method, '1.3',
                          route=node_id or driver_name, driver=driver_name,
                          **kwargs)

    def get_boot_device(self, context, node_id):
        return self._call_1_3(context, 'get_boot_device',
                              'Showing the boot device', node_id=node_id)

    def set_boot_device(self, context, node_id, device, persistent=False):
        return self._call_1_3(context, 'set_boot_device',
                              'Setting the boot device', node_id=node_id,
                              device=device, persistent=persistent)

    def get_supported_boot_devices(self, context, node_id):
        return self._call_1_3(context, 'get_supported_boot_devices',
                              'Listing boot devices', node_id=node_id)

    def inject_nmi(self, context, node_id):
        self._check_can_send('1.9', 'Injecting an NMI')
        return self._call(context, 'inject_nmi', '1.9', route=node_id,
                          node_id=node_id)

    def set_console_mode(self, context, node_id, enabled):
        return self._call_1_3(context, 'set_console_mode',
                              'Setting the console mode', node_id=node_id,
                              enabled=enabled)

    def get_node_vendor_passthru_methods(self, context, node_id):
        return self._call_1_3(context, 'get_node_vendor_passthru_methods',
                              'Listing vendor passthru methods',
                              node_id=node_id)

    def get_driver_vendor_passthru_methods(self, context, driver_name):
        return self._call_1_3(context, 'get_driver_vendor_passthru_methods',
                              'Listing vendor passthru methods',
                              driver_name=driver_name)

    def get_raid_logical_disk_properties(self, context, driver_name):
        return self._call_1_3(context, 'get_raid_logical_disk_properties',
                              'Showing RAID logical disk properties',
                              driver_name=driver_name)


def _driver_reader(context, node_uuid):
    """Reads the hardware type of node ``node_uuid`` when called."""
    return lambda: objects.Node.get_row(context, node_uuid).driver
