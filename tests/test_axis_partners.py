"""The AXI4-Stream top with partners that behave differently from the kit's (tb/axis_partners.py): a
receiver whose tready follows tvalid, one node's m_axis chained into another's s_axis, broadcast frames too
long for a FIFO, and random traffic of every kind (frame lengths 1..4D, unicast, broadcast, a tdest that is
no node; sinks always ready, random, following tvalid), under Icarus and Verilator. Each run: every source
finishes, every frame is delivered or counted, a frame sent afterwards takes exactly its zero-load latency,
and the run is the model's cycle by cycle (tb/axis_partners_bench.py)."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest
from test_icarus import need_iverilog

from cubenoc.rtl.emit import write_network
from cubenoc.rtl.network_top import axis_digits
from cubenoc.sim.axis_frames import frames_stimulus
from cubenoc.sim.catalog import NetworkSpec
from cubenoc.sim.model.network import NetworkModel
from cubenoc.tb.axis_kit import run_kit
from cubenoc.tb.axis_partners import write_partner_top
from cubenoc.sim.network_plan import plan_of

Q4 = "enhanced:n=4,k=0,interface=axis"
Q3B = "enhanced:n=3,k=1,broadcast=1,interface=axis"


def zero_load_latency(spec: str, src: int, tdest: int, beats: int) -> int:
    """First beat offered -> last beat delivered for one frame on an idle network, by the model."""
    s = NetworkSpec.parse(spec)
    topo, routing = s.build("rtl")
    c = s.router_config()
    stim = frames_stimulus(topo.num_nodes, c.payload_width, [(src, tdest, [(0, j) for j in range(beats)])],
                           None, c.has_broadcast)
    res = NetworkModel(plan_of(topo, routing, c)).run(stim)
    return int(res.eject_cycle[stim.num_flits - 1])


def run_partners(tmp_path, monkeypatch, spec, sim, sinks, frames, chain=None, after=None, seed=1):
    if sim == "icarus":
        need_iverilog()
    s = NetworkSpec.parse(spec)
    topo, routing = s.build("rtl")
    config = s.router_config()
    gen = write_network(plan_of(topo, routing, config), tmp_path)
    wrapper = write_partner_top(gen.network, gen.top, tmp_path, chain[:2] if chain else None)
    job = {"spec": spec, "nodes": topo.num_nodes, "digits": axis_digits(topo.num_nodes),
           "bytes": config.payload_width // 8, "depth": config.fifo_depth, "broadcast": config.has_broadcast,
           "sinks": sinks, "frames": frames, "chain": chain, "after": after, "seed": seed,
           "after_latency": zero_load_latency(spec, *after) if after else None}
    monkeypatch.setenv("CUBENOC_PARTNERS", json.dumps(job))
    run_kit(wrapper, f"{gen.top}_partners", sim=sim, test_module="cubenoc.tb.axis_partners_bench", design=gen.top)


@pytest.mark.parametrize("sim", ["icarus", "verilator"])
def test_follow_receiver_and_chained_nodes_relay(sim, tmp_path, monkeypatch, capsys):
    """Q(4, 0): node 3 offers 1-beat frames to node 9, whose tready = tvalid; node 0 sends 2-beat frames to
    node 3, whose m_axis is node 5's s_axis (tdest 9): all arrive, node 9 sees the relayed ones with tid 5."""
    sinks = ["random" if v % 3 == 0 else "always" for v in range(16)]
    sinks[9] = "follow"
    frames = [[3, 9, 1]] * 40 + [[0, 3, 2]] * 10 + [[12, 9, 3]] * 6
    run_partners(tmp_path, monkeypatch, Q4, sim, sinks, frames, chain=[3, 5, 9], after=[1, 14, 2])


@pytest.mark.parametrize("sources", [2, 7])
def test_too_long_broadcasts_are_counted_and_the_network_goes_on(sources, tmp_path, monkeypatch, capsys):
    """Q(3, 1) with broadcast routers (D = 4: at most 3 beats): each source offers four broadcast frames of
    5 and of 16 beats at once, then 1- and 3-beat ones; the long ones are counted in dropped, the others
    reach every other node, and a unicast frame afterwards takes its zero-load latency."""
    frames = [[v, 15, beats] for v in range(sources) for beats in (5, 16, 5, 16, 1, 3)]
    run_partners(tmp_path, monkeypatch, Q3B, "icarus", ["always"] * 8, frames, after=[6, 7, 2])


@pytest.mark.parametrize("sim,seed", [("icarus", 1), ("verilator", 2)])
def test_random_traffic_of_every_kind(sim, seed, tmp_path, monkeypatch, capsys):
    """Q(3, 1) with broadcast routers: frames of 1..4D beats, unicast, broadcast and to no node (tdest 8..14),
    every sink kind; node 4's m_axis chained into node 2's s_axis (tdest 6)."""
    rng = random.Random(seed)
    frames = []
    for _ in range(5):
        for v in range(8):
            if v == 2:
                continue
            kind = rng.random()
            tdest = 15 if kind < 0.3 else rng.randrange(8, 15) if kind < 0.4 else rng.randrange(8)
            frames.append([v, tdest, rng.randint(1, 16)])
    sinks = [rng.choice(["always", "random", "follow"]) for _ in range(8)]
    run_partners(tmp_path, monkeypatch, Q3B, sim, sinks, frames, chain=[4, 2, 6], after=[5, 1, 3], seed=seed)


@pytest.mark.parametrize("depth,beats", [(4, 3), (8, 7)])
def test_generated_md_states_the_broadcast_limit(depth, beats, tmp_path, capsys):
    from cubenoc.cli import main
    assert main(["generate", f"enhanced:n=3,k=1,broadcast=1,depth={depth}", "--interface", "axis", "-o",
                 str(tmp_path), "--quiet"]) == 0
    md = next(tmp_path.glob("*.md")).read_text()
    assert f"a broadcast frame has at most {beats} beats" in md and "tdest` all ones" in md
