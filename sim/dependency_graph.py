"""A directed graph of channel dependencies and the search for one cycle in it (Dally and Seitz: wormhole
routing is deadlock-free when its channel dependency graph is acyclic).

The deadlock check (sim/deadlock.py), the metacube routing's choice of VCs and its class-level argument
(sim/routing/metacube.py) need only this, so the routers and the network plan need no graph library; the
analyses' graph measures (connectivity, bisection) use networkx. Nodes and successors keep the order they
were added in, so the cycle reported is the same on every run.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable


class DependencyGraph:
    """Nodes (channels, or channel classes) and the edges ``held -> wanted`` between them."""

    def __init__(self, nodes: Iterable[Hashable] = (), edges: Iterable[tuple] = ()):
        self._next: dict[Hashable, dict[Hashable, None]] = {}     # node -> its successors, as an ordered set
        for v in nodes:
            self.add_node(v)
        for u, v in edges:
            self.add_edge(u, v)

    def add_node(self, v) -> None:
        self._next.setdefault(v, {})

    def add_edge(self, u, v) -> None:
        self.add_node(v)
        self._next.setdefault(u, {})[v] = None

    def __iter__(self):
        return iter(self._next)

    def __contains__(self, v) -> bool:
        return v in self._next

    @property
    def edges(self) -> list[tuple]:
        return [(u, v) for u, nxt in self._next.items() for v in nxt]

    def number_of_nodes(self) -> int:
        return len(self._next)

    def number_of_edges(self) -> int:
        return sum(map(len, self._next.values()))

    def find_cycle(self) -> list | None:
        """One cycle, as its nodes in order (each waits for the next, the last for the first), or None when
        the graph is acyclic: a depth-first search that keeps its path, iterative so that a path as long as
        the graph does not exhaust Python's stack."""
        done: set = set()
        for root in self._next:
            if root in done:
                continue
            path, on_path, todo = [root], {root: 0}, [iter(self._next[root])]
            while todo:
                for w in todo[-1]:
                    if w in on_path:
                        return path[on_path[w]:]
                    if w not in done:
                        on_path[w] = len(path)
                        path.append(w)
                        todo.append(iter(self._next[w]))
                        break
                else:                                     # every successor searched: v is on no cycle
                    v = path.pop()
                    del on_path[v]
                    done.add(v)
                    todo.pop()
        return None
