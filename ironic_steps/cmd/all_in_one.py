"""ironic-steps: the API and a conductor in one process (embedded mode).

    ironic-steps [--config-file FILE]

Listens on [api] host_ip:port (127.0.0.1:6385 by default), keeps its SQLite
database under [DEFAULT] state_path and creates it on first start.
"""

import sys

from ironic_steps import service


def main(argv=None):
    service.prepare_service(sys.argv if argv is None else argv)
    embedded = service.EmbeddedService()
    embedded.handle_signals()
    embedded.start()
    try:
        embedded.wait()
    finally:
        embedded.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
