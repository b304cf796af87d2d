"""The kinds of step a driver offers: deploy steps and clean steps.

A step's kind names the flow that runs it (``deploy`` here is a kind of
step, not the deploy interface).  The step decorators mark methods with a
kind (:mod:`ironic_steps.drivers.base`, which re-exports these names for
driver authors), the conductor plans and records steps by kind, and the
API filters the step history by it: all import them from here, below all.
"""

DEPLOY = 'deploy'
CLEAN = 'clean'
STEP_KINDS = (DEPLOY, CLEAN)
