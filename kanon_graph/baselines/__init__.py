"""The baselines the papers compare against, each in its own module and registered."""

from .datafly import datafly

__all__ = ["datafly"]
