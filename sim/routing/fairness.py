"""Weights of the fair arbiter (docs/router.md "Arbitration", ``--arbitration fair``).

Round robin per output is fair locally, not end to end: under an all-to-one hotspot an input that
carries the packets of many sources gets the same share as an input that carries one, so a source h hops
away gets about 1/2^h of what a neighbour gets. The fair arbiter is a weighted round robin: a lane
(j = i * V + c) that wins output o keeps first place for ``weight`` packets, where ``weight`` is the number
of sources whose packets to the same destination reach o through that lane. That number depends on the
destination in general (on the metacube: a static weight per (output, lane), the largest over all
destinations, leaves max/min at 8.4 under the all-to-one hotspot on MC(1,2), against 1.01 with the
destination's own), so the weight of a packet is looked up from the head's new route word (which
carries its destination) and held for its body flits: a table per (node, output, lane) from route word
to weight, computed once from the Python routing function (its fixed route) and shared by the RTL
(rtl/router/output_unit.py) and the model (sim/model/phases.py ``wrr_after``). The local output's weight
does not depend on the word (the destination is the node itself).
"""
from __future__ import annotations

import numpy as np

from cubenoc.errors import CubenocError

from .base import RoutingFunction
from .facts import route_facts

MAX_MODEL_ENTRIES = 1 << 24          # the model's dense table: nodes x ports x lanes x route words


def source_weights(routing: RoutingFunction) -> tuple[dict, ...]:
    """Per node ``{(o, j): {word: weight}}``: how many sources' packets to the destination of a packet that
    leaves by output o with new route ``word`` (0 at the local output) come through lane j; only keys
    that routes use (weight >= 1). From the one walk of every pair (:func:`~.facts.route_facts`)."""
    return route_facts(routing).weights


def weight_array(routing: RoutingFunction, max_ports: int):
    """The model's table ``w[v * P + o, j, word]`` (int32, 1 where no route passes), P = ``max_ports``."""
    V, R = int(routing.num_vcs), routing.layout.width
    weights = source_weights(routing)
    size = len(weights) * max_ports * max_ports * V << R
    if size > MAX_MODEL_ENTRIES:
        raise CubenocError(f"--arbitration fair: the model's weight table would have {size} entries "
                           f"(nodes x ports x lanes x 2^{R} route words; at most {MAX_MODEL_ENTRIES})")
    w = np.ones((len(weights) * max_ports, max_ports * V, 1 << R), dtype=np.int32)
    for v, d in enumerate(weights):
        for (o, j), words in d.items():
            if len(set(words.values())) == 1:     # one weight: the RTL's constant, for every word
                w[v * max_ports + o, j, :] = next(iter(words.values()))
            for word, k in words.items():          # else the RTL's ROM (1 for a word no walk saw)
                w[v * max_ports + o, j, word] = k
    return w
