"""Cycle-accurate model of the rtl/ router microarchitecture (the golden reference, docs/router.md).

``NetworkModel(topology).run(stimulus)`` -> ``ModelResult`` (trace, counters, per-flit cycles); the
``Stimulus`` generators live in :mod:`.stimulus`; see docs/verification.md. The compiled kernel (numba) is
imported on first use of a name from :mod:`.network`, not by importing a submodule such as
:mod:`.stimulus` (``cubenoc --help`` and the traffic generators need no compiler: start-up time).
"""
from .stimulus import Stimulus, StimulusBuilder, all_pairs, bernoulli_traffic, random_traffic

__all__ = ["NetworkModel", "ModelResult", "Simulation", "Stimulus", "StimulusBuilder", "all_pairs",
           "bernoulli_traffic", "random_traffic"]


def __getattr__(name):
    if name in ("ModelResult", "NetworkModel", "Simulation"):
        from . import network
        return getattr(network, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
