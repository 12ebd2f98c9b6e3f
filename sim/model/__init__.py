"""Cycle-accurate model of the rtl/ router microarchitecture (the golden reference, docs/router.md).

``NetworkModel(topology).run(stimulus)`` -> ``ModelResult`` (trace, counters, per-flit cycles); the
``Stimulus`` generators live in :mod:`.stimulus`; see docs/verification.md.
"""
from .network import ModelResult, NetworkModel, Simulation
from .stimulus import Stimulus, StimulusBuilder, all_pairs, bernoulli_traffic, random_traffic

__all__ = ["NetworkModel", "ModelResult", "Simulation", "Stimulus", "StimulusBuilder", "all_pairs",
           "bernoulli_traffic", "random_traffic"]
