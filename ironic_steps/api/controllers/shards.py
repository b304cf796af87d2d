"""/v1/shards (API 1.82): the shards nodes are in, and how many each has.

As Ironic answers: ``{"shards": [{"name": ..., "count": ...}, ...]}``,
largest first, not paged; the nodes without a shard are counted under the
name ``"None"``, as Ironic shows them.  Below 1.82 the path does not exist
(404).  Reading needs ``baremetal:shards:get``.
"""

import flask

from ironic_steps.api import policy
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import versions
from ironic_steps import objects

blueprint = flask.Blueprint('shards', __name__, url_prefix='/v1/shards')

VERSION = versions.gate(blueprint, versions.MINOR_82_NODE_SHARD)


@blueprint.get('')
def list_shards():
    policy.authorize('baremetal:shards:get', flask.g.context)
    query.check_known(flask.request.args, ())
    counts = objects.Node.shard_counts(flask.g.context)
    shards = sorted(({'name': str(name), 'count': count}
                     for name, count in counts.items()),
                    key=lambda shard: (-shard['count'], shard['name']))
    return responses.json_response({'shards': shards})
