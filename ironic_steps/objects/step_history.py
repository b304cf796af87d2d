"""The NodeStepHistory object: one run of one step of a node.

Every deploy or clean step that ends (done, failed, aborted, timed out)
leaves one entry: which flow ran it (``deploy`` or ``clean``) and which
run of that flow (``flow_run``, one UUID per deploy or cleaning attempt),
the step, its arguments with their secrets masked as the API masks them,
its priority, when it started and ended, and how it ended.  The step
runner writes them (:mod:`ironic_steps.conductor.step_history`); the API
reads them (``GET /v1/nodes/{node}/x-steps/history``).

A node keeps its newest ``[conductor] step_history_max_entries`` entries,
across deploys; older ones are dropped (see :meth:`trim`), and all go
with the node.
"""

from oslo_versionedobjects import base as ovo_base

from ironic_steps.conf import CONF
from ironic_steps.db import api as db_api
from ironic_steps.objects import base
from ironic_steps.objects import fields

#: How a step run can end.
SUCCESS = 'success'
FAILED = 'failed'
ABORTED = 'aborted'
TIMEOUT = 'timeout'
OUTCOMES = (SUCCESS, FAILED, ABORTED, TIMEOUT)


@base.IronicStepsObjectRegistry.register
class NodeStepHistory(base.IronicStepsObject,
                      ovo_base.VersionedObjectDictCompat):
    # Version 1.0: Initial version
    VERSION = '1.0'

    dbapi = db_api.get_instance()

    fields = {
        'id': fields.IntegerField(),
        'node_id': fields.IntegerField(),
        'flow': fields.StringField(),
        'flow_run': fields.UUIDField(),
        'interface': fields.StringField(),
        'step': fields.StringField(),
        # Masked: a secret's value never reaches the table.
        'args': fields.FlexibleDictField(nullable=True),
        'priority': fields.IntegerField(nullable=True),
        'started_at': fields.DateTimeField(),
        'finished_at': fields.DateTimeField(),
        'outcome': fields.StringField(),
        'error': fields.StringField(nullable=True),
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
    }

    @property
    def duration(self):
        """Seconds the step ran, waits included."""
        return (self.finished_at - self.started_at).total_seconds()

    @classmethod
    def _from_row(cls, context, row):
        entry = cls(context)
        for field in cls.fields:
            setattr(entry, field, getattr(row, field))
        entry.obj_reset_changes()
        return entry

    @classmethod
    def list_by_node(cls, context, node_id, flow=None, flow_run=None):
        """The node's kept entries, oldest first, in one query; only those
        of ``flow`` and ``flow_run`` when given."""
        return [cls._from_row(context, row)
                for row in cls.dbapi.get_step_history(
                    node_id, CONF.conductor.step_history_max_entries,
                    flow=flow, flow_run=flow_run)]

    @classmethod
    def rows_by_node(cls, context):
        """{node id: its entries as read-only rows, oldest first}, every
        node's in one query: for reading them all at once, where an object
        per entry would cost more than the query."""
        found = {}
        for row in cls.dbapi.get_every_step_history():
            found.setdefault(row.node_id, []).append(row)
        return found

    def create(self, context=None):
        """Record this entry: one INSERT.

        :raises NotInPinnedRelease: pinned to a release without history.
        """
        self.dbapi.add_step_history(self.values_to_insert())
        self.obj_reset_changes()

    def values_to_insert(self):
        """The row this entry becomes (for :meth:`create`, or for the
        node's save that records it: :meth:`Node.record_with_next_save`).

        :raises NotInPinnedRelease: pinned to a release without history.
        """
        self.check_in_pinned_release('Step history')
        values = self.obj_get_changes()
        values.pop('duration', None)
        return values

    @classmethod
    def trim(cls, context, node_id):
        """Drop the node's entries beyond the newest it keeps: one DELETE.

        :returns: how many were dropped.
        """
        return cls.dbapi.trim_step_history(
            node_id, CONF.conductor.step_history_max_entries)
