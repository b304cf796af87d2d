"""The Conductor object: a conductor process and whether it is alive.

This is the one home of conductor liveness.  A conductor is *alive* when
it is registered online and its last heartbeat (``updated_at``) is more
recent than ``[conductor] heartbeat_timeout`` seconds ago; :func:`cutoff`
is that instant, and every reader of liveness (the hash ring, the
take-over of dead conductors' nodes, ``/v1/drivers`` hosts,
``/v1/conductors``) asks this module rather than computing it.
"""

import datetime

from oslo_utils import timeutils
from oslo_versionedobjects import base as ovo_base

from ironic_steps.conf import CONF
from ironic_steps.db import api as db_api
from ironic_steps.objects import base
from ironic_steps.objects import fields


def cutoff(now=None):
    """The heartbeat time before which a conductor counts as dead."""
    return (now or timeutils.utcnow()) - datetime.timedelta(
        seconds=CONF.conductor.heartbeat_timeout)


@base.IronicStepsObjectRegistry.register
class Conductor(base.IronicStepsObject, ovo_base.VersionedObjectDictCompat):
    # Version 1.0: Initial version
    VERSION = '1.0'

    dbapi = db_api.get_instance()

    fields = {
        'id': fields.IntegerField(),
        'hostname': fields.StringField(),
        # Registered and not stopped; see ``alive`` for liveness.
        'online': fields.BooleanField(),
        'created_at': fields.DateTimeField(nullable=True),
        # The last heartbeat.
        'updated_at': fields.DateTimeField(nullable=True),
    }

    @property
    def alive(self):
        """Online with a heartbeat after :func:`cutoff`."""
        return bool(self.online and self.updated_at is not None
                    and timeutils.normalize_time(self.updated_at) > cutoff())

    @classmethod
    def _from_row(cls, context, row):
        conductor = cls(context)
        for field in cls.fields:
            setattr(conductor, field, getattr(row, field))
        conductor.obj_reset_changes()
        return conductor

    @classmethod
    def get_by_hostname(cls, context, hostname):
        """:raises ConductorNotFound:"""
        return cls._from_row(context, cls.dbapi.get_conductor(hostname))

    @classmethod
    def list(cls, context, limit=None, marker=None, sort_key='id',
             sort_dir='asc'):
        """Every registered conductor, alive or dead, one page of them."""
        return [cls._from_row(context, row)
                for row in cls.dbapi.get_conductor_list(
                    limit=limit, marker=marker, sort_key=sort_key,
                    sort_dir=sort_dir)]

    # --- liveness, without building objects ------------------------------

    @classmethod
    def alive_hostnames(cls):
        """Hostnames of the live conductors, sorted."""
        return cls.dbapi.get_online_conductors(cutoff())

    @classmethod
    def dead_hostnames_holding_locks(cls):
        """Hostnames of dead conductors that still hold node locks."""
        return cls.dbapi.get_dead_conductors(cutoff())

    # --- a conductor's own registration ----------------------------------

    @classmethod
    def register(cls, hostname):
        cls.dbapi.register_conductor(hostname)

    @classmethod
    def touch(cls, hostname):
        """Heartbeat: ``hostname`` is alive now."""
        cls.dbapi.touch_conductor(hostname)

    @classmethod
    def unregister(cls, hostname):
        cls.dbapi.unregister_conductor(hostname)
