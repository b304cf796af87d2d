"""The API reference (api-ref/source) documents the whole API.

Cross-file invariants between the code and its os-api-ref documentation,
so that a microversion, a node field or a route cannot be added without
being documented:

* every ``MINOR_*`` constant of :mod:`ironic_steps.api.versions` has a
  section in ``microversion-history.rst``, and the history has no version
  the code lacks;
* every field a node body can carry (:data:`node_view.FIELDS`, ``links``
  and the resource links of :data:`node_view.RESOURCE_LINKS`) is a body
  parameter in ``parameters.yaml``, with the ``min_version`` that
  :func:`node_view.since` (or the link's table) gives, and is listed in
  the response of ``GET /v1/nodes/{node_ident}``; every field a create
  body accepts is listed in the request of ``POST /v1/nodes``;
* every route of ``create_app()`` is the ``rest_method`` of some ``.inc``
  file, and every ``rest_method`` is a route;
* the ``.inc`` files only reference parameters and samples that exist, in
  the order os-api-ref requires, and ``conf.py`` states the code's
  microversion range.
"""

import ast
import json
import os
import re

import yaml

from ironic_steps.api import app
from ironic_steps.api import node_schema
from ironic_steps.api import node_view
from ironic_steps.api import versions
from tests import base

API_REF = os.path.join(os.path.dirname(__file__), '..', '..', '..',
                       'api-ref', 'source')
#: Flask's own route for static files; the API has none to serve.
_NOT_API_ENDPOINTS = frozenset(['static'])
_HTTP_ONLY_METHODS = frozenset(['HEAD', 'OPTIONS'])
#: os-api-ref's order of parameter sections.
_SECTIONS = ('header', 'path', 'query', 'body')
_REST_METHOD = re.compile(r'^\.\. rest_method::\s+([A-Z]+)\s+(\S+)\s*$',
                          re.MULTILINE)
_PARAMETER = re.compile(r'^\s+- ([\w-]+): ([\w-]+)\s*$')
_RESPONSE_HEADING = re.compile(r'^Response\n-+$', re.MULTILINE)


class _Loader(yaml.SafeLoader):
    """Reads versions as strings ('1.30', not 1.3), as os-api-ref does."""


_Loader.add_constructor('tag:yaml.org,2002:float',
                        yaml.constructor.SafeConstructor.construct_yaml_str)


def _read(name):
    with open(os.path.join(API_REF, name), encoding='utf-8') as f:
        return f.read()


def _parameters():
    return yaml.load(_read('parameters.yaml'), Loader=_Loader)


def _inc_files():
    return {name: _read(name) for name in sorted(os.listdir(API_REF))
            if name.endswith('.inc')}


def _referenced(text):
    """(shown name, parameters.yaml key) of every rest_parameters entry."""
    refs, in_block = [], False
    for line in text.splitlines():
        if line.startswith('.. rest_parameters::'):
            in_block = True
        elif in_block and line.strip():
            match = _PARAMETER.match(line)
            if match is None:
                in_block = False
            else:
                refs.append(match.groups())
    return refs


def _methods():
    """{(METHOD, url): text of its section} over every .inc file."""
    methods = {}
    for text in _inc_files().values():
        found = list(_REST_METHOD.finditer(text))
        for match, after in zip(found, found[1:] + [None]):
            end = after.start() if after else len(text)
            methods[match.groups()] = text[match.end():end]
    return methods


def _request_and_response(section):
    parts = _RESPONSE_HEADING.split(section, maxsplit=1)
    return parts[0], parts[1] if len(parts) > 1 else ''


def _shape(path):
    """A path with every placeholder ({x} or Flask's <x>) as {}."""
    path = re.sub(r'<[^<>]+>|\{[^{}]+\}', '{}', path)
    return path.rstrip('/') or '/'


def _min_version(field):
    """The min_version parameters.yaml must give a node field, or None."""
    since = node_view.RESOURCE_LINKS.get(field) or node_view.since(field)
    return versions.to_string(since) if since > versions.MIN_VERSION else None


#: Everything a whole node body can carry.
_NODE_KEYS = node_view.FIELDS + ('links',) + tuple(node_view.RESOURCE_LINKS)


def _version_titles(text):
    """The section titles of the history that start with a version."""
    lines = text.splitlines()
    titles = [title for title, under in zip(lines, lines[1:])
              if under and set(under) == {'='} and len(under) >= len(title)]
    matches = (re.match(r'^(\d+\.\d+)\b', title) for title in titles)
    return {match.group(1) for match in matches if match}


class ApiReferenceTest(base.TestCase):

    def test_every_microversion_has_a_history_entry_and_no_other(self):
        minors = [getattr(versions, name) for name in dir(versions)
                  if re.match(r'^MINOR_\d+_', name)]
        in_code = {'%d.%d' % (versions.BASE_VERSION, m) for m in minors}
        documented = _version_titles(_read('microversion-history.rst'))
        self.assertEqual(set(), in_code - documented,
                         'microversions missing from microversion-history')
        self.assertEqual(set(), documented - in_code,
                         'microversion-history names versions the code '
                         'does not have')

    def test_every_node_field_is_a_body_parameter_with_its_version(self):
        params = _parameters()
        fields = _NODE_KEYS
        self.assertEqual([], [f for f in fields if f not in params],
                         'node fields missing from parameters.yaml')
        self.assertEqual({f: 'body' for f in fields},
                         {f: params[f]['in'] for f in fields})
        self.assertEqual({f: _min_version(f) for f in fields},
                         {f: params[f].get('min_version') for f in fields},
                         'min_version of node fields in parameters.yaml')

    def test_showing_a_node_documents_every_field_it_can_return(self):
        section = _methods()[('GET', '/v1/nodes/{node_ident}')]
        _request, response = _request_and_response(section)
        shown = {name for name, key in _referenced(response) if name == key}
        self.assertEqual(set(), set(_NODE_KEYS) - shown,
                         'node fields missing from the response of '
                         'GET /v1/nodes/{node_ident}')

    def test_creating_a_node_documents_every_field_it_accepts(self):
        params = _parameters()
        request, _response = _request_and_response(
            _methods()[('POST', '/v1/nodes')])
        documented = dict(_referenced(request))
        fields = sorted(node_schema.CREATE_FIELDS)
        self.assertEqual([], [f for f in fields if f not in documented],
                         'create fields missing from POST /v1/nodes')
        self.assertEqual(
            {f: _min_version(f) for f in fields},
            {f: params[documented[f]].get('min_version') for f in fields},
            'min_version of create fields in parameters.yaml')

    def test_every_route_is_documented_and_every_documented_one_exists(self):
        routes = set()
        for rule in app.create_app().url_map.iter_rules():
            if rule.endpoint in _NOT_API_ENDPOINTS:
                continue
            for method in rule.methods - _HTTP_ONLY_METHODS:
                routes.add((method, _shape(rule.rule)))
        documented = {(method, _shape(url)) for method, url in _methods()}
        self.assertEqual(set(), routes - documented,
                         'routes missing from api-ref/source/*.inc')
        self.assertEqual(set(), documented - routes,
                         'api-ref documents routes the app does not have')

    def test_documented_path_parameters_are_path_parameters(self):
        params = _parameters()
        for (method, url), section in _methods().items():
            refs = dict(_referenced(section))
            for name in re.findall(r'\{(\w+)\}', url):
                self.assertIn(name, refs, '%s %s' % (method, url))
                self.assertEqual('path', params[refs[name]]['in'])

    def test_every_referenced_parameter_is_defined_and_every_one_used(self):
        params = _parameters()
        used = {key for text in _inc_files().values()
                for _name, key in _referenced(text)}
        self.assertEqual(set(), used - set(params), 'undefined parameters')
        self.assertEqual(set(), set(params) - used, 'unused parameters')

    def test_parameters_are_in_the_order_os_api_ref_requires(self):
        keys = [(_SECTIONS.index(value['in']), name.lower())
                for name, value in _parameters().items()]
        self.assertEqual(sorted(keys), keys)

    def test_every_sample_included_exists_and_is_json(self):
        for name, text in _inc_files().items():
            for sample in re.findall(r'literalinclude:: (\S+)', text):
                with open(os.path.join(API_REF, sample)) as f:
                    self.assertIsInstance(json.load(f), (dict, list),
                                          '%s in %s' % (sample, name))

    def test_the_sphinx_configuration_states_the_codes_version_range(self):
        tree = ast.parse(_read('conf.py'))
        settings = {target.id: node.value.value
                    for node in tree.body if isinstance(node, ast.Assign)
                    for target in node.targets
                    if isinstance(target, ast.Name)
                    and isinstance(node.value, ast.Constant)}
        self.assertEqual(versions.to_string(versions.MIN_VERSION),
                         settings['os_api_ref_min_microversion'])
        self.assertEqual(versions.to_string(versions.max_version()),
                         settings['os_api_ref_max_microversion'])
