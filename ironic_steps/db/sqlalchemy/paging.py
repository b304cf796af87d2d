"""Keyset pagination: the one way every collection is paged and sorted.

A page is the rows after a marker (the last item of the previous page) in
the order of a sort column, ties broken by the ``id`` primary key; rows
whose sort column is NULL come last in both directions, on every database,
and boolean columns page like any other.
Unlike OFFSET, a keyset is stable while rows come and go, and an index
serves it.  Any table with an ``id`` primary key pages this way.
"""

import operator

import sqlalchemy as sa

from ironic_steps.common import exception


def after_marker(columns, sort_key, marker, sort_dir):
    """The condition for rows after ``marker`` in :func:`order`'s order.

    :param columns: the table's (or a subquery's) columns.
    :param marker: a row or object with the sort key and ``id``.
    """
    beyond = operator.gt if sort_dir == 'asc' else operator.lt
    column, row_id = columns[sort_key], columns['id']
    value = getattr(marker, sort_key)
    # Spelled out for NULLs: any comparison with NULL is NULL.
    if value is None:
        return sa.and_(column.is_(None), beyond(row_id, marker.id))
    # A bound value of the column's type: SQLAlchemy refuses to order a
    # column against a bare True or False (sorting nodes on maintenance).
    value = sa.bindparam(None, value, type_=column.type)
    return sa.or_(column.is_(None), beyond(column, value),
                  sa.and_(column == value, beyond(row_id, marker.id)))


def order(columns, sort_key, sort_dir):
    """ORDER BY terms: the sort key, NULLs last, then the id."""
    direction = sa.desc if sort_dir == 'desc' else sa.asc
    column = columns[sort_key]
    return column.is_(None), direction(column), direction(columns['id'])


def check_sort(sort_keys, what, sort_key, sort_dir):
    """:raises InvalidParameterValue: for a sort the collection lacks."""
    if sort_key not in sort_keys:
        raise exception.InvalidParameterValue(
            err='Cannot sort on %s; sortable fields of %s: %s' % (
                sort_key, what, ', '.join(sorted(sort_keys))))
    if sort_dir not in ('asc', 'desc'):
        raise exception.InvalidParameterValue(
            err="sort_dir must be 'asc' or 'desc', got %r" % (sort_dir,))


def page(query, table, sort_keys, what, limit=None, marker=None,
         sort_key='id', sort_dir='asc'):
    """``query`` on ``table`` narrowed to one page, in keyset order.

    :param sort_keys: the columns the collection may be sorted on.
    :param what: the collection's name, for error messages.
    :param marker: the item the previous page ended with, or None.
    """
    check_sort(sort_keys, what, sort_key, sort_dir)
    if marker is not None:
        query = query.where(after_marker(table.c, sort_key, marker,
                                         sort_dir))
    query = query.order_by(*order(table.c, sort_key, sort_dir))
    return query.limit(limit) if limit else query
