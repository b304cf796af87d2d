"""The Node object: a bare-metal server and where it is in its life.

A node's fields are the columns of its row, plus ``traits`` (from 1.2),
kept in a table of their own: they are read when first used (one query),
never with the row, so that locking and saving a node cost what they did;
they change only through :meth:`Node.set_traits`, :meth:`Node.add_traits`
and :meth:`Node.remove_traits`, each one transaction, never through
:meth:`Node.save`.
"""

from oslo_log import log
from oslo_utils import strutils
from oslo_utils import uuidutils
from oslo_versionedobjects import base as ovo_base

from ironic_steps.common import exception
from ironic_steps.db import api as db_api
from ironic_steps.objects import base
from ironic_steps.objects import fields

LOG = log.getLogger(__name__)

#: Where a node object keeps the step history entries its next save
#: inserts (not a field: never sent, never compared).
_ENDED_STEPS = '_ended_steps'


@base.IronicStepsObjectRegistry.register
class Node(base.IronicStepsObject, ovo_base.VersionedObjectDictCompat):
    # Version 1.0: Initial version (before deploy steps)
    # Version 1.1: Add deploy_step
    # Version 1.2: Add traits, and the fields of API 1.1-1.66:
    #              raid_config, target_raid_config, console_enabled, fault,
    #              inspection_started_at/finished_at, conductor_group,
    #              automated_clean, protected(_reason), owner, lessee,
    #              description, retired(_reason), network_data and the
    #              console/inspect/network/rescue/storage interfaces
    # Version 1.3: Add chassis_uuid
    # Version 1.4: Add boot_mode and secure_boot
    # Version 1.5: Add shard and parent_node
    # Version 1.6: Add service_step and firmware_interface
    # Version 1.7: Add disable_power_off, instance_name and health
    VERSION = '1.7'

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
        # The service step running, or the one that failed (API 1.87).
        'service_step': fields.FlexibleDictField(nullable=True),
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
        # As the BMC last reported them ('uefi' or 'bios'; on or off);
        # None until a conductor has read them.
        'boot_mode': fields.StringField(nullable=True),
        'secure_boot': fields.BooleanField(nullable=True),

        'bios_interface': fields.StringField(nullable=True),
        'boot_interface': fields.StringField(nullable=True),
        'console_interface': fields.StringField(nullable=True),
        'deploy_interface': fields.StringField(nullable=True),
        'firmware_interface': fields.StringField(nullable=True),
        'inspect_interface': fields.StringField(nullable=True),
        'management_interface': fields.StringField(nullable=True),
        'network_interface': fields.StringField(nullable=True),
        'power_interface': fields.StringField(nullable=True),
        'raid_interface': fields.StringField(nullable=True),
        'rescue_interface': fields.StringField(nullable=True),
        'storage_interface': fields.StringField(nullable=True),
        'vendor_interface': fields.StringField(nullable=True),
        # The chassis the node is in, if any.
        'chassis_uuid': fields.UUIDField(nullable=True),
        # The shard it belongs to, if any (API 1.82).
        'shard': fields.StringField(nullable=True),
        # The UUID of the node it is part of, if any (API 1.83).
        'parent_node': fields.UUIDField(nullable=True),
        # Never power it off (API 1.95): see drivers/power_cycles.py.  The
        # stored value is never None (a peer before 1.7 sends none).
        'disable_power_off': fields.BooleanField(nullable=True),
        # The name of the instance deployed on it (API 1.104).
        'instance_name': fields.StringField(nullable=True),
        # As its BMC last reported it (API 1.109): conductor/node_health.py.
        'health': fields.StringField(nullable=True),

        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),

        # Its traits, sorted; not a column (see the module's docstring).
        'traits': fields.ListOfStringsField(nullable=True),
    }

    FIELD_SINCE = {
        'deploy_step': '1.1',
        **dict.fromkeys((
            'traits',
            'fault', 'console_enabled', 'inspection_started_at',
            'inspection_finished_at', 'conductor_group', 'protected',
            'retired', 'automated_clean', 'protected_reason',
            'retired_reason', 'owner', 'lessee', 'description',
            'raid_config', 'target_raid_config', 'network_data',
            'console_interface', 'inspect_interface', 'network_interface',
            'rescue_interface', 'storage_interface'), '1.2'),
        'chassis_uuid': '1.3',
        'boot_mode': '1.4',
        'secure_boot': '1.4',
        'shard': '1.5',
        'parent_node': '1.5',
        'service_step': '1.6',
        'firmware_interface': '1.6',
        'disable_power_off': '1.7',
        'instance_name': '1.7',
        'health': '1.7',
    }
    LOADED_ON_USE = frozenset(['traits'])

    #: The fields that are columns of the node's row.
    COLUMN_FIELDS = tuple(field for field in fields if field != 'traits')

    #: Columns whose stored value differs from the field's (naive times).
    _COERCED_FROM_DB = frozenset(['created_at', 'updated_at',
                                  'provision_updated_at',
                                  'inspection_started_at',
                                  'inspection_finished_at'])

    # --- loading --------------------------------------------------------

    @classmethod
    def _from_db_object(cls, context, db_node, obj=None):
        node = obj if obj is not None else cls(context)
        if obj is not None:
            node._forget_traits()
        for field in cls.COLUMN_FIELDS:
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
    def get_row(cls, context, ident, with_traits=False):
        """Like :meth:`get`, but the stored node as a read-only row.

        Its attributes are the column fields, as stored (times naive UTC),
        and ``traits`` if ``with_traits`` (in the same query).  For
        showing a node, where building a Node would cost more than
        reading it.
        """
        if strutils.is_int_like(ident):
            return cls.dbapi.get_node_by_id(int(ident), with_traits)
        if uuidutils.is_uuid_like(ident):
            return cls.dbapi.get_node_by_uuid(ident, with_traits)
        return cls.dbapi.get_node_by_name(ident, with_traits)

    @classmethod
    def get_row_by_uuid(cls, context, uuid, with_traits=False):
        """:meth:`get_row` of a canonical UUID, which the caller checked
        (the API, for each node GET: telling an id, a UUID and a name
        apart cost it a twentieth of the request)."""
        return cls.dbapi.get_node_by_uuid(uuid, with_traits)

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
        stored: times are naive UTC.  ``traits`` among them costs no query
        of its own.  For showing lists, where building whole Node objects
        would cost more than reading them.
        """
        return cls.dbapi.get_node_list(
            filters, limit=limit, marker=marker, sort_key=sort_key,
            sort_dir=sort_dir, columns=fields)

    @classmethod
    def shard_counts(cls, context):
        """{shard (None: no shard): how many nodes it has}, one query."""
        return cls.dbapi.count_nodes_by_shard()

    def obj_load_attr(self, attrname):
        """Read ``traits`` on first use (ovo calls this for unset fields)."""
        if attrname != 'traits':
            return super().obj_load_attr(attrname)
        self.traits = (self.dbapi.get_node_traits(self.id)
                       if self.obj_attr_is_set('id') else [])
        self.obj_reset_changes(['traits'])

    def _forget_traits(self):
        """Read ``traits`` afresh when next used."""
        attribute = _ATTR_NAMES['traits']
        if hasattr(self, attribute):
            delattr(self, attribute)
            self.obj_reset_changes(['traits'])

    # --- locking --------------------------------------------------------

    @classmethod
    def reserve(cls, context, tag, node_id, replacing=None):
        """Lock the node for ``tag`` and return it, fresh from the DB.

        :param replacing: a holder known to have lost its lock: its
            reservation is overwritten.
        :raises NodeLocked: if another holder has it.
        """
        return cls._from_db_object(context, cls.dbapi.reserve_node(
            tag, node_id, replacing=replacing))

    @classmethod
    def release(cls, context, tag, node_id):
        return cls.dbapi.release_node(tag, node_id)

    # --- writing --------------------------------------------------------

    def _refuse_trait_changes(self, changes):
        if 'traits' in changes:
            raise exception.Invalid(
                'The traits of node %s change only through set_traits(), '
                'add_traits() and remove_traits()' % (
                    self.uuid if self.obj_attr_is_set('uuid') else '(new)'))

    def create(self, context=None):
        values = self.obj_get_changes()
        self._refuse_trait_changes(values)
        values.setdefault('maintenance', False)
        # As in save(): the pinned release's services could not read them.
        for field in self.fields_unknown_under_pin():
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
        for field in self.fields_unknown_under_pin():
            changes.pop(field, None)
        self._refuse_trait_changes(changes)
        if 'reservation' in changes:
            raise exception.Invalid(
                'The reservation of node %s changes only through '
                'reserve() and release()' % self.uuid)
        released = False
        ended_steps = self.__dict__.pop(_ENDED_STEPS, ())
        if changes or ended_steps:
            # Read under a lock (a task's node): write only while it holds.
            fence = (self.reservation if self.obj_attr_is_set('reservation')
                     else None)
            self.updated_at, released = self._update(
                changes, release, fence, ended_steps)
        elif release is not None:
            released = self.release(context, release, self.id)
        if released:
            self.reservation = None
        self.obj_reset_changes()
        return released

    def _update(self, changes, release, fence, ended_steps):
        try:
            return self.dbapi.update_node(self.id, changes, release=release,
                                          fence=fence, ended_steps=ended_steps)
        except exception.IronicStepsException:
            raise   # the node's own trouble (lock lost, gone, name taken)
        except Exception as exc:
            if not ended_steps:
                raise
            # The history must not fail a flow: the node's change goes on
            # without it.  (Any error: MySQL's refusals of a row come as
            # OperationalError, which oslo.db passes through untranslated.)
            LOG.warning('Could not record %d ended step(s) of node %s in '
                        'its history: %s', len(ended_steps), self.uuid, exc)
            return self.dbapi.update_node(self.id, changes, release=release,
                                          fence=fence)

    def record_with_next_save(self, row):
        """Have ``row`` (a :meth:`NodeStepHistory.new_row` of a step of
        this node that ended) inserted by this node's next :meth:`save`,
        in its transaction: the node and its history never disagree, and
        a step transition costs one write."""
        self.__dict__.setdefault(_ENDED_STEPS, []).append(row)

    def destroy(self, context=None):
        """Delete the node; its traits and BIOS settings go with it."""
        self.dbapi.destroy_node(self.id)
        self.obj_reset_changes()

    def refresh(self, context=None):
        self._forget_traits()
        self.obj_refresh(self.get_by_uuid(context or self._context,
                                          self.uuid))

    # --- traits ---------------------------------------------------------
    # Called under the node's lock (a task); each is one transaction that
    # writes all or nothing.  Afterwards ``traits`` holds what is stored.

    def _write_traits(self, write, *args):
        self.check_in_pinned_release('Node traits', field='traits')
        try:
            traits = write(self.id, *args)
        except exception.TooManyTraits as exc:
            raise exception.TooManyTraits(
                node=self.uuid, count=exc.kwargs['count'],
                max=exc.kwargs['max']) from None
        except exception.NodeTraitNotFound as exc:
            raise exception.NodeTraitNotFound(
                node=self.uuid, trait=exc.kwargs['trait']) from None
        self.traits = traits
        self.obj_reset_changes(['traits'])

    def set_traits(self, traits):
        """Replace the node's traits with ``traits`` (duplicates dropped).

        :raises TooManyTraits: beyond ``common.traits.MAX_PER_NODE``.
        """
        self._write_traits(self.dbapi.set_node_traits, traits)

    def add_traits(self, traits):
        """Add the ``traits`` the node does not have yet.

        :raises TooManyTraits: beyond ``common.traits.MAX_PER_NODE``.
        """
        self._write_traits(self.dbapi.add_node_traits, traits)

    def remove_traits(self, traits=None):
        """Remove ``traits``, or every trait if None.

        :raises NodeTraitNotFound: for one the node does not have.
        """
        self._write_traits(self.dbapi.remove_node_traits, traits)


_ATTR_NAMES = {field: ovo_base._get_attrname(field) for field in Node.fields}
