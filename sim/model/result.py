"""What a model run returns (docs/router.md "The model and the comparison"): the ejected-flit trace, counters,
per-flit cycles and the flits each channel carried."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..router_config import RouterConfig
from .stimulus import Stimulus

COUNTER_NAMES = ("injected", "ejected", "dropped", "malformed")


@dataclass
class ModelResult:
    stimulus: Stimulus
    cycles: int                 # cycles simulated (cycle numbers 0 .. cycles-1)
    drained: bool               # every flit accepted or discarded and the network empty
    counters: np.ndarray        # int64 [N, 4]: injected, ejected, dropped, malformed
    accept_cycle: np.ndarray    # int64 [F]: cycle of the flit's injection handshake, -1 if never
    eject_cycle: np.ndarray     # int64 [F]: cycle of its ejection handshake, -1 if never
    tr_cycle: np.ndarray        # the trace, in (cycle, node) order
    tr_node: np.ndarray
    tr_flit: np.ndarray         # index into the stimulus arrays
    tr_head: np.ndarray
    tr_tail: np.ndarray
    router: RouterConfig = field(default_factory=RouterConfig)   # the routers that made it
    link_flits: np.ndarray | None = None   # int64 [N*P]: flits sent on output o of node v (v*P + o), whole run

    @property
    def broadcast(self) -> bool:
        """The network forks dest-0xFFFF packets (docs/router.md "Broadcast and multicast")."""
        return self.router.has_broadcast

    @property
    def loopback(self) -> bool:
        """False: a packet to its own node is dropped at its source (docs/router.md "Loopback")."""
        return self.router.loopback

    @property
    def tr_data(self) -> np.ndarray:
        return self.stimulus.data[self.tr_flit]

    def counter(self, name: str) -> np.ndarray:
        return self.counters[:, COUNTER_NAMES.index(name)]

    def trace_tuples(self) -> list[tuple[int, int, int, int, int]]:
        """``[(cycle, node, head, tail, data), ...]``: what the verification contract compares."""
        return list(zip(self.tr_cycle.tolist(), self.tr_node.tolist(), self.tr_head.tolist(),
                        self.tr_tail.tolist(), self.tr_data.tolist()))

    # ---- per-packet figures (packets that were accepted, not dropped) ----
    @cached_property
    def delivered(self) -> np.ndarray:
        """Indices of packets whose every flit was ejected."""
        s = self.stimulus
        last = s.pkt_first + s.pkt_len - 1
        ok = s.pkt_len > 0
        ok[ok] &= self.eject_cycle[last[ok]] >= 0
        return np.nonzero(ok)[0]

    def head_latency(self, packets=None) -> np.ndarray:
        """Injection handshake of the head to ejection handshake of the head (h + 1 at zero load)."""
        f = self.stimulus.pkt_first[self.delivered if packets is None else packets]
        return self.eject_cycle[f] - self.accept_cycle[f]

    def packet_latency(self, packets=None) -> np.ndarray:
        """Release (creation) of the packet to ejection of its tail, source queueing included."""
        s = self.stimulus
        k = self.delivered if packets is None else packets
        return self.eject_cycle[s.pkt_first[k] + s.pkt_len[k] - 1] - s.pkt_release[k]
