"""Run-time fault schedules (docs/router.md, "Run-time faults"), shared by the model and the cocotb bench.

A :class:`FaultSchedule` lists changes ``(cycle, link_fault, node_fault)``: from that cycle on (until
the next change) node ``v``'s ``link_fault`` input has bit ``p`` set for every port ``p`` in
``link_fault[v]`` and its ``node_fault`` input is set when ``v in node_fault``. Before the first change
nothing is faulty. A link is bidirectional: the channel leaving ``(v, p)`` towards ``(u, q)`` is faulty
when ``link_fault`` bit ``p`` of ``v`` or bit ``q`` of ``u`` is set, or ``v`` or ``u`` is a faulty node
(:meth:`effective`: what the network top computes for each router's output).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cubenoc.errors import CubenocError, require_int


@dataclass
class FaultSchedule:
    num_nodes: int
    changes: list = field(default_factory=list)   # [(cycle, {node: set(ports)}, set(nodes))], by cycle

    def at(self, cycle: int, links=None, nodes=()) -> "FaultSchedule":
        """From ``cycle`` on: exactly these faults. ``links``: ``{node: ports}`` or ``[(node, port)]``."""
        require_int(cycle, "fault cycle", 0)
        if self.changes and cycle <= self.changes[-1][0]:
            raise CubenocError(f"fault changes must be in increasing cycle order, got {cycle} after "
                               f"{self.changes[-1][0]}")
        per: dict[int, set[int]] = {}
        items = links.items() if isinstance(links, dict) else ((v, [p]) for v, p in (links or ()))
        for v, ports in items:
            require_int(v, "faulty link's node", 0, self.num_nodes - 1)
            per.setdefault(int(v), set()).update(int(p) for p in ports)
        nodes = {require_int(v, "faulty node", 0, self.num_nodes - 1) for v in nodes}
        self.changes.append((int(cycle), per, nodes))
        return self

    def words(self, topology) -> list[tuple[int, int, int]]:
        """``[(cycle, link_fault vector, node_fault vector)]`` as the flat network top takes them:
        node v's port bits at ``[v * Pm +: Pm]`` (Pm = the largest number of network ports)."""
        pm = max(topology.num_ports(v) for v in topology.nodes())
        out = []
        for cycle, per, nodes in self.changes:
            lw = 0
            for v, ports in per.items():
                for p in ports:
                    if not 0 <= p < topology.num_ports(v):
                        raise CubenocError(f"node {v} has network ports 0..{topology.num_ports(v) - 1}, got {p}")
                    lw |= 1 << (v * pm + p)
            out.append((cycle, lw, sum(1 << v for v in nodes)))
        return out

    def effective(self, topology, max_ports: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(cycles [K], out_fault [K, N*P], node_fault [K, N])``: per change, whether the output
        channel ``(v, o)`` is faulty (index ``v * P + o``, P = ``max_ports`` with the local port) and
        whether node v refuses injection."""
        n, P = topology.num_nodes, max_ports
        K = len(self.changes)
        cycles = np.array([c for c, _, _ in self.changes], dtype=np.int64)
        out = np.zeros((K, n * P), dtype=np.int64)
        nf = np.zeros((K, n), dtype=np.int64)
        for k, (_, per, nodes) in enumerate(self.changes):
            for v in nodes:
                nf[k, v] = 1
            for v in topology.nodes():
                for p in range(topology.num_ports(v)):
                    bad = v in nodes or p in per.get(v, ())
                    far = topology.neighbor(v, p)
                    if far is not None:
                        bad = bad or far[0] in nodes or far[1] in per.get(far[0], ())
                    out[k, v * P + p] = int(bad)
        return cycles, out, nf


def random_fault_schedule(topology, cycles: int, changes: int, seed: int, p_link: float = 0.15,
                          p_node: float = 0.0, clear_at: int | None = None) -> FaultSchedule:
    """``changes`` random fault sets at evenly spaced cycles in ``0 .. cycles``, then everything clear
    at ``clear_at`` (default ``cycles``): each network port faulty with ``p_link``, each node with
    ``p_node``."""
    rng = np.random.default_rng(seed)
    s = FaultSchedule(topology.num_nodes)
    step = max(1, cycles // (changes + 1))
    for j in range(1, changes + 1):
        links = [(v, p) for v in topology.nodes() for p in range(topology.num_ports(v))
                 if topology.neighbor(v, p) is not None and rng.random() < p_link]
        nodes = [v for v in topology.nodes() if rng.random() < p_node]
        s.at(j * step, links, nodes)
    s.at(max(clear_at if clear_at is not None else cycles, (changes + 1) * step), [], [])
    return s
