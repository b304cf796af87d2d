"""Every route of the API matches the URLs it builds.

The routes build their URLs lazily (``app._Route``): building one still
gives the path that routes back to it.
"""

from ironic_steps.api import app as app_module
from tests.unit.api import base


class RoutesTest(base.ApiTestCase):

    @staticmethod
    def value_for(rule, name):
        """A value the route's converter for ``name`` takes."""
        choices = getattr(rule._converters[name], 'items', None)
        return sorted(choices)[0] if choices else 'x-%s' % name

    def test_each_route_builds_a_url_that_routes_back_to_it(self):
        adapter = self.app.url_map.bind('localhost')
        rules = list(self.app.url_map.iter_rules())
        self.assertGreater(len(rules), 100)
        for rule in rules:
            self.assertIsInstance(rule, app_module._Route)
            # (The defaults too: they choose among an endpoint's routes.)
            values = {**(rule.defaults or {}),
                      **{name: self.value_for(rule, name)
                         for name in rule._converters}}
            method = sorted(rule.methods - {'HEAD', 'OPTIONS'})[0]
            path = adapter.build(rule.endpoint, values, method=method)
            endpoint, matched = adapter.match(path, method=method)
            self.assertEqual((rule.endpoint, values), (endpoint, matched),
                             path)
