"""The DeployTemplate object: a named set of deploy steps operators choose.

A deploy template's ``name`` is a trait (see :mod:`common.traits`); a
deploy whose ``instance_info.traits`` names it runs its ``steps`` on top
of the node's driver steps (the conductor's business).  A step here is the
dict ``{'interface', 'step', 'args', 'priority'}``, in the order the
template lists them.

Templates are not node operations: nothing locks them, and the API writes
them through this object directly (each write one transaction).  Every
read is one query, steps included.
"""

from oslo_utils import uuidutils
from oslo_versionedobjects import base as ovo_base

from ironic_steps.db import api as db_api
from ironic_steps.objects import base
from ironic_steps.objects import fields

#: The fields a template's writes may change.
_WRITABLE = ('name', 'steps', 'extra')


@base.IronicStepsObjectRegistry.register
class DeployTemplate(base.IronicStepsObject,
                     ovo_base.VersionedObjectDictCompat):
    # Version 1.0: Initial version
    VERSION = '1.0'

    dbapi = db_api.get_instance()

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(),
        # [{'interface', 'step', 'args', 'priority'}, ...]
        'steps': fields.ListOfFlexibleDictsField(),
        'extra': fields.FlexibleDictField(nullable=True),
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
    }

    # --- loading --------------------------------------------------------

    @classmethod
    def get(cls, context, ident):
        """Find a template by UUID or name.

        :raises DeployTemplateNotFound:
        """
        if uuidutils.is_uuid_like(ident):
            return cls.get_by_uuid(context, ident)
        return cls.get_by_name(context, ident)

    @classmethod
    def get_by_id(cls, context, template_id):
        return cls._from_db_object(
            context, cls.dbapi.get_deploy_template_by_id(template_id))

    @classmethod
    def get_by_uuid(cls, context, uuid):
        return cls._from_db_object(
            context, cls.dbapi.get_deploy_template_by_uuid(uuid))

    @classmethod
    def get_by_name(cls, context, name):
        return cls._from_db_object(
            context, cls.dbapi.get_deploy_template_by_name(name))

    @classmethod
    def list(cls, context, limit=None, marker=None, sort_key='id',
             sort_dir='asc'):
        """A page of templates, after ``marker`` (a template) in sort order."""
        return [cls._from_db_object(context, db_template)
                for db_template in cls.dbapi.get_deploy_template_list(
                    limit=limit, marker=marker, sort_key=sort_key,
                    sort_dir=sort_dir)]

    @classmethod
    def list_by_names(cls, context, names):
        """The templates whose names are in ``names``, sorted by name.

        One query, steps included; names without a template are skipped.
        """
        return [cls._from_db_object(context, db_template)
                for db_template in
                cls.dbapi.get_deploy_template_list_by_names(names)]

    # --- writing --------------------------------------------------------
    # The pinned release of a rolling upgrade may lack templates: nothing
    # is written then, so no older service finds data it cannot read.

    def create(self, context=None):
        """Store the template (a UUID is made if it has none).

        :raises DeployTemplateDuplicateName, DeployTemplateAlreadyExists:
        """
        self.check_in_pinned_release('Deploy templates')
        values = self.obj_get_changes()
        self._from_db_object(context or self._context,
                             self.dbapi.create_deploy_template(values), self)

    def save(self, context=None):
        """Write the changed name, steps and extra, in one transaction.

        :raises DeployTemplateNotFound, DeployTemplateDuplicateName:
        """
        changes = self.changes_to_save('Deploy templates', _WRITABLE,
                                       'deploy template')
        if changes:
            self._from_db_object(
                context or self._context,
                self.dbapi.update_deploy_template(self.id, changes), self)

    def destroy(self, context=None):
        """Delete the template and its steps.

        :raises DeployTemplateNotFound:
        """
        self.check_in_pinned_release('Deploy templates')
        self.dbapi.destroy_deploy_template(self.id)
        self.obj_reset_changes()

    def refresh(self, context=None):
        self.obj_refresh(self.get_by_uuid(context or self._context,
                                          self.uuid))
