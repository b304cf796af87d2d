# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""Sphinx configuration of the ironic-steps API reference (os-api-ref).

Build it with os-api-ref and openstackdocstheme installed (they are not
test requirements)::

    sphinx-build -W -b html api-ref/source api-ref/build/html

The microversion range below must match ``ironic_steps.api.versions``;
tests/unit/api/test_api_ref.py checks that it does.
"""

project = 'ironic-steps Bare Metal API Reference'
copyright = 'ironic-steps developers'

extensions = [
    'os_api_ref',
    'openstackdocstheme',
]

html_theme = 'openstackdocs'
html_theme_options = {
    'sidebar_mode': 'toc',
}

# openstackdocstheme: this is not an OpenStack-hosted project, so no bug
# links, no project-name guessing and no git-derived "last updated".
openstackdocs_repo_name = 'ironic-steps/ironic-steps'
openstackdocs_auto_name = False
openstackdocs_use_storyboard = False
openstackdocs_bug_project = ''
openstackdocs_bug_tag = ''
openstackdocs_pdf_link = False

source_suffix = {'.rst': 'restructuredtext'}
master_doc = 'index'
exclude_patterns = ['samples']
pygments_style = 'native'

# os-api-ref: the microversion range the "New in version" marks and the
# version selector cover (versions.MIN_VERSION and versions._MAX_VERSION).
os_api_ref_min_microversion = '1.1'
os_api_ref_max_microversion = '1.115'
