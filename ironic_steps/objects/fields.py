"""Field types of the versioned objects (oslo.versionedobjects' own)."""

from oslo_versionedobjects import fields

BooleanField = fields.BooleanField
DateTimeField = fields.DateTimeField
IntegerField = fields.IntegerField
ListOfStringsField = fields.ListOfStringsField
StringField = fields.StringField
UUIDField = fields.UUIDField


class Dict(fields.Dict):
    """oslo.versionedobjects' dict of anything, checked once when set.

    Its own ``Dict`` wraps the value in a ``CoercedDict`` that coerces each
    item, now and on every later change, through the element type; with
    elements of any type that only re-checks that keys are strings, and
    it cost a tenth of a deploy's CPU (every node load sets a dozen of
    these fields).  The check is made here once, on a plain copy.  The
    class keeps oslo's name: the wire format and the objects' fingerprints
    are unchanged.
    """

    def coerce(self, obj, attr, value):
        if not isinstance(value, dict):
            raise ValueError('A dict is required in field %s, not a %s'
                             % (attr, type(value).__name__))
        for key in value:
            if not isinstance(key, str):
                raise fields.KeyTypeError(str, key)
        return dict(value)


class FlexibleDictField(fields.AutoTypedField):
    """A JSON dict that may be None.

    ``deploy_step`` and ``driver_internal_info`` are free-form dicts in the
    public contract, so the object layer does not narrow them further.
    """

    AUTO_TYPE = Dict(fields.FieldType(), nullable=True)


class ListOfFlexibleDictsField(fields.AutoTypedField):
    """A list of JSON dicts, e.g. the steps of a deploy template."""

    AUTO_TYPE = fields.List(Dict(fields.FieldType()))
