"""Queries on the traits of nodes (the ``node_traits`` table).

Also the column that reads a node's traits together with its row
(:data:`TRAITS_COLUMN`), for the node queries.  What a valid trait is, is
``common.traits``'s business; this module only counts them.
"""

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import traits as traits_rules
from ironic_steps.db.sqlalchemy import models

_NODES = models.Node.__table__
_TRAITS = models.NodeTrait.__table__


class TraitNames(sa.types.TypeDecorator):
    """Traits aggregated into one string -> a sorted list (a node's, a
    runbook's)."""

    impl = sa.Text
    cache_ok = True

    def process_result_value(self, value, dialect):
        # Traits have no commas (see common/traits.py).
        return sorted(value.split(',')) if value else []


def traits_column(trait, owned):
    """A column ``traits``: the values of ``trait`` in the rows where
    ``owned`` holds, as a sorted list (a correlated subquery)."""
    # The separator as SQL text, not a string: SQLAlchemy would bind a
    # string as a literal to render into every execution's SQL (MySQL's
    # SEPARATOR takes no parameter), a twentieth of a node GET's CPU.
    aggregated = sa.func.aggregate_strings(trait, sa.literal_column("','"))
    return sa.type_coerce(
        sa.select(aggregated).where(owned).scalar_subquery(),
        TraitNames()).label('traits')


#: A node's traits as a column of a node SELECT: a correlated subquery
#: through node_traits' primary key, so that showing traits costs no
#: query of its own, whatever the number of nodes.
TRAITS_COLUMN = traits_column(_TRAITS.c.trait,
                              _TRAITS.c.node_id == _NODES.c.id)


class NodeTraitQueries:
    """Queries on the traits of nodes (``node_traits``).

    A mixin of the database API's ``Connection``, which provides
    ``read_one()`` and ``writer()``.  Writes are made under the node's lock
    (by the conductor); each is one transaction, so a refused change
    writes nothing.  A node's traits go
    with it when it is deleted (ON DELETE CASCADE).  Errors name the node
    by database id: the objects layer names it by UUID.
    """

    def get_node_traits(self, node_id):
        """The traits of one node, sorted."""
        with self.read_one() as connection:
            return list(connection.execute(
                sa.select(_TRAITS.c.trait)
                .where(_TRAITS.c.node_id == node_id)
                .order_by(_TRAITS.c.trait)).scalars())

    @staticmethod
    def _insert_traits(connection, node_id, traits):
        if not traits:
            return
        try:
            connection.execute(sa.insert(_TRAITS), [
                {'node_id': node_id, 'trait': trait,
                 'created_at': timeutils.utcnow()} for trait in traits])
        except db_exc.DBReferenceError as exc:
            raise exception.NodeNotFound(node=node_id) from exc

    @staticmethod
    def _check_count(node_id, count):
        if count > traits_rules.MAX_PER_NODE:
            raise exception.TooManyTraits(node=node_id, count=count,
                                          max=traits_rules.MAX_PER_NODE)

    def set_node_traits(self, node_id, traits):
        """Replace the node's traits with ``traits``; return them, sorted.

        :raises TooManyTraits: (nothing written)
        """
        traits = sorted(set(traits))
        self._check_count(node_id, len(traits))
        with self.writer() as connection:
            connection.execute(sa.delete(_TRAITS).where(
                _TRAITS.c.node_id == node_id))
            self._insert_traits(connection, node_id, traits)
        return traits

    def add_node_traits(self, node_id, traits):
        """Add ``traits`` the node lacks; return all its traits, sorted.

        :raises TooManyTraits: (nothing written)
        """
        with self.writer() as connection:
            have = set(connection.execute(
                sa.select(_TRAITS.c.trait)
                .where(_TRAITS.c.node_id == node_id)).scalars())
            new = sorted(set(traits) - have)
            self._check_count(node_id, len(have) + len(new))
            self._insert_traits(connection, node_id, new)
        return sorted(have.union(new))

    def remove_node_traits(self, node_id, traits=None):
        """Remove ``traits`` (None: all) from the node; return what is left.

        :raises NodeTraitNotFound: for a trait the node does not have
            (nothing removed).
        """
        with self.writer() as connection:
            query = sa.delete(_TRAITS).where(_TRAITS.c.node_id == node_id)
            if traits is not None:
                have = set(connection.execute(
                    sa.select(_TRAITS.c.trait)
                    .where(_TRAITS.c.node_id == node_id)).scalars())
                for trait in traits:
                    if trait not in have:
                        raise exception.NodeTraitNotFound(node=node_id,
                                                          trait=trait)
                query = query.where(_TRAITS.c.trait.in_(set(traits)))
            connection.execute(query)
            return list(connection.execute(
                sa.select(_TRAITS.c.trait)
                .where(_TRAITS.c.node_id == node_id)
                .order_by(_TRAITS.c.trait)).scalars())
