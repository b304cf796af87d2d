"""[keystone_authtoken]: how the API checks Keystone tokens.

keystonemiddleware owns these options, as in Ironic: its auth_token
middleware registers them when the API starts, and the sample
configuration lists them from its ``keystonemiddleware.auth_token``
namespace, so an Ironic configuration's section works unchanged.  This
module only lets the start-up checks (:func:`ironic_steps.service.
check_config`) read the section before the middleware exists:
:func:`check` registers the options of the auth plugin ``auth_type`` names
(``username``, ``password``, ... for ``password``), which no namespace
lists, so that they are not taken for typos, and says what is missing for
``auth_strategy = keystone``.
"""

from keystoneauth1 import exceptions as ksa_exceptions
from keystoneauth1 import loading

GROUP = 'keystone_authtoken'

_NO_CREDENTIALS = (
    '[%s] auth_type: not set; with auth_strategy = keystone the API needs '
    'a Keystone user of its own to validate tokens with (auth_type = '
    'password, with auth_url, username, password, project_name, '
    'user_domain_name and project_domain_name)' % GROUP)


def check(conf) -> list:
    """Register the auth plugin's options; what is wrong, as messages.

    Called once the configuration files are read, whatever
    ``auth_strategy`` is: a section written for later is not refused.
    """
    loading.register_auth_conf_options(conf, GROUP)
    section = conf[GROUP].auth_section or GROUP
    name = conf[section].auth_type
    if not name:
        return [_NO_CREDENTIALS] if conf.auth_strategy == 'keystone' else []
    try:
        options = loading.get_auth_plugin_conf_options(name)
    except ksa_exceptions.NoMatchingPlugin:
        return ['[%s] auth_type: no auth plugin is called %r (password, '
                'v3password, v3applicationcredential, ... are)'
                % (section, name)]
    conf.register_opts(options, group=section)
    return []
