"""A fingerprint of the model's results over every mode of the kernel, for before/after comparisons of a
refactoring that must not change a single result (not a test: there is no independent expectation for most
of these runs; run it on both trees and compare the files byte for byte)::

    python tests/model_fingerprint.py before.json      # on the old tree
    python tests/model_fingerprint.py after.json       # on the new tree
    cmp before.json after.json

Each case runs the model on saturating random traffic with random ejection backpressure and records its
cycles, counters and the full trace (per array: a SHA-256 and the sum), plus a few ``cubenoc simulate
--json`` runs. Cases: unicast e-cube and enhanced hypercube, VC families (metacube, hierarchical, adaptive
PDN), adaptive selection (availability, least used), run-time faults, broadcast (the family's algorithm
and the safety-level broadcast of an injured hypercube), per-output queues, the pipelined router, the fair
arbiter, no loopback, FIFO depth 1 and 2, request masks wider than one word, and the AXI4-Stream
interface's hooks (unicast, broadcast, VOQ, pipelined)."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import numpy as np

from cubenoc.sim.catalog import NetworkSpec
from cubenoc.sim.model.faults import random_fault_schedule
from cubenoc.sim.model.network import NetworkModel
from cubenoc.sim.model.stimulus import random_traffic
from cubenoc.sim.network_plan import plan_of
from cubenoc.sim.router_config import RouterConfig

#: (spec, packets per node, max packet length, broadcast share, faults)
CASES = [
    ("hypercube:n=4", 12, 4, 0, False),
    ("hypercube:n=4,depth=1", 8, 3, 0, False),
    ("hypercube:n=4,loopback=0", 8, 3, 0, False),
    ("hypercube:n=4,faults=1", 12, 4, 0, True),
    ("enhanced:n=4,k=1", 12, 4, 0, False),
    ("enhanced:n=4,k=0,arbitration=fair", 12, 4, 0, False),
    ("pdn:set=0,1,3,9,arbitration=fair", 8, 3, 0, False),
    ("metacube:k=1,m=2", 8, 4, 0, False),
    ("metacube:k=1,m=2,depth=2", 8, 4, 0, False),
    ("hin:level1=bh:3,level2=ccc:2", 6, 3, 0, False),
    ("hin:level1=bh:3,level2=bh:2,routing=balanced", 8, 3, 0, False),
    ("hin:level1=bh:3,level2=bh:2,routing=least_used", 8, 3, 0, False),
    ("hin:level1=bh:3,level2=bh:2,routing=least_used,faults=1", 8, 3, 0, True),
    ("pdn:set=0,1,3,9,routing=adaptive", 8, 3, 0, False),
    ("pdn:set=0,1,3,9,routing=availability", 10, 3, 0, False),
    ("pdn:set=0,1,3,9,routing=availability,faults=1", 10, 3, 0, True),
    ("hin:level1=bh:1,level2=cc:4,r=16,routing=least_used", 8, 3, 0, False),
    ("hin:level1=bh:2,level2=bh:2,r=16", 8, 3, 0, False),
    ("hypercube:n=4,broadcast=1", 6, 3, 0.2, False),
    ("hypercube:n=4,broadcast=1,depth=2", 6, 2, 0.3, False),
    ("pdn:set=0,1,3,9,broadcast=1", 6, 3, 0.2, False),
    ("enhanced:n=4,k=1,broadcast=1", 6, 3, 0.2, False),
    ("hypercube:n=4,queues=voq", 12, 4, 0, False),
    ("pdn:set=0,1,3,9,queues=voq,depth=2", 10, 4, 0, False),
    ("enhanced:n=4,k=0,queues=voq", 10, 4, 0, False),
    ("hypercube:n=4,pipeline=1", 12, 4, 0, False),
    ("pdn:set=0,1,3,9,pipeline=1,depth=2", 10, 4, 0, False),
    ("enhanced:n=4,k=1,pipeline=1,loopback=0", 10, 4, 0, False),
    ("hypercube:n=4,interface=axis", 8, 4, 0, False),
    ("hypercube:n=3,interface=axis,broadcast=1", 6, 4, 0.2, False),
    ("hypercube:n=4,interface=axis,queues=voq", 8, 4, 0, False),
    ("hypercube:n=4,interface=axis,pipeline=1", 8, 4, 0, False),
]

#: whole `cubenoc simulate` runs (the JSON it prints)
SIMULATE = [
    ["hypercube:n=6", "--rate", "0.3", "--measure", "3000"],
    ["pdn:set=0,1,3,9,routing=availability", "--rate", "0.4", "--measure", "3000"],
    ["metacube:k=1,m=2", "--sweep", "0.1:0.5:0.2", "--measure", "2000"],
    ["hypercube:n=5,queues=voq", "--rate", "0.5", "--measure", "2000"],
    ["hypercube:n=5,pipeline=1", "--rate", "0.5", "--measure", "2000"],
]


def _digest(a: np.ndarray) -> list:
    a = np.ascontiguousarray(np.asarray(a, dtype=np.int64))
    return [hashlib.sha256(a.tobytes()).hexdigest()[:20], int(a.sum()), int(a.shape[0])]


def _spec(text: str):
    """(topology, routing, config) of a catalog spec; ``interface=axis`` is a config field set here."""
    axis = ",interface=axis" in text
    spec = NetworkSpec.parse(text.replace(",interface=axis", ""))
    topo, routing = spec.build("model")
    config = spec.router_config(RouterConfig())
    return topo, routing, config.replace(interface="axis") if axis else config


def run_case(text, packets, max_len, p_bcast, faults) -> dict:
    topo, routing, config = _spec(text)
    model = NetworkModel(plan_of(topo, routing, config))
    N = topo.num_nodes
    stim = random_traffic(N, packets, max_len, seed=7, mean_gap=1.5, p_ready=0.7, ready_cycles=4000,
                          p_broadcast=p_bcast, data_width=config.payload_width)
    sched = random_fault_schedule(topo, 400, 6, seed=3) if faults else None
    res = model.run(stim, max_cycles=20_000, faults=sched)
    out = {"cycles": res.cycles, "drained": bool(res.drained), "counters": res.counters.tolist(),
           "accept": _digest(res.accept_cycle), "eject": _digest(res.eject_cycle)}
    for name in ("tr_cycle", "tr_node", "tr_flit", "tr_head", "tr_tail"):
        out[name] = _digest(getattr(res, name))
    part = model.run(stim, cycles=37, faults=sched)        # a run stopped mid-flight
    out["partial"] = [part.cycles, part.counters.tolist(), _digest(part.tr_flit)]
    return out


def main(path: str) -> None:
    result = {}
    for case in CASES:
        result[case[0]] = run_case(*case)
        print(case[0], result[case[0]]["cycles"], file=sys.stderr)
    for args in SIMULATE:
        run = subprocess.run([sys.executable, "-m", "cubenoc", "simulate", *args, "--json", "--quiet"],
                             capture_output=True, text=True, check=True)
        data = json.loads(run.stdout)
        for k in ("seconds", "elapsed", "wall_seconds", "cpu_seconds", "version", "created"):
            data.pop(k, None) if isinstance(data, dict) else None
        result[" ".join(args)] = data
        print(" ".join(args), file=sys.stderr)
    with open(path, "w") as fh:
        json.dump(result, fh, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1])
