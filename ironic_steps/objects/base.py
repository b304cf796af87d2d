"""Base classes of the versioned objects: registry, object, serializer.

Objects carry their history: each class lists, in ``FIELD_SINCE``, the
version that introduced every field added after 1.0.  From that one table
the base class derives what a rolling upgrade needs:

* sending or saving at an older version (``[DEFAULT] pin_release_version``)
  drops the newer fields (:meth:`IronicStepsObject.obj_make_compatible`,
  :meth:`IronicStepsObject.fields_unknown_at`);
* an object received at an older version is upgraded in place to the
  current one, its newer fields None and unchanged, or unread if they are
  read on first use (:meth:`IronicStepsObjectSerializer.
  deserialize_entity`).
"""

import functools

from oslo_utils import versionutils
from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields as ovo_fields

from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps import release_mappings


class IronicStepsObjectRegistry(ovo_base.VersionedObjectRegistry):
    pass


class IronicStepsObject(ovo_base.VersionedObject):
    """Base of every ironic-steps object.

    Objects have the ``ironic_steps`` namespace so they never mix with
    another project's objects on a shared message bus.
    """

    OBJ_PROJECT_NAMESPACE = 'ironic_steps'
    OBJ_SERIAL_NAMESPACE = 'ironic_steps_object'

    #: field -> the version that added it (fields of 1.0 are not listed).
    FIELD_SINCE = {}
    #: Fields read from the database when first used (``obj_load_attr``).
    LOADED_ON_USE = frozenset()

    @classmethod
    def _from_db_object(cls, context, db_record, obj=None):
        """``obj`` (or a new object) with every field read from
        ``db_record`` (a dict of the database API's), nothing changed."""
        item = obj if obj is not None else cls(context)
        for field in cls.fields:
            setattr(item, field, db_record[field])
        item._context = context
        item.obj_reset_changes()
        return item

    @classmethod
    def fields_unknown_at(cls, version):
        """Fields a peer at ``version`` of this object does not know.

        A frozenset; every field if ``version`` is None (a peer without
        this object).
        """
        return _fields_unknown(cls, version)

    @classmethod
    def fields_unknown_under_pin(cls):
        """The fields the pinned release's version of this object lacks
        (a frozenset; every field if that release lacks the object)."""
        if not CONF.pin_release_version:
            return frozenset()   # asked by every API read: no mapping walk
        return _fields_unknown(cls, cls.get_target_version())

    def obj_what_changed(self):
        # ovo also asks every field holding an object whether that object
        # changed: two attribute reads per field on every save, for
        # nothing when no field can hold one (none of ours does).
        if _holds_objects(type(self)):
            return super().obj_what_changed()
        return {field for field in self._changed_fields
                if field in self.fields}

    @classmethod
    def get_target_version(cls):
        """The version to send and save: the pinned release's, or ours;
        None if the pinned release does not have this object."""
        return release_mappings.object_version(CONF, cls.obj_name(),
                                               cls.VERSION)

    @classmethod
    def check_in_pinned_release(cls, feature, field=None):
        """Refuse to write what the pinned release does not have.

        :param feature: what is refused, for the message.
        :param field: a field of this object; None for the object itself.
        :raises NotInPinnedRelease: when the pinned release lacks this
            object (or ``field``).
        """
        target = cls.get_target_version()
        if target is not None and (
                field is None or field not in cls.fields_unknown_at(target)):
            return
        raise exception.NotInPinnedRelease(
            feature=feature, pinned=CONF.pin_release_version,
            needed=release_mappings.first_release_with(
                cls.obj_name(), cls.FIELD_SINCE.get(field, '1.0')))

    def changes_to_save(self, feature, writable, what):
        """The changed fields, once checked that they may be written: the
        pinned release has this object (``feature`` names it in the
        refusal) and every changed field is in ``writable``.

        :raises NotInPinnedRelease:
        :raises Invalid: naming the fields that cannot change, and
            ``what`` the object is.
        """
        self.check_in_pinned_release(feature)
        changes = self.obj_get_changes()
        fixed = sorted(set(changes) - set(writable))
        if fixed:
            raise exception.Invalid(
                'Field(s) %s of %s %s cannot change' % (
                    ', '.join(fixed), what, self.uuid))
        return changes

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        for field in self.fields_unknown_at(target_version):
            primitive.pop(field, None)

    @classmethod
    def from_row(cls, context, row):
        """The object read from ``row``, a read-only database row with an
        attribute per field, with no changes to save."""
        obj = cls(context)
        for field in cls.fields:
            setattr(obj, field, getattr(row, field))
        obj.obj_reset_changes()
        return obj

    def obj_refresh(self, loaded):
        """Copy every field of ``loaded`` (same class) into this object."""
        for field in self.fields:
            if loaded.obj_attr_is_set(field):
                setattr(self, field, getattr(loaded, field))
        self.obj_reset_changes()


@functools.lru_cache(maxsize=None)
def _fields_unknown(cls, version):
    # Asked on every save: bounded by the number of object versions there
    # are.
    if version is None:
        return frozenset(cls.fields)
    target = versionutils.convert_version_to_tuple(version)
    return frozenset(
        field for field, since in cls.FIELD_SINCE.items()
        if target < versionutils.convert_version_to_tuple(since))


@functools.lru_cache(maxsize=None)
def _holds_objects(cls):
    return any(isinstance(field, (ovo_fields.ObjectField,
                                  ovo_fields.ListOfObjectsField))
               for field in cls.fields.values())


class IronicStepsObjectSerializer(ovo_base.VersionedObjectSerializer):
    """Sends objects at the pinned versions; upgrades older ones received."""

    OBJ_BASE_CLASS = IronicStepsObject

    def serialize_entity(self, context, entity):
        if isinstance(entity, IronicStepsObject):
            return entity.obj_to_primitive(
                target_version=entity.get_target_version())
        return super().serialize_entity(context, entity)

    def deserialize_entity(self, context, entity):
        entity = super().deserialize_entity(context, entity)
        if isinstance(entity, IronicStepsObject):
            current = type(entity).VERSION
            if entity.VERSION != current:
                # The fields the sender did not know read as None but are
                # not marked changed, so saving never overwrites them;
                # those read on first use stay unread, to be read then.
                missing = (entity.fields_unknown_at(entity.VERSION)
                           - entity.LOADED_ON_USE)
                for field in missing:
                    setattr(entity, field, None)
                entity.obj_reset_changes(missing)
                entity.VERSION = current
        return entity
