import json, uuid
from tests.unit.api import base

class T(base.ApiTestCase):
    def test_x(self):
        self.api_create(name='a', maintenance=None) if False else None
        for i in range(4):
            n = self.api_create(name='n%d' % i)
            if i % 2:
                self.patch('/v1/nodes/' + n['uuid'], json=[{'op': 'replace', 'path': '/maintenance', 'value': True}])
        for key in ['maintenance', 'name', 'resource_class', 'provision_updated_at', 'power_state', 'id', 'uuid', 'created_at', 'updated_at', 'driver', 'provision_state']:
          for d in ['asc', 'desc']:
            r = self.get('/v1/nodes?sort_key=%s&sort_dir=%s' % (key, d))
            full = [n['uuid'] for n in r.get_json()['nodes']]
            got = []
            url = '/v1/nodes?sort_key=%s&sort_dir=%s&limit=1' % (key, d)
            while url:
                r = self.get(url)
                if r.status_code != 200:
                    print(key, d, r.status_code, r.data[:300]); break
                j = r.get_json()
                got += [n['uuid'] for n in j['nodes']]
                url = j.get('next', '').replace('http://localhost', '') or None
            print(key, d, full == got, len(full), len(got))
