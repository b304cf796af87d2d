"""Field types of the versioned objects (oslo.versionedobjects' own)."""

from oslo_versionedobjects import fields

BooleanField = fields.BooleanField
DateTimeField = fields.DateTimeField
IntegerField = fields.IntegerField
ListOfStringsField = fields.ListOfStringsField
StringField = fields.StringField
UUIDField = fields.UUIDField


class FlexibleDictField(fields.AutoTypedField):
    """A JSON dict that may be None; a string is parsed as JSON.

    ``deploy_step`` and ``driver_internal_info`` are free-form dicts in the
    public contract, so the object layer does not narrow them further.
    """

    AUTO_TYPE = fields.Dict(fields.FieldType(), nullable=True)


class ListOfFlexibleDictsField(fields.AutoTypedField):
    """A list of JSON dicts, e.g. the steps of a deploy template."""

    AUTO_TYPE = fields.List(fields.Dict(fields.FieldType()))
