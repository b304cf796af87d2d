"""ironic-steps: the API and a conductor in one process (embedded mode).

    ironic-steps [--config-file FILE]

Listens on [api] host_ip:port (127.0.0.1:6385 by default), keeps its SQLite
database under [DEFAULT] state_path and creates it on first start.
"""

import sys

from ironic_steps import service


def main(argv=None):
    return service.run(sys.argv if argv is None else argv)


if __name__ == '__main__':
    sys.exit(main())
