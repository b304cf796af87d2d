"""ironic-steps-api: the REST API alone (distributed mode).

    ironic-steps-api --config-file FILE

Needs ``[DEFAULT] rpc_transport = oslo`` and a ``transport_url`` shared with
the conductors, and their database.
"""

import sys

from ironic_steps import service


def main(argv=None):
    return service.run(sys.argv if argv is None else argv, conductor=False)


if __name__ == '__main__':
    sys.exit(main())
