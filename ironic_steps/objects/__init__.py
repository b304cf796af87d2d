"""Versioned objects; importing this registers every object class."""


def register_all():
    __import__('ironic_steps.objects.node')


register_all()

from ironic_steps.objects.node import Node  # noqa: E402

__all__ = ['Node']
