"""The baselines the papers compare against, each in its own module and registered."""

from .datafly import datafly
from .incognito import incognito
from .kmember import k_member
from .mondrian import mondrian

__all__ = ["datafly", "incognito", "k_member", "mondrian"]
