"""Versioned objects; importing this registers every object class."""


def register_all():
    __import__('ironic_steps.objects.node')
    __import__('ironic_steps.objects.conductor')
    __import__('ironic_steps.objects.deploy_template')
    __import__('ironic_steps.objects.bios_setting')
    __import__('ironic_steps.objects.allocation')
    __import__('ironic_steps.objects.node_resources')
    __import__('ironic_steps.objects.step_history')
    __import__('ironic_steps.objects.node_inventory')
    __import__('ironic_steps.objects.firmware_component')
    __import__('ironic_steps.objects.runbook')
    __import__('ironic_steps.objects.inspection_rule')


register_all()

from ironic_steps.objects.allocation import Allocation  # noqa: E402
from ironic_steps.objects.bios_setting import BIOSSetting  # noqa: E402
from ironic_steps.objects.conductor import Conductor  # noqa: E402
from ironic_steps.objects.deploy_template import DeployTemplate  # noqa: E402
from ironic_steps.objects.firmware_component import FirmwareComponent  # noqa: E402,E501
from ironic_steps.objects.inspection_rule import InspectionRule  # noqa: E402,E501
from ironic_steps.objects.node import Node  # noqa: E402
from ironic_steps.objects.node_inventory import NodeInventory  # noqa: E402
from ironic_steps.objects.node_resources import Chassis  # noqa: E402
from ironic_steps.objects.node_resources import Port  # noqa: E402
from ironic_steps.objects.node_resources import Portgroup  # noqa: E402
from ironic_steps.objects.node_resources import VolumeConnector  # noqa: E402
from ironic_steps.objects.node_resources import VolumeTarget  # noqa: E402
from ironic_steps.objects.runbook import Runbook  # noqa: E402
from ironic_steps.objects.step_history import NodeStepHistory  # noqa: E402,E501

__all__ = ['Allocation', 'BIOSSetting', 'Chassis', 'Conductor',
           'DeployTemplate', 'FirmwareComponent', 'InspectionRule', 'Node',
           'NodeInventory', 'NodeStepHistory', 'Port', 'Portgroup',
           'Runbook', 'VolumeConnector', 'VolumeTarget']
