"""The Allocation object: a request for a node, and the node it was given.

An allocation asks for an ``available`` node of a ``resource_class``,
with ``traits`` (all of them), among ``candidate_nodes`` (node UUIDs) if
given, owned by ``owner`` if given.  It is created ``allocating``; a
conductor then gives it a node (``active``, ``node_id`` set, the node's
``instance_uuid`` the allocation's UUID) or fails it (``error``,
``last_error`` says why): see :mod:`ironic_steps.conductor.allocations`.
``node_uuid`` is read with the allocation (a join), never written.

Allocations are not node operations: the API reads them and changes their
``name`` and ``extra`` through this object directly; giving one a node,
and deleting one that holds a node, happen on a conductor under that
node's lock.  Nothing is written while the services are pinned to a
release without allocations.
"""

from oslo_versionedobjects import base as ovo_base

from ironic_steps.db import api as db_api
from ironic_steps.objects import base
from ironic_steps.objects import fields

#: What a change through the API may touch (API 1.57).
_UPDATABLE = ('name', 'extra')
#: What a conductor writes when it gives an allocation a node or fails it.
_PROCESSED = ('node_id', 'state', 'last_error')


@base.IronicStepsObjectRegistry.register
class Allocation(base.IronicStepsObject, ovo_base.VersionedObjectDictCompat):
    # Version 1.0: Initial version
    VERSION = '1.0'

    dbapi = db_api.get_instance()

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'node_id': fields.IntegerField(nullable=True),
        # Read with the allocation from the node it holds; never written.
        'node_uuid': fields.UUIDField(nullable=True),
        'state': fields.StringField(),
        'owner': fields.StringField(nullable=True),
        'last_error': fields.StringField(nullable=True),
        'resource_class': fields.StringField(nullable=True),
        'traits': fields.ListOfStringsField(nullable=True),
        # Node UUIDs, in the order the request gave them.
        'candidate_nodes': fields.ListOfStringsField(nullable=True),
        'extra': fields.FlexibleDictField(nullable=True),
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
    }

    # --- loading --------------------------------------------------------

    @classmethod
    def get_by_id(cls, context, allocation_id):
        return cls._from_db_object(
            context, cls.dbapi.get_allocation_by_id(allocation_id))

    @classmethod
    def get_by_uuid(cls, context, uuid):
        return cls._from_db_object(
            context, cls.dbapi.get_allocation_by_uuid(uuid))

    @classmethod
    def get_by_name(cls, context, name):
        return cls._from_db_object(
            context, cls.dbapi.get_allocation_by_name(name))

    @classmethod
    def list(cls, context, filters=None, limit=None, marker=None,
             sort_key='id', sort_dir='asc'):
        """A page of allocations matching ``filters`` (``node_uuid``,
        ``resource_class``, ``state``, ``owner``), after ``marker`` (an
        allocation) in sort order."""
        return [cls._from_db_object(context, db_allocation)
                for db_allocation in cls.dbapi.get_allocation_list(
                    filters=filters, limit=limit, marker=marker,
                    sort_key=sort_key, sort_dir=sort_dir)]

    @classmethod
    def uuids_of_nodes(cls, context, node_uuids):
        """{node UUID: UUID of its allocation}, for the nodes that have
        one (one query)."""
        if cls.get_target_version() is None:
            return {}
        return cls.dbapi.get_allocation_uuids_of_nodes(node_uuids)

    @classmethod
    def list_unsettled(cls, context, changed_before):
        """Allocations still ``allocating``, unchanged since before
        ``changed_before`` (a conductor that processed them may have
        died): (id, uuid, updated_at) rows, oldest first."""
        if cls.get_target_version() is None:
            return []
        return cls.dbapi.get_unsettled_allocations(changed_before)

    @classmethod
    def claim(cls, context, unsettled):
        """Take ``unsettled`` (a row of :meth:`list_unsettled`) to process
        it again: whether this caller got it (nobody changed it since)."""
        return cls.dbapi.claim_allocation(unsettled.id, unsettled.updated_at)

    # --- writing --------------------------------------------------------

    def create(self, context=None):
        """Store the allocation, holding no node yet.

        :raises AllocationDuplicateName, AllocationAlreadyExists:
        :raises NotInPinnedRelease: while pinned to a release without
            allocations.
        """
        self.check_in_pinned_release('Allocations')
        values = self.obj_get_changes()
        self._from_db_object(context or self._context,
                             self.dbapi.create_allocation(values), self)

    def save(self, context=None):
        """Write the changes: ``name`` and ``extra`` (the API's), or what a
        conductor decided (``node_id``, ``state``, ``last_error``); giving
        ``node_id`` associates the node in the same transaction.

        :raises AllocationNotFound, AllocationDuplicateName:
        :raises AllocationAlreadyDecided: a conductor's decision, when
            another conductor's was written first.
        :raises NodeAssociated: if the node has another instance.
        """
        changes = self.changes_to_save('Allocations',
                                       _UPDATABLE + _PROCESSED, 'allocation')
        if changes:
            self._from_db_object(
                context or self._context,
                self.dbapi.update_allocation(self.id, changes), self)

    def destroy(self, context=None):
        """Delete the allocation; the node it held has no instance then.

        :raises AllocationNotFound:
        """
        self.check_in_pinned_release('Allocations')
        self.dbapi.destroy_allocation(self.id)
        self.obj_reset_changes()

    def refresh(self, context=None):
        self.obj_refresh(self.get_by_uuid(context or self._context,
                                          self.uuid))
