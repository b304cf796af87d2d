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

A flow that ends before its first step starts (a cleaning whose agent
never came up, an aborted wait) leaves one entry too, with no step:
its ``interface`` and ``step`` are :data:`NO_STEP`.  The step readers
(:meth:`list_by_node`, :meth:`rows_by_node`) leave those out; the node's
history of events (``GET /v1/nodes/{node}/history``, API 1.78) reads
every entry (:meth:`page_by_node`, :meth:`get_by_event_uuid`), each
named by an event UUID made from its id (:func:`event_uuid`).
"""

import uuid

from oslo_versionedobjects import base as ovo_base

from ironic_steps.common import exception
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

#: The ``interface`` and ``step`` of an entry that records the end of a
#: flow before its first step, not a step (the columns hold no NULL).
NO_STEP = ''

# An event UUID is an RFC 9562 version 8 (vendor-defined) UUID: a fixed
# 48-bit tag, the version, twelve zero bits, the variant, then the
# entry's id in the last 62 bits.  No column is needed, a lookup by UUID
# is a lookup by primary key, and UUIDs sort as their entries were
# recorded.  The tag is the top of a name-based UUID of this scheme.
_EVENT_TAG = uuid.uuid5(uuid.NAMESPACE_URL,
                        'urn:ironic-steps:node-history').int >> 80
_EVENT_TOP = (_EVENT_TAG << 16) | 0x8000   # the top 64 bits: tag, version
_ID_BITS = 62
_VARIANT = 0b10


def event_uuid(entry_id):
    """The UUID the node history shows for the entry ``entry_id``."""
    return str(uuid.UUID(int=(_EVENT_TOP << 64) | (_VARIANT << _ID_BITS)
                         | entry_id))


def entry_id(event):
    """The id of the entry the event UUID ``event`` names (any case), or
    None if it names none (not a UUID, or not an event UUID)."""
    try:
        value = uuid.UUID(event)
    except (TypeError, ValueError, AttributeError):
        return None
    if str(value) != event.lower():
        return None   # uuid.UUID also reads '{...}', 'urn:uuid:...', hex
    bits = value.int
    if bits >> 64 != _EVENT_TOP or (bits >> _ID_BITS) & 0b11 != _VARIANT:
        return None
    return bits & ((1 << _ID_BITS) - 1) or None


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

    @property
    def is_step(self):
        """False for the end of a flow before its first step."""
        return self.step != NO_STEP

    @property
    def event_uuid(self):
        """What names this entry in the node's history."""
        return event_uuid(self.id)

    @classmethod
    def list_by_node(cls, context, node_id, flow=None, flow_run=None):
        """The node's kept entries, oldest first, in one query; only those
        of ``flow`` and ``flow_run`` when given."""
        return [cls.from_row(context, row)
                for row in cls.dbapi.get_step_history(
                    node_id, CONF.conductor.step_history_max_entries,
                    flow=flow, flow_run=flow_run, skip_step=NO_STEP)]

    @classmethod
    def page_by_node(cls, context, node_id, limit, after=None,
                     newest_first=False):
        """A page of the node's kept entries, flow ends included, in one
        query: ``limit`` of them, oldest first (or newest first), after
        the entry whose id is ``after`` (which need not be kept still)."""
        return [cls.from_row(context, row)
                for row in cls.dbapi.get_node_history(
                    node_id, CONF.conductor.step_history_max_entries, limit,
                    after=after, newest_first=newest_first)]

    @classmethod
    def get_by_event_uuid(cls, context, node, event):
        """The kept entry of ``node`` (its id and UUID) that the event
        UUID ``event`` names, in one query.

        :raises ResourceNotFound: naming ``event`` and the node.
        """
        found = entry_id(event)
        row = None if found is None else cls.dbapi.get_node_history_entry(
            node.id, found, CONF.conductor.step_history_max_entries)
        if row is None:
            raise exception.ResourceNotFound(
                what='Node history record',
                ident='%s of node %s' % (event, node.uuid))
        return cls.from_row(context, row)

    @classmethod
    def rows_by_node(cls, context):
        """{node id: its entries as read-only rows, oldest first}, every
        node's in one query: for reading them all at once, where an object
        per entry would cost more than the query."""
        found = {}
        for row in cls.dbapi.get_every_step_history(skip_step=NO_STEP):
            found.setdefault(row.node_id, []).append(row)
        return found

    @classmethod
    def new_row(cls, **values):
        """The row of a new entry, from its field values, for
        :meth:`Node.record_with_next_save`: an entry is written once and
        never changed, and every step transition writes one, so no object
        is built for it (its fields' checks cost a twelfth of a deploy).

        :raises NotInPinnedRelease: pinned to a release without history.
        :raises ValueError: naming a value that is not a field.
        """
        cls.check_in_pinned_release('Step history')
        unknown = values.keys() - cls.fields.keys()
        if unknown:
            raise ValueError('Not fields of a step history entry: %s'
                             % ', '.join(sorted(unknown)))
        return values

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
