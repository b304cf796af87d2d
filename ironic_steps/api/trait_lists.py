"""The body that replaces a list of traits (a node's, a runbook's).

``{"traits": [...]}``: exactly that key, a list, each a trait (see
:mod:`common.traits`).  Only the request side: where traits are kept is
the controllers' business.
"""

from ironic_steps.api import errors
from ironic_steps.common import traits as traits_rules


def traits_of(data, how):
    """The traits of a replace body, checked.

    :param how: what the endpoints take, said when ``data`` is not such a
        body.
    :raises InvalidBody, InvalidField:
    """
    if not isinstance(data, dict) or set(data) != {'traits'}:
        raise errors.InvalidBody(reason=how)
    traits = data['traits']
    if not isinstance(traits, list):
        raise errors.InvalidField(field='traits', reason='%r is not a list '
                                  'of traits' % (traits,))
    for trait in traits:
        reason = traits_rules.problem(trait)
        if reason is not None:
            raise errors.InvalidField(field='traits', reason=reason)
    return traits
