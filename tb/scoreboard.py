"""The scoreboard: the Verilog's ejected-flit trace must equal the model's (docs/router.md, DESIGN.md
"Verification contract"): same flit, same node, same cycle; same counters; same source handshakes; and
no output of the Verilog broke the stream rule (docs/router.md "Streams hold their offer").

:func:`compare` returns ``[]`` when they agree, else readable lines, the first naming the packet
(source, destination, sequence), the node and the first cycle where the two disagree.
"""
from __future__ import annotations

import numpy as np

from ..sim.model.network import COUNTER_NAMES, ModelResult
from .runner import RtlTrace


def _name_flit(stim, data: int, head: int, tail: int) -> str:
    hits = np.nonzero(stim.data == np.uint64(data))[0]
    if hits.size == 0:
        return f"a flit whose data {data:#x} was never injected (corrupted)"
    return " or ".join(stim.describe_flit(int(f)) for f in hits[:2])


def _fmt(entry) -> str:
    c, v, h, t, d = entry
    return f"(head={h} tail={t} data={d:#x})"


def compare(model: ModelResult, rtl: RtlTrace, limit: int = 8, check_counters: bool = True) -> list[str]:
    stim = model.stimulus
    if model.cycles != rtl.cycles:
        return [f"model ran {model.cycles} cycles, the Verilog {rtl.cycles}: compare equal-length runs"]
    m, r = model.trace_tuples(), rtl.trace_tuples()
    out: list[str] = [f"stream rule: {e}" for e in rtl.stream_errors]
    i = 0
    while i < min(len(m), len(r)) and m[i] == r[i]:
        i += 1
    if i < len(m) or i < len(r):
        me = m[i] if i < len(m) else None
        re_ = r[i] if i < len(r) else None
        if me is not None and (re_ is None or me[:2] < re_[:2]):
            f = int(model.tr_flit[i])
            out.append(f"first divergence at cycle {me[0]}, node {me[1]}: the model ejects {_fmt(me)} = "
                       f"{stim.describe_flit(f)}; the Verilog ejects nothing there "
                       f"(its next ejection: {('cycle %d node %d' % re_[:2]) if re_ else 'none'})")
        elif me is None or re_[:2] < me[:2]:
            out.append(f"first divergence at cycle {re_[0]}, node {re_[1]}: the Verilog ejects {_fmt(re_)} = "
                       f"{_name_flit(stim, re_[4], re_[2], re_[3])}; the model ejects nothing there "
                       f"(its next ejection: {('cycle %d node %d' % me[:2]) if me else 'none'})")
        else:
            f = int(model.tr_flit[i])
            out.append(f"first divergence at cycle {me[0]}, node {me[1]}: the model ejects {_fmt(me)} = "
                       f"{stim.describe_flit(f)}; the Verilog ejects {_fmt(re_)} = "
                       f"{_name_flit(stim, re_[4], re_[2], re_[3])}")
        out.append(f"traces: model {len(m)} flits, Verilog {len(r)} flits, equal up to entry {i}")
    acc_model = np.array([(model.accept_cycle[a:b] >= 0).sum() for a, b in
                          zip(stim.node_start[:-1], stim.node_start[1:])], dtype=np.int64)
    for v in np.nonzero(acc_model != rtl.accepted)[0][:limit]:
        out.append(f"node {int(v)}: the source accepted {int(rtl.accepted[v])} flits in the Verilog, "
                   f"{int(acc_model[v])} in the model")
    mc = model.counters & 0xFFFF if check_counters else np.zeros_like(rtl.counters)   # not built: they read 0
    for j, name in enumerate(COUNTER_NAMES):
        bad = np.nonzero(mc[:, j] != rtl.counters[:, j])[0]
        for v in bad[:limit]:
            out.append(f"node {int(v)}: counter {name} is {int(rtl.counters[v, j])} in the Verilog, " +
                       (f"{int(mc[v, j])} in the model" if check_counters else "0 in a router built without counters"))
    if rtl.vcd is not None and out:
        out.append(f"waveform: {rtl.vcd}")
    return out[: limit + 2]
