"""ironic-steps-conductor: a conductor alone (distributed mode).

    ironic-steps-conductor --config-file FILE

Needs ``[DEFAULT] rpc_transport = oslo``, a ``transport_url`` and a unique
``[DEFAULT] host``; joins the hash ring by heartbeating in the database.
"""

import sys

from ironic_steps import service


def main(argv=None):
    return service.run(sys.argv if argv is None else argv, api=False)


if __name__ == '__main__':
    sys.exit(main())
