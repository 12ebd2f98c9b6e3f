"""The router, composed from units (docs/router.md, docs/architecture.md "The router's units"); each unit is
built from its own parameters, never from the router."""
from .adaptive_select import AdaptiveSelect  # noqa: F401
from .arbiter import RoundRobinArbiter  # noqa: F401
from .fifo import HeadFifo  # noqa: F401
from .fork_stage import ForkStage  # noqa: F401
from .input_unit import InputParams, InputUnit  # noqa: F401
from .late_route import LateRoute  # noqa: F401
from .output_unit import OutputUnit  # noqa: F401
from .pipe_stage import PipeStage  # noqa: F401
from .route_at_write import RouteAtWrite  # noqa: F401
from .router import COUNTERS, Router  # noqa: F401
from .source import COUNTER_WIDTH, SourceInterface, SourceParams  # noqa: F401
