"""Per-hop routing functions (bit-exact; the RTL implements the same decisions)."""
from .base import HeaderLayout, Hop, RoutingFunction

__all__ = ["HeaderLayout", "Hop", "RoutingFunction"]
