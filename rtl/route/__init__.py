"""Route-compute units per family (docs/router.md "Route compute"). Importing this package registers every
family's adapter; :func:`rtl_for` finds the one for a routing function (nearest class in its MRO), else the
ROM fallback (:class:`~.rom.RomRTL`)."""
from __future__ import annotations

from ...sim.routing.base import RoutingFunction
from . import hierarchical, hypercube, metacube, pdn, table  # noqa: F401  (register the families)
from .base import REGISTRY, ROM_MAX_BITS, InjectUnit, RouteUnit, RoutingRTL, register  # noqa: F401
from .rom import RomRTL


def rtl_for(routing: RoutingFunction) -> RoutingRTL:
    """The adapter registered for the routing function's class (nearest in its MRO), else the ROM."""
    for cls in type(routing).__mro__:
        if cls in REGISTRY:
            return REGISTRY[cls](routing)
    return RomRTL(routing)
