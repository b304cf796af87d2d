"""Sphinx configuration of the ironic-steps documentation site.

Build it (the unit test tests/unit/test_docs.py does the same, with
warnings as errors)::

    .venv/bin/sphinx-build -W -b html doc/source doc/build/html

Two pages are generated rather than written by hand, so they cannot drift
from the code: the configuration reference (oslo.config's
``show-options``) and the release notes (reno's ``release-notes``, read
from the git history of releasenotes/notes, so build from the
repository's root).  The table of import layers on the architecture
page comes from tests/unit/test_import_rules.py, through the local
extension in ``_ext/``.

The API reference is a separate site (api-ref/source), built with
os-api-ref, which is not a test requirement.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, '_ext'))
sys.path.insert(0, REPO)

project = 'ironic-steps'
copyright = 'ironic-steps developers'

extensions = [
    'oslo_config.sphinxext',
    'reno.sphinxext',
    'import_layers',
    # Sections can be linked as :ref:`page/path:Section title`.
    'sphinx.ext.autosectionlabel',
]
autosectionlabel_prefix_document = True

master_doc = 'index'
source_suffix = {'.rst': 'restructuredtext'}
exclude_patterns = []
pygments_style = 'sphinx'
html_theme = 'alabaster'
html_theme_options = {
    'description': 'Deploy steps for bare metal, Ironic-compatible',
    'fixed_sidebar': True,
}
html_static_path = []
