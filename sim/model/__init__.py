"""Cycle-accurate model of the rtl/ router microarchitecture (the golden reference, docs/router.md).

``NetworkModel(topology).run(stimulus)`` -> ``ModelResult`` (trace, counters, per-flit cycles); the
``Stimulus`` generators live in :mod:`.stimulus`; see docs/verification.md. The package imports only the
stimulus: unit modules such as :mod:`.word` are read by the router configuration, which the model itself
imports, so :class:`~.network.NetworkModel` is imported from :mod:`.network`.
"""
from .stimulus import Stimulus, StimulusBuilder, all_pairs, bernoulli_traffic, random_traffic

__all__ = ["Stimulus", "StimulusBuilder", "all_pairs",
           "bernoulli_traffic", "random_traffic"]
