"""The ``import-layers`` directive: the table of import layers, read from
tests/unit/test_import_rules.py, so the architecture page shows the rules
the test enforces and cannot drift from them.

Each row is a layer (top to bottom, as ``LAYERS`` lists them), what it may
import (with the only modules allowed of a layer, where the rule narrows
it), and why.  ``.. import-layers:: exceptions`` renders the imports that
still break a rule, with their reasons (``EXCEPTIONS``).
"""

from sphinx.util import docutils as sphinx_docutils

from tests.unit import test_import_rules as rules


def _may_import(layer):
    names = []
    for name in sorted(layer.may_import, key=list(rules.LAYERS).index):
        only = layer.only.get(name)
        if only:
            names.append('%s (only %s)' % (
                name, ', '.join('``%s``' % m for m in sorted(only))))
        else:
            names.append(name)
    return ', '.join(names) or 'nothing of ours'


def _layer_rows():
    for name, layer in rules.LAYERS.items():
        yield ['``%s``' % name, _may_import(layer), layer.why]


def _exception_rows():
    for (importer, imported), why in sorted(rules.EXCEPTIONS.items()):
        yield ['``%s``' % importer, '``%s``' % imported, why]


def _list_table(header, rows):
    lines = ['.. list-table::', '   :header-rows: 1',
             '   :widths: 15 35 50', '']
    for row in [header] + list(rows):
        for i, cell in enumerate(row):
            lines.append(('   * - ' if i == 0 else '     - ') + cell)
    return lines


class ImportLayers(sphinx_docutils.SphinxDirective):
    optional_arguments = 1

    def run(self):
        if self.arguments and self.arguments[0] == 'exceptions':
            lines = _list_table(['module', 'imports', 'why it still does'],
                                _exception_rows())
            if not rules.EXCEPTIONS:
                lines = ['None: every import follows the layers.']
        else:
            lines = _list_table(['layer', 'may import', 'why'],
                                _layer_rows())
        return self.parse_text_to_nodes('\n'.join(lines))


def setup(app):
    app.add_directive('import-layers', ImportLayers)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
