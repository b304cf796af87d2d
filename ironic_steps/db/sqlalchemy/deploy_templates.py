"""Queries on deploy templates and their steps.

The ``deploy_templates`` table holds a template's name, UUID and extra;
``deploy_template_steps`` its steps, one row each, in the order written,
deleted with their template (ON DELETE CASCADE).
"""

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils

from ironic_steps.common import exception
from ironic_steps.db.sqlalchemy import models
from ironic_steps.db.sqlalchemy import paging

_TEMPLATES = models.DeployTemplate.__table__
_STEPS = models.DeployTemplateStep.__table__

_TEMPLATE_SORT_KEYS = frozenset(['id', 'uuid', 'name', 'created_at',
                                 'updated_at'])
#: The public keys of a template step, in the order they are shown.
_STEP_KEYS = ('interface', 'step', 'args', 'priority')
#: Keys a step has only when set (NULL: absent, as in Ironic's templates).
_OPTIONAL_STEP_KEYS = ('timeout',)


def _with_steps(templates):
    """A SELECT of ``templates`` (the table or a page of it) joined with
    their steps: one row per step (or one for a template without)."""
    return sa.select(
        templates, _STEPS.c.id.label('step_id'),
        *(_STEPS.c[key] for key in _STEP_KEYS + _OPTIONAL_STEP_KEYS)
    ).outerjoin(_STEPS, _STEPS.c.deploy_template_id == templates.c.id)


def _grouped(rows):
    """Templates as dicts of their columns plus ``steps`` (in order), from
    the rows of a :func:`_with_steps` query, in the order they come."""
    templates = {}
    for row in rows:
        template = templates.get(row.id)
        if template is None:
            template = templates[row.id] = {
                column.name: getattr(row, column.name)
                for column in _TEMPLATES.c}
            template['steps'] = []
        if row.step_id is not None:
            step = {key: getattr(row, key) for key in _STEP_KEYS}
            step.update((key, getattr(row, key))
                        for key in _OPTIONAL_STEP_KEYS
                        if getattr(row, key) is not None)
            template['steps'].append(step)
    return list(templates.values())


class DeployTemplateQueries:
    """Queries on deploy templates and their steps.

    A template comes back as a dict: its columns (``id``, ``uuid``,
    ``name``, ``extra``, ``created_at``, ``updated_at``) and ``steps``, a
    list of ``{interface, step, args, priority}`` (and ``timeout`` when
    set) in the order they were written; every read is one query, steps
    included.  Templates are not locked: each write is one transaction.
    A mixin of the database API's ``Connection``, which provides
    ``read_one()``, ``write_one()`` and ``writer()``.
    """

    def _get_template(self, connection, key, ident):
        found = _grouped(connection.execute(
            _with_steps(_TEMPLATES).where(_TEMPLATES.c[key] == ident)
            .order_by(_STEPS.c.id)))
        if not found:
            raise exception.DeployTemplateNotFound(template=ident)
        return found[0]

    def get_deploy_template_by_id(self, template_id):
        with self.read_one() as connection:
            return self._get_template(connection, 'id', template_id)

    def get_deploy_template_by_uuid(self, uuid):
        with self.read_one() as connection:
            return self._get_template(connection, 'uuid', uuid)

    def get_deploy_template_by_name(self, name):
        with self.read_one() as connection:
            return self._get_template(connection, 'name', name)

    def get_deploy_template_list(self, limit=None, marker=None,
                                 sort_key='id', sort_dir='asc'):
        """A page of templates, in one query (see :mod:`paging`)."""
        page = paging.page(
            sa.select(_TEMPLATES), _TEMPLATES, _TEMPLATE_SORT_KEYS,
            'deploy templates', limit=limit, marker=marker,
            sort_key=sort_key, sort_dir=sort_dir).subquery()
        query = _with_steps(page).order_by(
            *paging.order(page.c, sort_key, sort_dir), _STEPS.c.id)
        with self.read_one() as connection:
            return _grouped(connection.execute(query))

    def get_deploy_template_list_by_names(self, names):
        """The templates with these names, by name, in one query."""
        names = set(names)
        if not names:
            return []
        with self.read_one() as connection:
            return _grouped(connection.execute(
                _with_steps(_TEMPLATES).where(_TEMPLATES.c.name.in_(names))
                .order_by(_TEMPLATES.c.name, _STEPS.c.id)))

    @staticmethod
    def _insert_steps(connection, template_id, steps):
        if steps:
            now = timeutils.utcnow()
            connection.execute(sa.insert(_STEPS), [
                dict({key: step[key] for key in _STEP_KEYS},
                     timeout=step.get('timeout'),
                     deploy_template_id=template_id, created_at=now)
                for step in steps])

    @staticmethod
    def _duplicate(exc, values):
        if 'name' in (exc.columns or []):
            return exception.DeployTemplateDuplicateName(
                name=values.get('name'))
        return exception.DeployTemplateAlreadyExists(uuid=values.get('uuid'))

    def create_deploy_template(self, values):
        """Store a template: ``uuid`` (made if absent), ``name``,
        ``extra`` and ``steps``.

        :raises DeployTemplateDuplicateName, DeployTemplateAlreadyExists:
        """
        values = dict(values)
        values.setdefault('uuid', uuidutils.generate_uuid())
        steps = values.pop('steps', None) or []
        try:
            with self.writer() as connection:
                template_id = connection.execute(
                    sa.insert(_TEMPLATES).values(**values)
                ).inserted_primary_key[0]
                self._insert_steps(connection, template_id, steps)
                return self._get_template(connection, 'id', template_id)
        except db_exc.DBDuplicateEntry as exc:
            raise self._duplicate(exc, values) from exc

    def update_deploy_template(self, template_id, values):
        """Change a template's ``name``, ``extra`` and/or ``steps`` (all
        replaced); return it.

        :raises DeployTemplateNotFound, DeployTemplateDuplicateName:
        """
        values = dict(values)
        steps = values.pop('steps', None)
        values['updated_at'] = timeutils.utcnow()
        try:
            with self.writer() as connection:
                result = connection.execute(
                    sa.update(_TEMPLATES)
                    .where(_TEMPLATES.c.id == template_id).values(**values))
                if result.rowcount != 1:
                    raise exception.DeployTemplateNotFound(
                        template=template_id)
                if steps is not None:
                    connection.execute(sa.delete(_STEPS).where(
                        _STEPS.c.deploy_template_id == template_id))
                    self._insert_steps(connection, template_id, steps)
                return self._get_template(connection, 'id', template_id)
        except db_exc.DBDuplicateEntry as exc:
            raise self._duplicate(exc, values) from exc

    def destroy_deploy_template(self, template_id):
        """Delete a template; its steps go with it (ON DELETE CASCADE)."""
        with self.write_one() as connection:
            result = connection.execute(sa.delete(_TEMPLATES).where(
                _TEMPLATES.c.id == template_id))
        if result.rowcount != 1:
            raise exception.DeployTemplateNotFound(template=template_id)
