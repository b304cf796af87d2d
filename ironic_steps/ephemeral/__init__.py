"""Ephemeral runs: deploy an inventory with a short-lived service
(``ironic-steps run``), keep the evidence, inspect it later."""
