"""A topology as a networkx graph, for the analyses' graph measures (node connectivity, bisection) and the
tests' checks against an independent library. The routers, the model and the deadlock check need no graph
library (sim/dependency_graph.py)."""
from __future__ import annotations

import networkx as nx


def to_networkx(topo) -> nx.MultiGraph:
    """One edge per link (parallel links kept), the ports as edge attributes, each node labelled as the
    topology writes it."""
    g = nx.MultiGraph(name=repr(topo))
    for v in topo.nodes():
        g.add_node(v, label=topo.format_node(v))
    for u, pu, v, pv in topo.links():
        g.add_edge(u, v, ports={u: pu, v: pv})
    return g
