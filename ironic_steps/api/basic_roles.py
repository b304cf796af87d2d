"""The roles and project of HTTP basic users: ``[api] http_basic_roles_file``.

The htpasswd file says who a user is; this file (YAML) says what the user
is, as a Keystone token would::

    alice:                     # a system admin: every node
      roles: [admin]
    carol:                     # a member of project p-1: its nodes only
      roles: [member]
      project: p-1
    rita:
      roles: [reader]
      project: p-1

``roles`` are those of :mod:`ironic_steps.api.policy_defaults` (admin,
manager, member, reader, service); a user with a ``project`` is project
scoped, one without is system scoped.  A user the file does not name
keeps what ``[api] reader_users`` gives (reader, else admin), system
scoped.  Not here: checking passwords (:mod:`password_checks`).
"""

import dataclasses

import yaml

from ironic_steps.common import exception

READER_ROLE = 'reader'
ADMIN_ROLE = 'admin'


@dataclasses.dataclass(frozen=True)
class Grant:
    """What one user is: roles, and the project it is scoped to (None:
    system scope)."""
    roles: tuple
    project: str = None


def _grant(path, user, entry):
    if not isinstance(entry, dict) or set(entry) - {'roles', 'project'}:
        raise exception.RolesFileInvalid(
            path=path, problem='user %s must be a mapping with "roles" '
                               'and, optionally, "project"' % user)
    roles = entry.get('roles')
    if (not isinstance(roles, list) or not roles
            or not all(isinstance(r, str) and r for r in roles)):
        raise exception.RolesFileInvalid(
            path=path, problem='the roles of user %s must be a list of '
                               'role names, e.g. [member]' % user)
    project = entry.get('project')
    if project is not None and (not isinstance(project, str)
                                or not project):
        raise exception.RolesFileInvalid(
            path=path, problem='the project of user %s must be a project '
                               'id' % user)
    return Grant(tuple(roles), project)


def load(path):
    """user -> Grant, from the file at ``path`` (nothing if None).

    :raises RolesFileInvalid: naming the file and what is wrong in it.
    """
    if not path:
        return {}
    try:
        with open(path) as stream:
            data = yaml.safe_load(stream) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise exception.RolesFileInvalid(
            path=path, problem='cannot be read: %s' % exc) from exc
    if not isinstance(data, dict):
        raise exception.RolesFileInvalid(
            path=path, problem='must map user names to their roles')
    return {str(user): _grant(path, user, entry)
            for user, entry in data.items()}


def grant_of(grants, user, reader_users):
    """What ``user`` is: its entry in ``grants``, else as ``reader_users``
    says (system scoped)."""
    found = grants.get(user)
    if found is not None:
        return found
    return Grant((READER_ROLE if user in reader_users else ADMIN_ROLE,))
