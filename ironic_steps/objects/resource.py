"""The base of the simple resources around a node: one row, one object.

A :class:`StoredResource` subclass declares its fields, its table's kind
name (see :mod:`db.sqlalchemy.resources`) and what a message calls it;
reading, listing and writing are the same for every kind.  Nothing locks
these records (Ironic's conductor does not either, beyond the node's
state checks the API makes): each write is one transaction.

The pinned release of a rolling upgrade may lack the object: nothing is
written then, so no older service finds data it cannot read; nor are the
fields its version of the object lacks (they keep what they hold).
"""

from oslo_versionedobjects import base as ovo_base

from ironic_steps.common import exception
from ironic_steps.db import api as db_api
from ironic_steps.objects import base
from ironic_steps.objects import fields

#: Fields every stored resource has, after its own.
COMMON_FIELDS = {
    'id': fields.IntegerField(),
    'uuid': fields.UUIDField(),
    'created_at': fields.DateTimeField(nullable=True),
    'updated_at': fields.DateTimeField(nullable=True),
}


class StoredResource(base.IronicStepsObject,
                     ovo_base.VersionedObjectDictCompat):
    #: The table's kind name in :data:`db.sqlalchemy.resources.KINDS`.
    KIND = None
    #: What a refused write calls these records ('Ports').
    FEATURE = None
    #: Fields a save may not change.
    FIXED = frozenset(['id', 'uuid', 'created_at', 'updated_at'])

    dbapi = db_api.get_instance()

    @classmethod
    def _from_db_object(cls, context, row, obj=None):
        item = obj if obj is not None else cls(context)
        for field in cls.fields:
            setattr(item, field, getattr(row, field))
        item._context = context
        item.obj_reset_changes()
        return item

    @classmethod
    def get_by(cls, context, key, value):
        """The record whose ``key`` field is ``value``.

        :raises ResourceNotFound:
        """
        return cls._from_db_object(
            context, cls.dbapi.get_resource(cls.KIND, key, value))

    @classmethod
    def get_by_uuid(cls, context, uuid):
        return cls.get_by(context, 'uuid', uuid)

    @classmethod
    def list(cls, context, filters=None, limit=None, marker=None,
             sort_key='id', sort_dir='asc'):
        """A page of records matching ``filters`` (field -> value), after
        ``marker`` (a record) in sort order."""
        return [cls._from_db_object(context, row)
                for row in cls.list_rows(context, filters, limit, marker,
                                         sort_key, sort_dir)]

    @classmethod
    def list_rows(cls, context, filters=None, limit=None, marker=None,
                  sort_key='id', sort_dir='asc'):
        """The page :meth:`list` reads, as read-only rows (one attribute
        per field): for showing, where an object per record would cost
        several times the row."""
        return cls.dbapi.list_resources(
            cls.KIND, filters, limit=limit, marker=marker,
            sort_key=sort_key, sort_dir=sort_dir)

    def create(self, context=None):
        """Store the record (a UUID is made if it has none).

        :raises ResourceAlreadyExists: naming the duplicated value.
        """
        self.check_in_pinned_release(self.FEATURE)
        row = self.dbapi.create_resource(self.KIND, self._changes_to_write())
        self._from_db_object(context or self._context, row, self)

    def save(self, context=None, expected=None):
        """Write the changed fields in one transaction.

        :param expected: field -> the value it must still hold; if it does
            not, nothing is written and False returned.
        :raises ResourceNotFound, ResourceAlreadyExists:
        """
        self.check_in_pinned_release(self.FEATURE)
        changes = self._changes_to_write()
        fixed = sorted(set(changes) & self.FIXED)
        if fixed:
            raise exception.Invalid('Field(s) %s of %s %s cannot change' % (
                ', '.join(fixed), self.KIND, self.uuid))
        if not changes:
            return True
        row = self.dbapi.update_resource(self.KIND, self.id, changes,
                                         expected=expected)
        if row is None:
            return False
        self._from_db_object(context or self._context, row, self)
        return True

    def _changes_to_write(self):
        """The changed fields the pinned release's object has."""
        unknown = self.fields_unknown_under_pin()
        return {field: value for field, value in self.obj_get_changes().items()
                if field not in unknown}

    def destroy(self, context=None):
        """Delete the record.

        :raises ResourceNotFound:
        :raises ResourceStillUsed: while other records belong to it.
        """
        self.check_in_pinned_release(self.FEATURE)
        self.dbapi.destroy_resource(self.KIND, self.id)
        self.obj_reset_changes()

    def refresh(self, context=None):
        self.obj_refresh(self.get_by_uuid(context or self._context,
                                          self.uuid))
