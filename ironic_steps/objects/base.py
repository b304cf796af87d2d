"""Base classes of the versioned objects: registry, object, serializer."""

from oslo_versionedobjects import base as ovo_base


class IronicStepsObjectRegistry(ovo_base.VersionedObjectRegistry):
    pass


class IronicStepsObject(ovo_base.VersionedObject):
    """Base of every ironic-steps object.

    Objects have the ``ironic_steps`` namespace so they never mix with
    another project's objects on a shared message bus.
    """

    OBJ_PROJECT_NAMESPACE = 'ironic_steps'
    OBJ_SERIAL_NAMESPACE = 'ironic_steps_object'

    def obj_refresh(self, loaded):
        """Copy every field of ``loaded`` (same class) into this object."""
        for field in self.fields:
            if loaded.obj_attr_is_set(field):
                setattr(self, field, getattr(loaded, field))
        self.obj_reset_changes()


class IronicStepsObjectSerializer(ovo_base.VersionedObjectSerializer):
    OBJ_BASE_CLASS = IronicStepsObject
