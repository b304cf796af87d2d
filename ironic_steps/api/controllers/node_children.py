"""/v1/nodes/{node}/children (API 1.83): the nodes whose ``parent_node``
is this node.

As Ironic answers: ``{"children": [<uuid>, ...], "links": {"href":
".../v1/nodes?parent_node=<uuid>", "rel": "children"}}``, not paged (the
link lists them as nodes).  Below 1.83 the path does not exist (404).
Reading needs ``baremetal:node:get``, as reading the parent does.
"""

import flask

from ironic_steps.api import node_ident
from ironic_steps.api import responses
from ironic_steps.api import tenancy
from ironic_steps.api import versions
from ironic_steps import objects

blueprint = node_ident.blueprint('node_children', 'children',
                                 versions.MINOR_83_PARENT_CHILD_NODES)


@blueprint.get('')
def list_children(ident):
    context = flask.g.context
    node = tenancy.read(context, ident, flask.g.version,
                        'baremetal:node:get', flask.request.args)
    filters = {'parent_node': node.uuid}
    project = tenancy.list_project('node', context)
    if project is not None:
        filters['project'] = project   # another project's are not shown
    children = objects.Node.list_fields(context, ('uuid',), filters=filters)
    listed = '%s?parent_node=%s' % (responses.url('nodes'), node.uuid)
    return responses.json_response({
        'children': [child.uuid for child in children],
        'links': {'href': listed, 'rel': 'children'}})
