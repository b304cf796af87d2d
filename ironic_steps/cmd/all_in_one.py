"""ironic-steps: the API and a conductor in one process (embedded mode).

    ironic-steps [--config-file FILE]
    ironic-steps [--config-file FILE] run INVENTORY ...
    ironic-steps [--config-file FILE] inspect RUN_DIR ...

Without a command it serves: on [api] host_ip:port (127.0.0.1:6385 by
default), keeping its SQLite database under [DEFAULT] state_path and
creating it on first start.  ``run`` and ``inspect`` are ephemeral runs
(see :mod:`ironic_steps.ephemeral.cli`).  Every file it creates is its
user's alone (0600, directories 0700): they hold BMC passwords.
"""

import os
import sys

from ironic_steps import service


def _command(argv):
    """The ephemeral command named on the line, skipping option values."""
    from ironic_steps.ephemeral import cli
    skip = False
    for word in argv[1:]:
        if skip:
            skip = False
        elif word in ('--config-file', '--config-dir'):
            skip = True
        elif not word.startswith('-'):
            return word if word in cli.COMMANDS else None
    return None


#: What this process creates (its SQLite database, a run's evidence, its
#: logs) holds BMC passwords: readable by its own user only.
PRIVATE_UMASK = 0o077


def main(argv=None):
    argv = sys.argv if argv is None else argv
    os.umask(PRIVATE_UMASK)
    if _command(argv):
        from ironic_steps.ephemeral import cli
        return cli.main(argv)
    return service.run(argv)


if __name__ == '__main__':
    sys.exit(main())
