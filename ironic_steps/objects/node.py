"""The Node object: a bare-metal server and where it is in its life."""

from oslo_utils import strutils
from oslo_utils import uuidutils
from oslo_versionedobjects import base as ovo_base

from ironic_steps.common import exception
from ironic_steps.db import api as db_api
from ironic_steps.objects import base
from ironic_steps.objects import fields


@base.IronicStepsObjectRegistry.register
class Node(base.IronicStepsObject, ovo_base.VersionedObjectDictCompat):
    # Version 1.0: Initial version (before deploy steps)
    # Version 1.1: Add deploy_step
    # Version 1.2: Add the fields of API 1.1-1.66: raid_config,
    #              target_raid_config, console_enabled, fault,
    #              inspection_started_at/finished_at, conductor_group,
    #              automated_clean, protected(_reason), owner, lessee,
    #              description, retired(_reason), network_data and the
    #              console/inspect/network/rescue/storage interfaces
    VERSION = '1.2'

    dbapi = db_api.get_instance()

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'driver': fields.StringField(),
        'resource_class': fields.StringField(nullable=True),
        'instance_uuid': fields.UUIDField(nullable=True),

        'provision_state': fields.StringField(),
        'target_provision_state': fields.StringField(nullable=True),
        'provision_updated_at': fields.DateTimeField(nullable=True),
        'power_state': fields.StringField(nullable=True),
        'target_power_state': fields.StringField(nullable=True),
        'maintenance': fields.BooleanField(),
        'maintenance_reason': fields.StringField(nullable=True),
        'last_error': fields.StringField(nullable=True),
        'reservation': fields.StringField(nullable=True),
        # Why the service itself put the node in maintenance (states.FAULTS).
        'fault': fields.StringField(nullable=True),
        'console_enabled': fields.BooleanField(nullable=True),
        'inspection_started_at': fields.DateTimeField(nullable=True),
        'inspection_finished_at': fields.DateTimeField(nullable=True),

        # The stored value is never None; these fields are nullable so that
        # a node received from a peer that predates them can be read.
        'conductor_group': fields.StringField(nullable=True),
        'protected': fields.BooleanField(nullable=True),
        'retired': fields.BooleanField(nullable=True),
        # None: [conductor] automated_clean decides.
        'automated_clean': fields.BooleanField(nullable=True),
        'protected_reason': fields.StringField(nullable=True),
        'retired_reason': fields.StringField(nullable=True),
        'owner': fields.StringField(nullable=True),
        'lessee': fields.StringField(nullable=True),
        'description': fields.StringField(nullable=True),

        # The clean step running now (or that failed); {} when none.
        'clean_step': fields.FlexibleDictField(nullable=True),
        # The deploy step running now (or that failed); {} when none.
        'deploy_step': fields.FlexibleDictField(nullable=True),
        'driver_info': fields.FlexibleDictField(nullable=True),
        # Bookkeeping of the conductor and drivers: deploy_steps,
        # deploy_step_index, clean_steps, clean_step_index, ...
        'driver_internal_info': fields.FlexibleDictField(nullable=True),
        'instance_info': fields.FlexibleDictField(nullable=True),
        'properties': fields.FlexibleDictField(nullable=True),
        'extra': fields.FlexibleDictField(nullable=True),
        # RAID layouts (see drivers/raid.py): the one built, the one wanted.
        'raid_config': fields.FlexibleDictField(nullable=True),
        'target_raid_config': fields.FlexibleDictField(nullable=True),
        'network_data': fields.FlexibleDictField(nullable=True),

        'bios_interface': fields.StringField(nullable=True),
        'boot_interface': fields.StringField(nullable=True),
        'console_interface': fields.StringField(nullable=True),
        'deploy_interface': fields.StringField(nullable=True),
        'inspect_interface': fields.StringField(nullable=True),
        'management_interface': fields.StringField(nullable=True),
        'network_interface': fields.StringField(nullable=True),
        'power_interface': fields.StringField(nullable=True),
        'raid_interface': fields.StringField(nullable=True),
        'rescue_interface': fields.StringField(nullable=True),
        'storage_interface': fields.StringField(nullable=True),
        'vendor_interface': fields.StringField(nullable=True),

        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
    }

    FIELD_SINCE = {
        'deploy_step': '1.1',
        **dict.fromkeys((
            'fault', 'console_enabled', 'inspection_started_at',
            'inspection_finished_at', 'conductor_group', 'protected',
            'retired', 'automated_clean', 'protected_reason',
            'retired_reason', 'owner', 'lessee', 'description',
            'raid_config', 'target_raid_config', 'network_data',
            'console_interface', 'inspect_interface', 'network_interface',
            'rescue_interface', 'storage_interface'), '1.2'),
    }

    #: Columns whose stored value differs from the field's (naive times).
    _COERCED_FROM_DB = frozenset(['created_at', 'updated_at',
                                  'provision_updated_at',
                                  'inspection_started_at',
                                  'inspection_finished_at'])

    # --- loading --------------------------------------------------------

    @classmethod
    def _from_db_object(cls, context, db_node, obj=None):
        node = obj if obj is not None else cls(context)
        for field in cls.fields:
            if field in cls._COERCED_FROM_DB:
                setattr(node, field, getattr(db_node, field))
            else:
                # Values read back from our own columns already have the
                # field's type: skipping the coercing setter makes listing
                # hundreds of nodes several times cheaper.
                object.__setattr__(node, _ATTR_NAMES[field],
                                   getattr(db_node, field))
        node._context = context
        node.obj_reset_changes()
        return node

    @classmethod
    def get(cls, context, ident):
        """Find a node by UUID, name or database id."""
        return cls._from_db_object(context, cls.get_row(context, ident))

    @classmethod
    def get_row(cls, context, ident):
        """Like :meth:`get`, but the stored node as a read-only row.

        Its attributes are the fields, as stored (times naive UTC).  For
        showing a node, where building a Node would cost more than
        reading it.
        """
        if strutils.is_int_like(ident):
            return cls.dbapi.get_node_by_id(int(ident))
        if uuidutils.is_uuid_like(ident):
            return cls.dbapi.get_node_by_uuid(ident)
        return cls.dbapi.get_node_by_name(ident)

    @classmethod
    def get_by_uuid(cls, context, uuid):
        return cls._from_db_object(context, cls.dbapi.get_node_by_uuid(uuid))

    @classmethod
    def list(cls, context, filters=None, limit=None, marker=None,
             sort_key='id', sort_dir='asc'):
        return [cls._from_db_object(context, db_node)
                for db_node in cls.dbapi.get_node_list(
                    filters, limit=limit, marker=marker,
                    sort_key=sort_key, sort_dir=sort_dir)]

    @classmethod
    def list_fields(cls, context, fields, filters=None, limit=None,
                    marker=None, sort_key='id', sort_dir='asc'):
        """Like :meth:`list`, but read-only rows of ``fields`` only.

        Each row has the named fields (and ``id``) as attributes, as
        stored: times are naive UTC.  For showing lists, where building
        whole Node objects would cost more than reading them.
        """
        return cls.dbapi.get_node_list(
            filters, limit=limit, marker=marker, sort_key=sort_key,
            sort_dir=sort_dir, columns=fields)

    # --- locking --------------------------------------------------------

    @classmethod
    def reserve(cls, context, tag, node_id):
        """Lock the node for ``tag`` and return it, fresh from the DB.

        :raises NodeLocked: if another holder has it.
        """
        return cls._from_db_object(context, cls.dbapi.reserve_node(tag,
                                                                   node_id))

    @classmethod
    def release(cls, context, tag, node_id):
        return cls.dbapi.release_node(tag, node_id)

    # --- writing --------------------------------------------------------

    def create(self, context=None):
        values = self.obj_get_changes()
        values.setdefault('maintenance', False)
        # As in save(): the pinned release's services could not read them.
        for field in self.fields_unknown_at(self.get_target_version()):
            values.pop(field, None)
        db_node = self.dbapi.create_node(values)
        self._from_db_object(context or self._context, db_node, self)

    def save(self, context=None, release=None):
        """Write the changed fields in one statement (one transaction).

        Fields the pinned release does not know are not written.

        :param release: the tag of the lock the caller holds, to drop it
            in the same statement (a task's last save).
        :returns: whether ``release``'s lock was dropped.
        """
        changes = self.obj_get_changes()
        # Pinned to a release that lacks a field: its value is not saved,
        # so older services never find data they cannot represent.
        for field in self.fields_unknown_at(self.get_target_version()):
            changes.pop(field, None)
        if 'reservation' in changes:
            raise exception.Invalid(
                'The reservation of node %s changes only through '
                'reserve() and release()' % self.uuid)
        released = False
        if changes:
            self.updated_at, released = self.dbapi.update_node(
                self.id, changes, release=release)
        elif release is not None:
            released = self.release(context, release, self.id)
        if released:
            self.reservation = None
        self.obj_reset_changes()
        return released

    def destroy(self, context=None):
        self.dbapi.destroy_node(self.id)
        self.obj_reset_changes()

    def refresh(self, context=None):
        self.obj_refresh(self.get_by_uuid(context or self._context,
                                          self.uuid))


_ATTR_NAMES = {field: ovo_base._get_attrname(field) for field in Node.fields}
