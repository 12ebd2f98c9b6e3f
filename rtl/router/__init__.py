"""The router, composed from units (docs/router.md, docs/architecture.md "The router's units")."""
from .router import COUNTERS, Router  # noqa: F401
from .source import COUNTER_WIDTH  # noqa: F401
