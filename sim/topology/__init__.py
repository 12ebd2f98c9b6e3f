"""Network families: node addresses, port numbering and the neighbour on each port.

One class per family; see each module's docstring for its fixed port numbering.
"""
from .base import Topology
from .hypercube import EnhancedHypercube, Hypercube
from .hierarchical import CompleteGraph, CubeConnectedCycles, Hierarchical, Ring
from .metacube import Metacube
from .pdn import BipartitePDN, PerfectDifferenceNetwork, ProductPDN

__all__ = ["Topology", "Hypercube", "EnhancedHypercube", "Ring", "CompleteGraph", "CubeConnectedCycles", "Hierarchical", "Metacube",
           "PerfectDifferenceNetwork", "BipartitePDN", "ProductPDN"]
