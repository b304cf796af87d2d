"""A fake-hardware node played by a real agent on loop disks.

fake-hardware's power and management only record what the conductor asks
(``power_state``, and ``fake_boot_device``/``fake_boots`` in
``driver_internal_info``).  :class:`Machine` plays the machine behind
them: it watches the node through the REST API and, as a server would,
boots the agent's ramdisk (a confined ironic-python-agent,
:class:`sandbox.AgentSandbox`) whenever the node boots (is powered on, or
rebooted) from the network, and stops it when the node is powered off or
boots again.  A boot device set while the agent runs takes effect at the
next boot, as on a real server.  The disks outlive
every boot, so what one agent wrote the next one, and the test, find.
"""

import json
import threading
import time
import urllib.request

import fixtures

from tests.real_agent import sandbox

_NETWORK_BOOT = ('pxe', 'cdrom')

#: ``[api] ramdisk_heartbeat_timeout`` for a service the agent talks to.
#: The agent heartbeats after 30 to 60 per cent of it, and the conductor
#: learns that an in-band step ended at the heartbeat after: each step
#: waited up to 3.6 s for it at 6 s, 1.2 s at 2.  (The agent's own
#: heartbeat at the end of a command is held back until 5 s after the
#: last one, so it never comes sooner.)
HEARTBEAT_TIMEOUT = '2'


class Machine(fixtures.Fixture):
    """:param endpoint: the API (``http://127.0.0.1:PORT``).
    :param node_uuid: the node this machine is.
    :param mac: its one NIC's MAC address (give the node a port with it).
    :param disks: its :class:`sandbox.LoopDisks`.
    :param inspect: whether each agent it boots posts its inventory
        to the API's ``/v1/continue_inspection`` when it starts (booted for
        an inspection in band).
    """

    def __init__(self, endpoint, node_uuid, mac, disks, interval=0.1,
                 inspect=False):
        super().__init__()
        self.inspect = inspect
        self.endpoint = endpoint
        self.node_uuid = node_uuid
        self.mac = mac
        self.disks = disks
        self.interval = interval
        self.agents = []        # every agent booted, the last one running
        self._agent = None
        self._boot = None
        self._stop = threading.Event()

    def _setUp(self):
        self._thread = threading.Thread(target=self._watch, daemon=True,
                                        name='machine-%s' % self.node_uuid)
        self._thread.start()
        self.addCleanup(self._halt)

    def _node(self):
        request = urllib.request.Request(
            '%s/v1/nodes/%s' % (self.endpoint, self.node_uuid),
            headers={'X-OpenStack-Ironic-API-Version': 'latest'})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def _watch(self):
        while not self._stop.wait(self.interval):
            try:
                node = self._node()
            except OSError:
                continue
            info = node.get('driver_internal_info') or {}
            if node.get('power_state') != 'power on':
                self._power_off()
                self._boot = None
                continue
            boot = info.get('fake_boots', 0)
            if boot == self._boot:
                continue    # the same boot goes on
            self._power_off()
            self._boot = boot
            if info.get('fake_boot_device', 'pxe') in _NETWORK_BOOT:
                self._boot_agent()

    def _boot_agent(self):
        agent = sandbox.AgentSandbox(
            self.endpoint, self.mac, disks=self.disks,
            inspection_callback_url=self.endpoint + '/v1/continue_inspection'
            if self.inspect else None)
        agent.setUp()
        self._agent = agent
        self.agents.append(agent)

    def _power_off(self):
        if self._agent is not None:
            self._agent.stop()
            self._agent = None

    def _halt(self):
        self._stop.set()
        self._thread.join()
        for agent in self.agents:
            agent.cleanUp()

    @property
    def agent(self):
        """The agent running now, or None."""
        return self._agent

    def logs(self):
        """Every agent's log, oldest first (for failure messages)."""
        return '\n'.join('--- agent %d ---\n%s' % (number, agent.log()[-60000:])
                         for number, agent in enumerate(self.agents))

    def agent_stopped(self, timeout=10):
        """Whether the agent is stopped (the node powered off or booted
        from disk), waiting for the watcher to see it."""
        deadline = time.monotonic() + timeout
        while self._agent is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        return self._agent is None

    def wait_for_agent(self, timeout=60):
        deadline = time.monotonic() + timeout
        while self._agent is None and time.monotonic() < deadline:
            time.sleep(0.1)
        return self._agent
