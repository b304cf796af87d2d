"""The documentation builds, and the README stays a front door.

* The Sphinx site in ``doc/source`` builds with warnings as errors, as
  ``sphinx-build -W -E -b html doc/source OUT`` from the repository's root
  (the release notes page reads the git history there), into a temporary
  directory.
* The release notes pass ``reno lint``.
* ``README.md`` is at most :data:`README_MAX_LINES` lines, and every
  relative link in it names a file or directory of the repository.
"""

import os
import re
import subprocess
import sys

import fixtures
import testtools

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)
README = os.path.join(REPO, 'README.md')
#: The README is the front door: what ironic-steps is, the two commands,
#: one step example and links; everything else lives in the docs site.
README_MAX_LINES = 220
#: Markdown links and images: [text](target) and ![alt](target).
_LINK = re.compile(r'!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')
_BUILD_TIMEOUT = 120


def _run(args, timeout):
    return subprocess.run(args, cwd=REPO, capture_output=True, text=True,
                          timeout=timeout)


def _relative_links(text):
    """The link targets of a markdown text that point into the repository:
    no scheme, no mail, no in-page anchor; without their own anchor."""
    # Links inside code are not links.
    text = re.sub(r'```.*?```', '', text, flags=re.DOTALL)
    text = re.sub(r'`[^`\n]*`', '', text)
    targets = []
    for target in _LINK.findall(text):
        if re.match(r'^[a-zA-Z][a-zA-Z0-9+.-]*:', target) or \
                target.startswith('#'):
            continue
        targets.append(target.split('#', 1)[0])
    return targets


class DocsSiteTest(testtools.TestCase):

    def test_the_site_builds_without_a_warning(self):
        # Given a fresh output directory,
        out = self.useFixture(fixtures.TempDir()).path
        # when the site is built from scratch, warnings as errors,
        result = _run([os.path.join(BIN, 'sphinx-build'), '-W', '-E', '-q',
                       '-b', 'html', os.path.join('doc', 'source'), out],
                      timeout=_BUILD_TIMEOUT)
        # then it succeeds, saying nothing, and has its front page.
        self.assertEqual(0, result.returncode,
                         'sphinx-build failed:\n' + result.stderr)
        self.assertEqual('', result.stderr.strip())
        self.assertTrue(os.path.isfile(os.path.join(out, 'index.html')))

    def test_the_release_notes_pass_reno_lint(self):
        result = _run([os.path.join(BIN, 'reno'), 'lint'], timeout=60)
        self.assertEqual(0, result.returncode,
                         'reno lint failed:\n' + result.stdout
                         + result.stderr)


class ReadmeTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        with open(README, encoding='utf-8') as f:
            self.text = f.read()

    def test_the_readme_stays_short(self):
        lines = self.text.count('\n')
        self.assertLessEqual(
            lines, README_MAX_LINES,
            'README.md has %d lines, more than %d: move the detail into the '
            'docs site (doc/source) and link to it' % (
                lines, README_MAX_LINES))

    def test_every_relative_link_of_the_readme_names_a_file(self):
        targets = _relative_links(self.text)
        self.assertNotEqual([], targets)
        missing = [t for t in targets
                   if not os.path.exists(os.path.join(REPO, t))]
        self.assertEqual([], missing,
                         'README.md links to paths that do not exist')

    def test_links_in_code_and_to_other_sites_are_not_checked(self):
        text = ('[a](doc/source/index.rst) [b](https://example.com/x) '
                '[c](#set-up) `[d](nowhere.md)` [e](README.md#title) '
                '![f](api-ref/source/index.rst "title")')
        self.assertEqual(['doc/source/index.rst', 'README.md',
                          'api-ref/source/index.rst'],
                         _relative_links(text))
