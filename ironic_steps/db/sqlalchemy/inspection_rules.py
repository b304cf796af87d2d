"""Queries on inspection rules.

The ``inspection_rules`` table holds a rule's fields, its conditions and
its actions each one JSON list: a rule is read and written whole.
"""

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils

from ironic_steps.common import exception
from ironic_steps.db.sqlalchemy import models
from ironic_steps.db.sqlalchemy import paging

_RULES = models.InspectionRule.__table__

#: As Ironic: any column but the JSON lists.
_SORT_KEYS = frozenset(['id', 'uuid', 'description', 'priority', 'sensitive',
                        'phase', 'created_at', 'updated_at'])


class InspectionRuleQueries:
    """Queries on inspection rules (``inspection_rules``).

    A rule comes back as a dict of its columns.  Rules are not locked:
    each write is one transaction.  A mixin of the database API's
    ``Connection``, which provides ``read_one()``, ``write_one()`` and
    ``writer()``.
    """

    @staticmethod
    def _get_inspection_rule(connection, key, ident):
        row = connection.execute(
            sa.select(_RULES).where(_RULES.c[key] == ident)).first()
        if row is None:
            raise exception.InspectionRuleNotFound(rule=ident)
        return dict(row._mapping)

    def get_inspection_rule_by_uuid(self, uuid):
        with self.read_one() as connection:
            return self._get_inspection_rule(connection, 'uuid', uuid)

    def get_inspection_rule_list(self, limit=None, marker=None,
                                 sort_key='id', sort_dir='asc', phase=None):
        """A page of rules (of ``phase`` only, if given)."""
        query = sa.select(_RULES)
        if phase is not None:
            query = query.where(_RULES.c.phase == phase)
        query = paging.page(query, _RULES, _SORT_KEYS, 'inspection rules',
                            limit=limit, marker=marker, sort_key=sort_key,
                            sort_dir=sort_dir)
        with self.read_one() as connection:
            return [dict(row._mapping) for row in connection.execute(query)]

    def create_inspection_rule(self, values):
        """Store a rule (``uuid`` made if absent).

        :raises InspectionRuleAlreadyExists:
        """
        values = dict(values)
        values.setdefault('uuid', uuidutils.generate_uuid())
        try:
            with self.writer() as connection:
                rule_id = connection.execute(
                    sa.insert(_RULES).values(**values)
                ).inserted_primary_key[0]
                return self._get_inspection_rule(connection, 'id', rule_id)
        except db_exc.DBDuplicateEntry as exc:
            raise exception.InspectionRuleAlreadyExists(
                uuid=values['uuid']) from exc

    def update_inspection_rule(self, rule_id, values):
        """Change a rule's fields; return it.

        :raises InspectionRuleNotFound:
        """
        values = dict(values, updated_at=timeutils.utcnow())
        with self.writer() as connection:
            result = connection.execute(
                sa.update(_RULES).where(_RULES.c.id == rule_id)
                .values(**values))
            if result.rowcount != 1:
                raise exception.InspectionRuleNotFound(rule=rule_id)
            return self._get_inspection_rule(connection, 'id', rule_id)

    def destroy_inspection_rule(self, rule_id):
        with self.write_one() as connection:
            result = connection.execute(sa.delete(_RULES).where(
                _RULES.c.id == rule_id))
        if result.rowcount != 1:
            raise exception.InspectionRuleNotFound(rule=rule_id)
