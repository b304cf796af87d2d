"""The inventory of an ephemeral run: the nodes to deploy, read and checked.

A YAML or JSON file (JSON is YAML)::

    deploy_templates:              # optional; a run starts from nothing
      - name: CUSTOM_RAID1
        steps:
          - {interface: raid, step: apply_configuration, priority: 90,
             args: {raid_config: {logical_disks: [...]}}}
    nodes:
      - name: rack1-01             # required, unique
        driver: fake-hardware      # required
        driver_info: {...}         # optional mappings, as the API takes them
        properties: {...}
        instance_info: {image_source: http://...}
        resource_class: baremetal  # optional
        traits: [CUSTOM_GPU]       # optional, besides the templates'
        deploy_templates: [CUSTOM_RAID1]   # asked for, as Nova's flavor does
        deploy_steps: [...]        # optional user deploy steps

Everything here is checked before anything starts, and a problem is told
with the file, the node and the field (``rack.yaml: node rack1-01
(#2): deploy_templates: CUSTOM_X is not a template of this
inventory``), all problems at once.  What only the service can judge
(is the driver known, do the steps exist) is judged by its API when the
nodes are enrolled, before any of them is provisioned.
"""

import dataclasses
import json

import yaml

from ironic_steps.common import private_files

_TOP_LEVEL = ('nodes', 'deploy_templates')
_MAPPINGS = ('driver_info', 'properties', 'instance_info')
_NODE_FIELDS = ('name', 'driver', 'deploy_interface', 'resource_class',
                'traits', 'deploy_templates', 'deploy_steps') + _MAPPINGS
_STEP_FIELDS = ('interface', 'step', 'args', 'priority')
_TEMPLATE_FIELDS = ('name', 'steps', 'extra')


class InventoryError(Exception):
    """The inventory cannot be run; the message names every problem."""


@dataclasses.dataclass
class Node:
    name: str
    driver: str
    driver_info: dict = dataclasses.field(default_factory=dict)
    properties: dict = dataclasses.field(default_factory=dict)
    instance_info: dict = dataclasses.field(default_factory=dict)
    resource_class: str = None
    traits: list = dataclasses.field(default_factory=list)
    deploy_templates: list = dataclasses.field(default_factory=list)
    deploy_steps: list = None
    deploy_interface: str = None

    def create_body(self):
        """The body of ``POST /v1/nodes`` enrolling this node: the
        instance asks for its templates' traits, as Nova does."""
        body = {'name': self.name, 'driver': self.driver,
                'driver_info': self.driver_info,
                'properties': self.properties,
                'instance_info': dict(self.instance_info)}
        if self.deploy_templates:
            body['instance_info']['traits'] = list(self.deploy_templates)
        for field in ('resource_class', 'deploy_interface'):
            if getattr(self, field) is not None:
                body[field] = getattr(self, field)
        return body

    def all_traits(self):
        """The node's traits: its own, then the templates it asks for."""
        return list(dict.fromkeys(self.traits + self.deploy_templates))


@dataclasses.dataclass
class Inventory:
    path: str
    nodes: list
    deploy_templates: list

    def as_dict(self):
        """What the run directory keeps, so that a resume needs no file."""
        return {'deploy_templates': self.deploy_templates,
                'nodes': [{key: value for key, value in
                           dataclasses.asdict(node).items()
                           if value not in (None, [], {})}
                          for node in self.nodes]}


class _Problems:
    def __init__(self, path):
        self.path = path
        self.found = []

    def add(self, where, message):
        self.found.append('%s: %s: %s' % (self.path, where, message))

    def unknown(self, where, entry, known, what):
        """A problem if ``entry`` has keys not in ``known``."""
        extra = sorted(map(str, set(entry) - set(known)))
        if extra:
            self.add(where, 'unknown field(s) %s; %s has %s' % (
                ', '.join(extra), what, ', '.join(known)))

    def raise_any(self):
        if self.found:
            raise InventoryError('\n'.join(self.found))


def _is_str_list(value):
    return isinstance(value, list) and all(isinstance(item, str) and item
                                           for item in value)


def _check_steps(steps, where, problems):
    if not isinstance(steps, list):
        problems.add(where, 'must be a list of steps, got %s'
                     % type(steps).__name__)
        return
    for number, step in enumerate(steps, 1):
        here = '%s: step %d' % (where, number)
        if not isinstance(step, dict):
            problems.add(here, 'must be a mapping with interface, step, '
                               'args and priority')
            continue
        problems.unknown(here, step, _STEP_FIELDS, 'a step')
        for field in ('interface', 'step'):
            if not isinstance(step.get(field), str) or not step[field]:
                problems.add(here, '%s is required (a name)' % field)
        if 'args' in step and not isinstance(step['args'], dict):
            problems.add(here, 'args must be a mapping')
        if 'priority' in step and (isinstance(step['priority'], bool)
                                   or not isinstance(step['priority'], int)):
            problems.add(here, 'priority must be an integer')


def _check_template(template, number, problems):
    where = 'deploy_templates #%d' % number
    if not isinstance(template, dict):
        problems.add(where, 'must be a mapping with name and steps')
        return None
    name = template.get('name')
    if isinstance(name, str) and name:
        where = 'deploy template %s' % name
    else:
        problems.add(where, 'name is required (a CUSTOM_ trait name)')
    problems.unknown(where, template, _TEMPLATE_FIELDS, 'a template')
    if 'steps' not in template:
        problems.add(where, 'steps is required')
    else:
        _check_steps(template['steps'], where + ': steps', problems)
    return name if isinstance(name, str) else None


def _check_node(entry, number, templates, seen, problems):
    where = 'node #%d' % number
    if not isinstance(entry, dict):
        problems.add(where, 'must be a mapping with name and driver')
        return None
    name = entry.get('name')
    if isinstance(name, str) and name:
        where = 'node %s (#%d)' % (name, number)
        if name in seen:
            problems.add(where, 'name: %s is also the name of node #%d'
                         % (name, seen[name]))
        seen.setdefault(name, number)
    else:
        problems.add(where, 'name: required, a non-empty string')
    problems.unknown(where, entry, _NODE_FIELDS, 'a node')
    if not isinstance(entry.get('driver'), str) or not entry['driver']:
        problems.add(where, 'driver: required, e.g. fake-hardware or '
                            'redfish')
    for field in _MAPPINGS:
        if field in entry and not isinstance(entry[field], dict):
            problems.add(where, '%s: must be a mapping, got %s' % (
                field, type(entry[field]).__name__))
    for field in ('resource_class', 'deploy_interface'):
        if field in entry and not isinstance(entry[field], str):
            problems.add(where, '%s: must be a string' % field)
    for field in ('traits', 'deploy_templates'):
        if field in entry and not _is_str_list(entry[field]):
            problems.add(where, '%s: must be a list of names' % field)
    for wanted in entry.get('deploy_templates') or ():
        if isinstance(wanted, str) and wanted not in templates:
            problems.add(where, 'deploy_templates: %s is not a template of '
                                'this inventory (it has: %s)' % (
                                    wanted, ', '.join(sorted(templates))
                                    or 'none'))
    if 'deploy_steps' in entry:
        _check_steps(entry['deploy_steps'], where + ': deploy_steps',
                     problems)
    if 'instance_info' in entry and isinstance(entry['instance_info'], dict) \
            and 'traits' in entry['instance_info']:
        problems.add(where, 'instance_info: traits is set by the run from '
                            'deploy_templates; name the templates there')
    return entry


def parse(data, path):
    """The :class:`Inventory` of ``data`` (already loaded) from ``path``.

    :raises InventoryError: naming every problem.
    """
    problems = _Problems(path)
    if not isinstance(data, dict):
        problems.add('top level', 'must be a mapping with "nodes"')
        problems.raise_any()
    problems.unknown('top level', data, _TOP_LEVEL, 'an inventory')
    templates = data.get('deploy_templates') or []
    if not isinstance(templates, list):
        problems.add('deploy_templates', 'must be a list')
        templates = []
    names = {}
    for number, template in enumerate(templates, 1):
        name = _check_template(template, number, problems)
        if name in names:
            problems.add('deploy template %s' % name,
                         'defined twice (#%d and #%d)' % (names[name],
                                                          number))
        if name:
            names.setdefault(name, number)
    nodes = data.get('nodes')
    if not isinstance(nodes, list) or not nodes:
        problems.add('nodes', 'required: a non-empty list of nodes')
        nodes = []
    seen = {}
    checked = [_check_node(entry, number, names, seen, problems)
               for number, entry in enumerate(nodes, 1)]
    problems.raise_any()
    return Inventory(path=path, deploy_templates=templates,
                     nodes=[Node(**entry) for entry in checked])


def load(path):
    """The :class:`Inventory` in the file at ``path``.

    :raises InventoryError: the file cannot be read or is not valid.
    """
    try:
        with open(path, encoding='utf-8') as stream:
            data = yaml.safe_load(stream)
    except OSError as exc:
        raise InventoryError('%s: cannot be read: %s' % (
            path, exc.strerror or exc)) from exc
    except yaml.YAMLError as exc:
        raise InventoryError('%s: is neither YAML nor JSON: %s' % (
            path, exc)) from exc
    return parse(data, path)


def save(inventory, path):
    # It holds the BMC passwords as given.
    with private_files.open_for_writing(path, encoding='utf-8') as stream:
        json.dump(inventory.as_dict(), stream, indent=2, sort_keys=True)
