"""The ``openstack baremetal ...`` commands of ironic-steps' extensions.

An OpenStackClient plugin (entry points ``openstack.cli.extension`` and
``openstack.baremetal_steps.v1`` in setup.cfg): installing ironic-steps
adds its commands next to python-ironicclient's.  :mod:`plugin` is what
OSC loads, :mod:`client` talks to the API, and each command group has a
module of its own.
"""
