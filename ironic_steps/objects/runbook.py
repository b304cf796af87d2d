"""The Runbook object: a named list of steps a node may run on request.

A runbook (Ironic's, API 1.92) stands in for the ``clean_steps`` of a
manual cleaning: the API hands its ``steps`` to the conductor as the
request's, once the node is allowed to run it.  Which node may is said by
its ``traits`` (1.112; before, by its ``name`` being a node trait): that
check, and who may see or use a runbook (``public``, ``owner``), are the
API's business.  A step here is the dict ``{'interface', 'step', 'args',
'order'}``, in the order the runbook lists them.

Runbooks are not node operations: nothing locks them, and the API writes
them through this object directly (each write one transaction).  Every
read is one query, traits included.
"""

from oslo_utils import uuidutils
from oslo_versionedobjects import base as ovo_base

from ironic_steps.db import api as db_api
from ironic_steps.objects import base
from ironic_steps.objects import fields

#: The fields a runbook's writes may change (traits through their own
#: methods, one at a time or all at once).
_WRITABLE = ('name', 'description', 'steps', 'disable_ramdisk', 'public',
             'owner', 'extra')
_FEATURE = 'Runbooks'


@base.IronicStepsObjectRegistry.register
class Runbook(base.IronicStepsObject, ovo_base.VersionedObjectDictCompat):
    # Version 1.0: Initial version (Ironic's 1.2: with description and
    #              traits)
    VERSION = '1.0'

    dbapi = db_api.get_instance()

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(),
        'description': fields.StringField(nullable=True),
        # [{'interface', 'step', 'args', 'order'}, ...]
        'steps': fields.ListOfFlexibleDictsField(),
        'disable_ramdisk': fields.BooleanField(default=False),
        'public': fields.BooleanField(default=False),
        'owner': fields.StringField(nullable=True),
        'extra': fields.FlexibleDictField(nullable=True),
        'traits': fields.ListOfStringsField(default=[]),
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
    }

    # --- loading --------------------------------------------------------

    @classmethod
    def get(cls, context, ident):
        """Find a runbook by UUID or name.

        :raises RunbookNotFound:
        """
        if uuidutils.is_uuid_like(ident):
            return cls.get_by_uuid(context, ident.lower())
        return cls.get_by_name(context, ident)

    @classmethod
    def get_by_uuid(cls, context, uuid):
        return cls._from_db_object(context,
                                   cls.dbapi.get_runbook_by_uuid(uuid))

    @classmethod
    def get_by_name(cls, context, name):
        return cls._from_db_object(context,
                                   cls.dbapi.get_runbook_by_name(name))

    @classmethod
    def list(cls, context, limit=None, marker=None, sort_key='id',
             sort_dir='asc', project=None):
        """A page of runbooks, after ``marker`` (a runbook) in sort order;
        with ``project``, only the public ones and those it owns."""
        return [cls._from_db_object(context, db_runbook)
                for db_runbook in cls.dbapi.get_runbook_list(
                    limit=limit, marker=marker, sort_key=sort_key,
                    sort_dir=sort_dir, project=project)]

    # --- writing --------------------------------------------------------
    # The pinned release of a rolling upgrade may lack runbooks: nothing
    # is written then, so no older service finds data it cannot read.

    def create(self, context=None):
        """Store the runbook (a UUID is made if it has none).

        :raises RunbookDuplicateName, RunbookAlreadyExists:
        """
        self.check_in_pinned_release(_FEATURE)
        self._from_db_object(context or self._context,
                             self.dbapi.create_runbook(
                                 self.obj_get_changes()), self)

    def save(self, context=None):
        """Write the changed fields, in one transaction.

        :raises RunbookNotFound, RunbookDuplicateName:
        """
        changes = self.changes_to_save(_FEATURE, _WRITABLE, 'runbook')
        if changes:
            self._from_db_object(context or self._context,
                                 self.dbapi.update_runbook(self.id, changes),
                                 self)

    def set_traits(self, traits):
        """Replace every trait of the runbook with ``traits``."""
        self.check_in_pinned_release(_FEATURE)
        self._from_db_object(self._context, self.dbapi.update_runbook(
            self.id, {'traits': traits}), self)

    def add_trait(self, trait):
        """Give the runbook ``trait``; having it already is no matter."""
        self.check_in_pinned_release(_FEATURE)
        self.dbapi.add_runbook_trait(self.id, trait)
        self.refresh()

    def remove_traits(self, traits=None):
        """Take ``traits`` (None: all) from the runbook; one it lacks is no
        matter, as in Ironic."""
        self.check_in_pinned_release(_FEATURE)
        self.dbapi.remove_runbook_traits(self.id, traits)
        self.refresh()

    def destroy(self, context=None):
        """Delete the runbook and its traits.

        :raises RunbookNotFound:
        """
        self.check_in_pinned_release(_FEATURE)
        self.dbapi.destroy_runbook(self.id)
        self.obj_reset_changes()

    def refresh(self, context=None):
        self.obj_refresh(self.get_by_uuid(context or self._context,
                                          self.uuid))
