"""The shape of an inventory: what the conductor reads of one.

An inventory (ironic-python-agent's format; see
:mod:`ironic_steps.drivers.inspection` for an example) reaches the
conductor from an inspect interface or, in band, from the agent through
``/v1/continue_inspection``; the API checks an agent's before any node
is touched, the conductor every inventory before it records anything.
Both check it against :data:`SCHEMA`, here, and say the first problem the
same way (:func:`problem`).
"""

import jsonschema

#: ``driver_internal_info`` key of a node waiting for an agent's
#: inventory: the addresses of its BMC, by which the inventory's
#: ``bmc_address`` or ``bmc_v6address`` may find it (Ironic's name).
LOOKUP_BMC_KEY = 'lookup_bmc_addresses'

_COUNT = {'type': 'integer', 'minimum': 0}
_TEXT_OR_NULL = {'type': ['string', 'null']}

#: The parts of an inventory the conductor reads, as a JSON schema.
SCHEMA = {
    'type': 'object',
    'required': ['cpu', 'memory', 'interfaces'],
    'properties': {
        'cpu': {'type': 'object', 'required': ['count', 'architecture'],
                'properties': {'count': _COUNT,
                               'architecture': {'type': 'string'}}},
        'memory': {'type': 'object', 'required': ['physical_mb'],
                   'properties': {'physical_mb': _COUNT}},
        'disks': {'type': 'array', 'items': {
            'type': 'object', 'required': ['name', 'size'],
            'properties': {'name': {'type': 'string'}, 'size': _COUNT}}},
        'interfaces': {'type': 'array', 'items': {
            'type': 'object', 'required': ['name'],
            'properties': {'name': {'type': 'string'},
                           'mac_address': _TEXT_OR_NULL,
                           'ipv4_address': _TEXT_OR_NULL,
                           'ipv6_address': _TEXT_OR_NULL}}},
        'system_vendor': {'type': 'object'},
        'boot': {'type': 'object', 'properties': {
            'current_boot_mode': {'enum': ['uefi', 'bios', None]},
            'pxe_interface': _TEXT_OR_NULL}},
    },
}

_VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def problem(inventory):
    """What is wrong with ``inventory`` (where, and why), or None."""
    error = jsonschema.exceptions.best_match(_VALIDATOR.iter_errors(
        inventory))
    if error is None:
        return None
    where = '/'.join(str(part) for part in error.absolute_path)
    return 'at %s: %s' % (where or 'its top', error.message)
