"""Options in the configuration files that no part of the service reads.

oslo.config silently ignores an option it was never told about, so a
mistyped name (``[agent] comand_timeout``) or an Ironic option that
ironic-steps does not implement would leave an operator believing a
setting took effect.  :func:`find` lists every such option, so the service
can refuse to start, naming each with its file.

An option is known if this service or one of the libraries it configures
declares it (their ``oslo.config.opts`` namespaces, the ones the sample
configuration lists, plus whatever is registered on ``CONF`` by the time
the check runs), under its name, its attribute name or a deprecated name.
"""

import configparser
import functools
import glob
import os
from importlib import metadata

from oslo_config import cfg

#: The option namespaces of what ironic-steps configures: its own and its
#: libraries'.
NAMESPACES = ('ironic-steps', 'oslo.log', 'oslo.messaging', 'oslo.policy',
              'oslo.db', 'oslo.concurrency', 'oslo.middleware',
              'oslo.middleware.basic_auth', 'oslo.middleware.cors',
              'oslo.middleware.healthcheck',
              'oslo.middleware.http_proxy_to_wsgi',
              'oslo.middleware.sizelimit', 'oslo.versionedobjects',
              'keystonemiddleware.auth_token')


def _names(opt, group):
    """(group, name) pairs an option answers to in a file."""
    found = {(group, opt.dest), (group, opt.name),
             (group, opt.name.replace('-', '_'))}
    for old in opt.deprecated_opts:
        found.add(((old.group or group), (old.name or opt.name)))
    return found


@functools.lru_cache(maxsize=1)
def _declared():
    known = set()
    wanted = set(NAMESPACES)
    for entry in metadata.entry_points(group='oslo.config.opts'):
        if entry.name not in wanted:
            continue
        for group, opts in entry.load()():
            name = getattr(group, 'name', group) or 'DEFAULT'
            for opt in opts:
                known |= _names(opt, str(name))
    return frozenset(known)


def _registered(conf):
    known = set()
    for name, opt in conf._opts.items():
        known |= _names(opt['opt'], 'DEFAULT')
    for group_name in conf:
        group = conf._groups.get(group_name)
        if group is None:
            continue
        for opt in group._opts.values():
            known |= _names(opt['opt'], group_name)
    return known


def _files(conf):
    files = list(conf.config_file or ())
    for directory in conf.config_dir or ():
        files.extend(sorted(glob.glob(os.path.join(directory, '*.conf'))))
    return files


def find(conf=None):
    """[(file, section, option)] for every option of the files ``conf``
    read that nothing declares."""
    conf = conf or cfg.CONF
    known = _declared() | _registered(conf)
    unknown = []
    for path in _files(conf):
        parser = configparser.RawConfigParser(
            default_section='\0', strict=False, interpolation=None)
        try:
            parser.read(path)
        except configparser.Error:
            continue    # oslo.config already refused what it cannot parse
        for section in parser.sections():
            unknown.extend((path, section, option)
                           for option in parser.options(section)
                           if (section, option) not in known)
    return unknown
