"""How a condition or an action is declared, and how its args are read.

An operation is a function whose first parameter is what it works on (a
condition's nothing, an action's :class:`~.actions.Target`) and whose
other parameters are its args: those without a default are required.
:func:`declare` records it, by name, in a table with the names of the
args interpolated (:mod:`.variables`) before it runs.
"""

import dataclasses
import inspect


class OperationError(ValueError):
    """What is wrong with an operation as written (user text)."""


@dataclasses.dataclass(frozen=True)
class Operation:
    name: str
    run: object
    required: tuple
    optional: tuple
    #: Args interpolated before the operation runs (every arg in a loop).
    formatted: frozenset

    @property
    def parameters(self):
        return self.required + self.optional

    def named_args(self, args):
        """``args`` (a dict, or a list in parameter order) as a dict.

        :raises OperationError: naming missing, unexpected or surplus
            args.
        """
        if isinstance(args, list):
            if len(args) > len(self.parameters):
                raise OperationError(
                    '%s takes at most %d args (%s), got %d' % (
                        self.name, len(self.parameters),
                        ', '.join(self.parameters), len(args)))
            args = dict(zip(self.parameters, args))
        if not isinstance(args, dict):
            raise OperationError('args of %s must be an object or a list'
                                 % self.name)
        problems = []
        missing = [name for name in self.required if name not in args]
        if missing:
            problems.append('missing required argument(s): %s'
                            % ', '.join(missing))
        unexpected = sorted(set(args) - set(self.parameters))
        if unexpected:
            problems.append('unexpected argument(s): %s (it takes: %s)' % (
                ', '.join(unexpected), ', '.join(self.parameters)))
        if problems:
            raise OperationError('%s: %s' % (self.name, '; '.join(problems)))
        return dict(args)


def declare(table, name, formatted=()):
    """A decorator recording a function as operation ``name`` of
    ``table`` (a dict), ``formatted`` its interpolated args."""
    def record(function):
        parameters = list(inspect.signature(function).parameters.values())
        parameters = parameters[1:]     # what it works on
        empty = inspect.Parameter.empty
        table[name] = Operation(
            name, function,
            tuple(p.name for p in parameters if p.default is empty),
            tuple(p.name for p in parameters if p.default is not empty),
            frozenset(formatted))
        return function
    return record


def find(table, name, kind):
    """The operation ``name`` of ``table``.

    :raises OperationError: naming the ones there are.
    """
    try:
        return table[name]
    except KeyError:
        raise OperationError('unsupported %s %r; supported: %s' % (
            kind, name, ', '.join(sorted(table)))) from None


def loop_items(operation):
    """The ``{item}`` values an operation runs with: its ``loop`` list, or
    its one ``loop`` object; None without a loop."""
    loop = operation.get('loop')
    if not loop:
        return None
    return [loop] if isinstance(loop, dict) else list(loop)
