"""The language of inspection rules (Ironic's, API 1.96).

A rule is ``{uuid, description, priority, sensitive, phase, conditions,
actions}``.  Each condition and action is an *operation*:
``{'op': name, 'args': {...}}`` (args may also be a list, in the order of
the operation's parameters, as Ironic still takes), with an optional
``loop`` (a list, or one object) run once per ``{item}``; a condition's
``op`` may be negated with a leading ``!``, and its ``multiple`` (``any``,
``all``, ``first``, ``last``) says which of a loop's results decides.

* :mod:`.operations`: how an operation is declared (its parameters, which
  of them are interpolated) and how its args are named and checked;
* :mod:`.variables`: ``{inventory[cpu][count]}``-style interpolation and
  the masking of secrets in what a rule sees;
* :mod:`.conditions`: the conditions and how one is checked;
* :mod:`.actions`: the actions and how one is run on a node;
* :mod:`.rule_format`: what makes a rule valid (the API's check and the
  built-in rules file's).

Nothing here reads the database or saves a node: applying the rules as an
inspection ends is the conductor's (:mod:`ironic_steps.conductor.
inspection_rules`).
"""
