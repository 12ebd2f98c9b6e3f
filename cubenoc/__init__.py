"""cubenoc: router generator, cycle-accurate model and analysis for the hypercube family.

Sub-packages (one folder each in the repository, see ../shared/DESIGN.md):
``cubenoc.sim`` (topologies, routing, analysis, model), ``cubenoc.rtl`` (Amaranth gateware),
``cubenoc.tb`` (cocotb test benches), ``cubenoc.boards`` (FPGA targets).
"""
from .errors import CubenocError

__all__ = ["CubenocError"]
__version__ = "0.1.0"
