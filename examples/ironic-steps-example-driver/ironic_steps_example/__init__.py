"""An example out-of-tree driver for ironic-steps.

``hardware`` declares the ``example-hardware`` type; ``deploy`` implements
its ``example`` deploy interface.  Both are found by ironic-steps through
the entry points in ``pyproject.toml``.
"""
