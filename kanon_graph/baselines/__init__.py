"""The baselines the papers compare against, each in its own module and registered."""

from .bottom_up import bottom_up
from .datafly import datafly
from .incognito import incognito
from .kmember import k_member
from .mondrian import mondrian
from .systematic import paper_001_adult, systematic

__all__ = ["bottom_up", "datafly", "incognito", "k_member", "mondrian", "paper_001_adult",
           "systematic"]
