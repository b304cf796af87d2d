"""The RAID layout: its shape, as data, and the check every RAID interface
uses by default.

A *RAID layout* is what an operator asks for (``PUT
/v1/nodes/{node}/states/raid`` stores it in ``node.target_raid_config``)
and what a RAID step builds (recorded in ``node.raid_config``)::

    {"logical_disks": [
        {"size_gb": 100 or "MAX",        # required
         "raid_level": "1",              # required, see RAID_LEVELS
         "is_root_volume": true,         # at most one disk
         "volume_name": "root",
         "share_physical_disks": false,
         "disk_type": "hdd" | "ssd",
         "interface_type": "sata" | "scsi" | "sas",
         "number_of_physical_disks": 2,
         "controller": "RAID.Integrated.1-1",
         "physical_disks": ["disk-0", "disk-1"]}]}   # needs controller

The shape follows Ironic's, so layouts written for Ironic are accepted
here.  This module checks layouts; it never builds one (RAID interfaces
do) and never saves a node (the conductor does).
"""

import jsonschema

from ironic_steps.common import exception

RAID_LEVELS = ('JBOD', '0', '1', '2', '5', '6', '1+0', '5+0', '6+0')
DISK_TYPES = ('hdd', 'ssd')
INTERFACE_TYPES = ('sata', 'scsi', 'sas')


def _described(schema, description):
    return dict(schema, description=description)


#: One logical disk of a layout: property -> its schema, with descriptions
#: that name the valid values (they are what a driver's RAID properties
#: show to operators).
LOGICAL_DISK_PROPERTIES = {
    'size_gb': _described(
        {'anyOf': [{'type': 'integer', 'minimum': 0},
                   {'type': 'string', 'enum': ['MAX']}]},
        'Size in GiB, an integer, or "MAX" for all the space left. '
        'Required.'),
    'raid_level': _described(
        {'type': 'string', 'enum': list(RAID_LEVELS)},
        'RAID level, one of %s. Required.' % ', '.join(RAID_LEVELS)),
    'is_root_volume': _described(
        {'type': 'boolean'},
        'Whether the instance is deployed on this disk; at most one disk '
        'of a layout. Default false.'),
    'volume_name': _described(
        {'type': 'string'}, 'Name of the volume; generated when absent.'),
    'share_physical_disks': _described(
        {'type': 'boolean'},
        'Whether other logical disks may use the same physical disks. '
        'Default false.'),
    'disk_type': _described(
        {'type': 'string', 'enum': list(DISK_TYPES)},
        'Preferred disk type, %s.' % ' or '.join(DISK_TYPES)),
    'interface_type': _described(
        {'type': 'string', 'enum': list(INTERFACE_TYPES)},
        'Preferred disk interface, %s.' % ', '.join(INTERFACE_TYPES)),
    'number_of_physical_disks': _described(
        {'type': 'integer', 'minimum': 1},
        'How many physical disks to use; by default the fewest the level '
        'needs.'),
    'controller': _described(
        {'type': 'string'},
        'The RAID controller to use; chosen by the driver when absent.'),
    'physical_disks': _described(
        {'anyOf': [{'type': 'array', 'items': {'type': 'string'}},
                   {'type': 'array', 'items': {'type': 'object'},
                    'minItems': 2}]},
        'The physical disks to use (needs controller); chosen by the '
        'driver when absent.'),
}

#: The JSON schema of a RAID layout.
RAID_CONFIG_SCHEMA = {
    'type': 'object',
    'properties': {
        'logical_disks': {
            'type': 'array',
            'minItems': 1,
            'items': {
                'type': 'object',
                'properties': LOGICAL_DISK_PROPERTIES,
                'required': ['raid_level', 'size_gb'],
                'additionalProperties': False,
                'dependentRequired': {'physical_disks': ['controller']},
            },
        },
    },
    'required': ['logical_disks'],
    'additionalProperties': False,
}

_VALIDATOR = jsonschema.Draft202012Validator(RAID_CONFIG_SCHEMA)


def _where(error):
    path = ''.join('[%r]' % part if isinstance(part, str) else '[%d]' % part
                   for part in error.absolute_path)
    return 'raid_config%s' % path


def validate_configuration(raid_config):
    """Check ``raid_config`` against the layout's shape and rules.

    :raises InvalidParameterValue: naming the first problem and where it is.
    """
    error = jsonschema.exceptions.best_match(_VALIDATOR.iter_errors(
        raid_config))
    if error is not None:
        raise exception.InvalidParameterValue(
            err='Invalid RAID configuration: %s: %s' % (_where(error),
                                                        error.message))
    roots = [disk for disk in raid_config['logical_disks']
             if disk.get('is_root_volume')]
    if len(roots) > 1:
        raise exception.InvalidParameterValue(
            err='Invalid RAID configuration: %d logical disks have '
                'is_root_volume set; at most one may.' % len(roots))


#: The arguments of every RAID interface's apply_configuration step.
APPLY_CONFIGURATION_ARGSINFO = {
    'raid_config': {
        'description': 'The RAID layout: {"logical_disks": [{"size_gb": '
                       'int or "MAX", "raid_level": "JBOD", "0", "1", "2", '
                       '"5", "6", "1+0", "5+0" or "6+0", "is_root_volume": '
                       'bool, ...}]}. Default: the node\'s '
                       'target_raid_config.',
        'required': False,
    },
    'delete_existing': {
        'description': 'Delete existing logical disks first (bool, '
                       'default true).',
        'required': False,
    },
}


def check_apply_configuration(task, raid_config=None, delete_existing=True):
    """The precheck of every RAID interface's apply_configuration step:
    it has a layout to build, valid for the node's RAID interface."""
    layout_to_build(task, raid_config)


def layout_to_build(task, raid_config):
    """The layout an apply_configuration step builds: ``raid_config``, or
    the node's target RAID configuration, checked by the node's RAID
    interface.

    :raises InvalidParameterValue: when there is none, or it is invalid.
    """
    if raid_config is None:
        raid_config = task.node.target_raid_config
    if not raid_config:
        raise exception.InvalidParameterValue(
            err='node {0} has no RAID layout to build: give the step a '
                "raid_config argument or set the node's target RAID "
                'configuration (PUT /v1/nodes/{0}/states/raid)'.format(
                    task.node.uuid))
    task.driver.raid.validate_raid_config(task, raid_config)
    return raid_config


#: The arguments of a RAID interface's create_configuration clean step
#: (Ironic's: the node's target layout, whole or in part).
CREATE_CONFIGURATION_ARGSINFO = {
    'create_root_volume': {
        'description': 'Build the logical disk marked is_root_volume '
                       '(bool, default true).',
        'required': False,
    },
    'create_nonroot_volumes': {
        'description': 'Build the logical disks not marked is_root_volume '
                       '(bool, default true).',
        'required': False,
    },
    'delete_existing': {
        'description': 'Delete existing logical disks first (bool, '
                       'default false).',
        'required': False,
    },
}


def layout_to_create(task, create_root_volume=True,
                     create_nonroot_volumes=True, **_ignored):
    """The part of the node's target RAID layout a create_configuration
    step builds (Ironic's step, which Metal3 runs after ``PUT
    /v1/nodes/{node}/states/raid``): its root disk, its other disks, or
    both; checked as :func:`layout_to_build` checks a layout.

    :raises InvalidParameterValue: when there is no target layout, or
        nothing of it is asked for.
    """
    if not task.node.target_raid_config:
        raise exception.InvalidParameterValue(
            err='node {0} has no target RAID configuration to create: set '
                'it first (PUT /v1/nodes/{0}/states/raid)'.format(
                    task.node.uuid))
    layout = layout_to_build(task, None)
    disks = [disk for disk in layout['logical_disks']
             if (create_root_volume if disk.get('is_root_volume')
                 else create_nonroot_volumes)]
    if not disks:
        raise exception.InvalidParameterValue(
            err='node %s: create_configuration is asked to build none of '
                'the logical disks of its target RAID configuration'
                % task.node.uuid)
    return dict(layout, logical_disks=disks)
