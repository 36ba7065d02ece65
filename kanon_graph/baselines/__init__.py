"""The baselines the papers compare against, each in its own module and registered."""

from .datafly import datafly
from .incognito import incognito
from .mondrian import mondrian

__all__ = ["datafly", "incognito", "mondrian"]
