"""The Conductor object: a conductor process and what it serves.

A conductor's record: its hostname, whether it is registered online, its
last heartbeat and the hardware types it registered.  Whether a conductor
is *alive*, which conductors serve a driver and which one handles a node
are the conductor registry's answers
(:mod:`ironic_steps.conductor.registry`), the only caller of the queries
here that take an instant: this module never decides when a heartbeat is
too old.

*Served hardware* is the registration's shape: see
:mod:`ironic_steps.db.sqlalchemy.conductors`.
"""

from oslo_versionedobjects import base as ovo_base

from ironic_steps.db import api as db_api
from ironic_steps.objects import base
from ironic_steps.objects import fields


@base.IronicStepsObjectRegistry.register
class Conductor(base.IronicStepsObject, ovo_base.VersionedObjectDictCompat):
    # Version 1.0: Initial version
    # Version 1.1: hardware_types (what the conductor registered it serves)
    VERSION = '1.1'

    FIELD_SINCE = {'hardware_types': '1.1'}

    dbapi = db_api.get_instance()

    fields = {
        'id': fields.IntegerField(),
        'hostname': fields.StringField(),
        # Registered and not stopped; liveness is the registry's.
        'online': fields.BooleanField(),
        'created_at': fields.DateTimeField(nullable=True),
        # The last heartbeat.
        'updated_at': fields.DateTimeField(nullable=True),
        # Sorted; None when the conductor registered none: it runs, or is
        # pinned to, a release before hardware types were registered.
        'hardware_types': fields.ListOfStringsField(nullable=True),
    }

    @classmethod
    def _from_row(cls, context, row, hardware_types):
        conductor = cls(context)
        for field in cls.fields:
            if field != 'hardware_types':
                setattr(conductor, field, getattr(row, field))
        conductor.hardware_types = hardware_types or None
        conductor.obj_reset_changes()
        return conductor

    @classmethod
    def _from_rows(cls, context, rows):
        served = cls.dbapi.get_conductor_hardware_types(
            [row.id for row in rows]) if rows else {}
        return [cls._from_row(context, row, served.get(row.id))
                for row in rows]

    @classmethod
    def get_by_hostname(cls, context, hostname):
        """:raises ConductorNotFound:"""
        return cls._from_rows(context,
                              [cls.dbapi.get_conductor(hostname)])[0]

    @classmethod
    def list(cls, context, limit=None, marker=None, sort_key='id',
             sort_dir='asc'):
        """Every registered conductor, alive or dead, one page of them, in
        two queries."""
        return cls._from_rows(context, cls.dbapi.get_conductor_list(
            limit=limit, marker=marker, sort_key=sort_key,
            sort_dir=sort_dir))

    # --- by heartbeat, without building objects --------------------------

    @classmethod
    def hardware_types_seen_after(cls, instant):
        """{hostname: its sorted hardware types, or None if it registered
        none} of the conductors online with a heartbeat after
        ``instant``."""
        return {hostname: types or None for hostname, types in
                cls.dbapi.get_online_conductor_hardware_types(
                    instant).items()}

    @classmethod
    def hostnames_silent_since(cls, instant):
        """Hostnames of the conductors stopped or without a heartbeat
        since ``instant`` that still hold node locks."""
        return cls.dbapi.get_dead_conductors(instant)

    @classmethod
    def hardware_interfaces(cls, hardware_type, hostnames):
        """{interface_type: (name, ...), default first} that ``hostnames``
        registered for ``hardware_type`` ({} if none did)."""
        return cls.dbapi.get_hardware_type_interfaces(hardware_type,
                                                      hostnames)

    # --- a conductor's own registration ----------------------------------

    @classmethod
    def register(cls, hostname, hardware):
        """Say ``hostname`` is online and serves ``hardware`` (served
        hardware), replacing what it registered before.

        Pinned to a release without ``hardware_types``, the hardware is
        not recorded (and what was recorded is left): that release's
        services do not read it, and readers of this one then fall back
        to their configuration.
        """
        if 'hardware_types' in cls.fields_unknown_under_pin():
            hardware = None
        cls.dbapi.register_conductor(hostname, hardware)

    @classmethod
    def touch(cls, hostname):
        """Heartbeat: ``hostname`` is alive now."""
        cls.dbapi.touch_conductor(hostname)

    @classmethod
    def unregister(cls, hostname):
        cls.dbapi.unregister_conductor(hostname)
