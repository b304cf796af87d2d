"""Imports follow the layers of DESIGN.md: no arrow points up.

Every module under ``ironic_steps/`` is read with :mod:`ast` (never
imported), and every import in it is found wherever it stands: at the top,
inside a function or a class, under ``if TYPE_CHECKING``; ``import x``,
``from x import y``, relative imports, and ``__import__('x')`` /
``importlib.import_module('x')`` with a literal name.  A module's *layer*
is the first name below ``ironic_steps`` (``ironic_steps.api.view`` is in
``api``, ``ironic_steps.service`` in ``service``); :data:`LAYERS` says
which other layers each one may import, and why.  In short: no layer
imports one above it; the API reaches the conductor only through its RPC
client and imports neither drivers nor the database; drivers import
neither the conductor nor objects; common does not import objects; conf
imports nothing of ours but the release table (``release_mappings``, a
leaf); ``osc``, the openstackclient plugin, talks to the API over HTTP and
imports nothing of the server.  Importing
``ironic_steps`` itself is always allowed (every import of ours runs it
anyway).

Today's arrows that break a rule are listed, each with its reason, in
:data:`EXCEPTIONS`.  A new one fails :meth:`test_no_import_breaks_a_rule`,
naming the file, the line and the rule; fixing a listed one fails
:meth:`test_every_exception_is_still_needed` until it leaves the list, so
the list only ever shrinks.
"""

import ast
import dataclasses
import functools
import graphlib
import pathlib
import textwrap

import testtools

import ironic_steps

PACKAGE = 'ironic_steps'
SOURCE = pathlib.Path(ironic_steps.__file__).parent
REPO = SOURCE.parent


@dataclasses.dataclass(frozen=True)
class Layer:
    """What one layer may import (other than itself), and why."""

    may_import: frozenset
    why: str
    #: layer -> the only modules of that layer this one may import.
    only: dict = dataclasses.field(default_factory=dict)


def _layer(why, *may_import, only=None):
    return Layer(frozenset(may_import), why, only or {})


_BELOW_SERVICE = ('api', 'fake_agent', 'conductor', 'drivers', 'objects',
                  'db', 'common', 'conf', 'release_mappings', 'version')

#: Every layer, top to bottom.
LAYERS = {
    'cmd': _layer('console scripts sit on top: they start anything, and '
                  'nothing imports them',
                  'ephemeral', 'service', *_BELOW_SERVICE),
    'ephemeral': _layer('ephemeral runs are a process of their own built '
                        'from services; only console scripts start them',
                        'service', *_BELOW_SERVICE),
    'service': _layer('a service wires the API and the conductor together; '
                      'only console scripts and ephemeral runs start one',
                      *_BELOW_SERVICE),
    'api': _layer('the API reaches the conductor only through its RPC '
                  'client (conductor.rpcapi), and never loads drivers nor '
                  'queries the database itself',
                  'conductor', 'objects', 'common', 'conf',
                  'release_mappings', 'version',
                  only={'conductor': {'ironic_steps.conductor.rpcapi'}}),
    'fake_agent': _layer('the agent of fake machines plays a program on '
                         'the machine: it reaches the conductor through its '
                         'RPC client, as a real agent through the API, and '
                         'plugs into the fake machines\' hook; the service '
                         'starts it, the conductor never imports it',
                         'conductor', 'drivers', 'objects', 'common', 'conf',
                         'release_mappings', 'version',
                         only={'conductor': {'ironic_steps.conductor.rpcapi',
                                             'ironic_steps.conductor.'
                                             'agent_token'},
                               'drivers': {'ironic_steps.drivers.modules.'
                                           'fake_machine'}}),
    'conductor': _layer('the conductor is called by the API (over RPC), '
                        'never the other way: it does not import the API '
                        'nor what starts it',
                        'drivers', 'objects', 'db', 'common', 'conf',
                        'release_mappings', 'version'),
    'drivers': _layer('drivers are below the conductor and objects: what '
                      'they need is handed to them (the task, its node), '
                      'not imported',
                      'common', 'conf', 'release_mappings', 'version'),
    'objects': _layer('objects are below the conductor and the drivers; '
                      'they only store through the database API',
                      'db', 'common', 'conf', 'release_mappings',
                      'version'),
    'db': _layer('the database API knows rows, not objects',
                 'common', 'conf', 'release_mappings', 'version'),
    'common': _layer('common is what every layer shares: it imports none '
                     'of them (objects included), only options',
                     'conf', 'release_mappings', 'version'),
    'conf': _layer('option groups are the floor: every layer reads them, '
                   'so they import nothing of ours but the release table '
                   '(the names a pin may give)',
                   'release_mappings', 'version'),
    'release_mappings': _layer('what each release speaks is data every '
                               'layer reads (options included): it '
                               'imports nothing of ours'),
    'version': _layer('the version is a leaf anyone may read'),
    'osc': _layer('the openstackclient plugin runs in the client and talks '
                  'to the API over HTTP: it imports nothing of the server'),
    PACKAGE: _layer('the package itself runs before any of its modules: '
                    'it imports none of them'),
}

#: Today's imports that break a rule, as (importing module, imported
#: module), both below ``ironic_steps.``: why each is still there.  Remove
#: an entry when its import goes.
EXCEPTIONS = {
    ('api.controllers.conductors', 'conductor.registry'): (
        'conductor liveness (live_conductors) has no home below the '
        'conductor yet; the API lists live conductors from it'),
    ('api.controllers.drivers', 'conductor.registry'): (
        'the drivers the API lists are those of live conductors, read from '
        'the same registry'),
    ('api.controllers.node_resources', 'drivers.driver_factory'): (
        'a VIF request loads the node\'s network interface in the API to ask '
        'whether it records VIFs'),
}


@dataclasses.dataclass(frozen=True)
class Import:
    """One import of one of our modules, where it stands."""

    path: pathlib.Path
    line: int
    importer: str
    imported: str

    @property
    def pair(self):
        """The key of this import in :data:`EXCEPTIONS`."""
        return (self.importer.removeprefix(PACKAGE + '.'),
                self.imported.removeprefix(PACKAGE + '.'))

    def __str__(self):
        return '%s:%d: %s imports %s' % (self.path.relative_to(REPO),
                                         self.line, self.importer,
                                         self.imported)


def module_name(path):
    parts = list(path.relative_to(REPO).with_suffix('').parts)
    if parts[-1] == '__init__':
        parts.pop()
    return '.'.join(parts)


def layer_of(module):
    parts = module.split('.')
    return parts[1] if len(parts) > 1 else PACKAGE


def _is_module(name):
    path = REPO.joinpath(*name.split('.'))
    return path.with_suffix('.py').is_file() or path.is_dir()


def _from_base(node, package):
    """The module a ``from ... import`` names, relative ones resolved."""
    if not node.level:
        return node.module
    parts = package.split('.')
    base = parts[:len(parts) - node.level + 1]
    return '.'.join(base + ([node.module] if node.module else []))


def _literal_import(node):
    """The name in ``__import__('x')`` or ``importlib.import_module('x')``."""
    func = node.func
    called = (func.id if isinstance(func, ast.Name)
              else func.attr if isinstance(func, ast.Attribute) else None)
    if (called in ('__import__', 'import_module') and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)):
        return node.args[0].value
    return None


def _names(node, package):
    """The modules one AST node imports (a name imported from a package
    counts as its submodule when there is one)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = _from_base(node, package)
        return [base + '.' + alias.name
                if _is_module(base + '.' + alias.name) else base
                for alias in node.names]
    if isinstance(node, ast.Call):
        name = _literal_import(node)
        return [name] if name else []
    return []


def imports_in(path, text):
    """The imports of our modules in ``text``, the source of ``path``."""
    module = module_name(path)
    package = (module if path.name == '__init__.py'
               else module.rpartition('.')[0])
    return [Import(path, node.lineno, module, name)
            for node in ast.walk(ast.parse(text, str(path)))
            for name in _names(node, package)
            if name == PACKAGE or name.startswith(PACKAGE + '.')]


@functools.cache
def our_imports():
    """Every import of an ``ironic_steps`` module by another, any depth."""
    return tuple(imp for path in sorted(SOURCE.rglob('*.py'))
                 for imp in imports_in(path, path.read_text(encoding='utf-8')))


def broken_rule(imp):
    """Why ``imp`` is not allowed, or None when it is."""
    mine, theirs = layer_of(imp.importer), layer_of(imp.imported)
    if imp.imported == PACKAGE or mine == theirs:
        return None
    layer = LAYERS[mine]
    if theirs not in layer.may_import:
        return '%s may import only %s: %s' % (
            mine, ', '.join(sorted(layer.may_import)) or 'itself',
            layer.why)
    only = layer.only.get(theirs)
    if only is not None and imp.imported not in only:
        return '%s may import only %s of %s: %s' % (
            mine, ', '.join(sorted(only)), theirs, layer.why)
    return None


class ImportRulesTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.imports = our_imports()

    def forbidden(self):
        return [(imp, rule) for imp in self.imports
                for rule in [broken_rule(imp)] if rule]

    def test_every_module_is_in_a_known_layer(self):
        unknown = sorted({module_name(path)
                          for path in SOURCE.rglob('*.py')
                          if layer_of(module_name(path)) not in LAYERS})
        self.assertEqual([], unknown,
                         'modules of a layer LAYERS does not describe: '
                         'add the layer, with what it may import and why')

    def test_the_layers_form_no_cycle(self):
        graph = {name: layer.may_import for name, layer in LAYERS.items()}
        try:
            graphlib.TopologicalSorter(graph).prepare()
        except graphlib.CycleError as error:
            self.fail('the layers import each other in a cycle: %s'
                      % ' -> '.join(error.args[1]))

    def test_every_imported_layer_is_known(self):
        named = {name for layer in LAYERS.values()
                 for name in layer.may_import | set(layer.only)}
        self.assertEqual(set(), named - set(LAYERS))

    def test_no_import_breaks_a_rule(self):
        new = ['%s\n    rule: %s' % (imp, rule)
               for imp, rule in self.forbidden()
               if imp.pair not in EXCEPTIONS]
        self.assertEqual([], new, 'imports against the layers of '
                         'DESIGN.md:\n' + '\n'.join(new))

    def test_every_exception_is_still_needed(self):
        still = {imp.pair for imp, _ in self.forbidden()}
        gone = ['%s -> %s' % pair for pair in EXCEPTIONS if pair not in still]
        self.assertEqual([], gone, 'these imports are gone or allowed now: '
                         'remove them from EXCEPTIONS')

    def test_imports_are_found_at_any_depth_and_in_every_form(self):
        # Given a driver that hides its imports in several ways
        path = SOURCE / 'drivers' / 'modules' / 'sneaky.py'
        text = textwrap.dedent('''
            import ironic_steps.api.app
            from .. import base
            from ironic_steps import objects
            from ironic_steps.conf import CONF

            class Sneaky:
                def run(self):
                    if True:
                        from ironic_steps.conductor import rpcapi
                    importlib.import_module('ironic_steps.db.api')
                    return __import__('ironic_steps.service')
            ''')
        # When its imports are read
        found = [(imp.line, imp.imported) for imp in imports_in(path, text)]
        # Then every one is found, a name counting as the module it is
        self.assertEqual(
            [(2, 'ironic_steps.api.app'), (3, 'ironic_steps.drivers.base'),
             (4, 'ironic_steps.objects'), (5, 'ironic_steps.conf'),
             (10, 'ironic_steps.conductor.rpcapi'),
             (11, 'ironic_steps.db.api'), (12, 'ironic_steps.service')],
            sorted(found))

    def test_a_forbidden_import_names_its_file_line_and_rule(self):
        # Given a driver importing the conductor inside a function
        path = SOURCE / 'drivers' / 'sneaky.py'
        text = 'def f():\n    from ironic_steps.conductor import steps\n'
        [imp] = imports_in(path, text)
        # Then the import, where it stands and the rule it breaks are named
        self.assertEqual('ironic_steps/drivers/sneaky.py:2: '
                         'ironic_steps.drivers.sneaky imports '
                         'ironic_steps.conductor.steps', str(imp))
        self.assertIn('drivers may import only common, conf, '
                      'release_mappings, version',
                      broken_rule(imp))

    def test_the_api_may_import_only_the_rpc_client_of_the_conductor(self):
        path = SOURCE / 'api' / 'controllers' / 'sneaky.py'
        client, manager = imports_in(
            path, 'from ironic_steps.conductor import rpcapi\n'
                  'from ironic_steps.conductor import manager\n')
        self.assertIsNone(broken_rule(client))
        self.assertIn('api may import only ironic_steps.conductor.rpcapi '
                      'of conductor', broken_rule(manager))
