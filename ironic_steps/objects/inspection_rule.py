"""The InspectionRule object: what to check in a node's inspection data
and what to do with the node when it holds (Ironic's, API 1.96).

A rule's ``conditions`` and ``actions`` are lists of ``{'op', 'args'}``
dicts (a condition may say ``loop`` and ``multiple``, an action
``loop``), in the order written; their meaning is
:mod:`ironic_steps.common.inspection_rules`'.  Rules are not node
operations: nothing locks them, and the API writes them through this
object directly (each write one transaction).
"""

from oslo_versionedobjects import base as ovo_base

from ironic_steps.db import api as db_api
from ironic_steps.objects import base
from ironic_steps.objects import fields

#: The fields a rule's writes may change.
_WRITABLE = ('description', 'priority', 'sensitive', 'phase', 'conditions',
             'actions')
_FEATURE = 'Inspection rules'


@base.IronicStepsObjectRegistry.register
class InspectionRule(base.IronicStepsObject,
                     ovo_base.VersionedObjectDictCompat):
    # Version 1.0: Initial version (Ironic's 1.1, without scope)
    VERSION = '1.0'

    dbapi = db_api.get_instance()

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'description': fields.StringField(nullable=True),
        'priority': fields.IntegerField(default=0),
        'sensitive': fields.BooleanField(default=False),
        'phase': fields.StringField(default='main'),
        'conditions': fields.ListOfFlexibleDictsField(default=[]),
        'actions': fields.ListOfFlexibleDictsField(),
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
    }

    @classmethod
    def get_by_uuid(cls, context, uuid):
        """:raises InspectionRuleNotFound:"""
        return cls._from_db_object(
            context, cls.dbapi.get_inspection_rule_by_uuid(uuid))

    @classmethod
    def list(cls, context, limit=None, marker=None, sort_key='id',
             sort_dir='asc', phase=None):
        """A page of rules (of ``phase`` only, if given), after ``marker``
        (a rule) in sort order."""
        return [cls._from_db_object(context, db_rule)
                for db_rule in cls.dbapi.get_inspection_rule_list(
                    limit=limit, marker=marker, sort_key=sort_key,
                    sort_dir=sort_dir, phase=phase)]

    # --- writing --------------------------------------------------------
    # The pinned release of a rolling upgrade may lack rules: nothing is
    # written then, so no older service finds data it cannot read.

    def create(self, context=None):
        """Store the rule (a UUID is made if it has none), with Ironic's
        defaults for what it does not say.

        :raises InspectionRuleAlreadyExists:
        """
        self.check_in_pinned_release(_FEATURE)
        for field in ('priority', 'sensitive', 'phase', 'conditions'):
            if not self.obj_attr_is_set(field) or getattr(self,
                                                          field) is None:
                self.obj_set_defaults(field)
        self._from_db_object(context or self._context,
                             self.dbapi.create_inspection_rule(
                                 self.obj_get_changes()), self)

    def save(self, context=None):
        """Write the changed fields, in one transaction.

        :raises InspectionRuleNotFound:
        """
        changes = self.changes_to_save(_FEATURE, _WRITABLE,
                                       'inspection rule')
        if changes:
            self._from_db_object(
                context or self._context,
                self.dbapi.update_inspection_rule(self.id, changes), self)

    def destroy(self, context=None):
        """Delete the rule.

        :raises InspectionRuleNotFound:
        """
        self.check_in_pinned_release(_FEATURE)
        self.dbapi.destroy_inspection_rule(self.id)
        self.obj_reset_changes()
