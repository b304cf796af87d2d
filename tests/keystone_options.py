"""``[keystone_authtoken]`` for the tests that use it, and gone after.

keystonemiddleware registers its options, and those of its auth plugin,
on the process's ``CONF`` when an API with ``auth_strategy = keystone``
is built (so does :func:`ironic_steps.conf.keystone.check`).  The
plugin's include required ones (``auth_url``): left registered, they would
stop the next test's ``CONF()``.  :class:`KeystoneOptions` registers the
middleware's options for a test and unregisters the plugin's after it.
"""

import fixtures
from keystoneauth1 import loading
from keystonemiddleware import auth_token

from ironic_steps.conf import CONF
from ironic_steps.conf import keystone

#: The auth plugins the tests configure.
PLUGINS = ('password',)


class KeystoneOptions(fixtures.Fixture):

    def _setUp(self):
        for group, options in auth_token.list_opts():
            CONF.register_opts(options, group=group)
        self.addCleanup(self._unregister_plugin_options)

    @staticmethod
    def _unregister_plugin_options():
        CONF.reset()   # oslo.config unregisters only before a parse
        for plugin in PLUGINS:
            CONF.unregister_opts(loading.get_auth_plugin_conf_options(plugin),
                                 group=keystone.GROUP)
