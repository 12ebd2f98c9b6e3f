"""`cubenoc generate`: Verilog that Verilator lints without errors, a port map, bad input -> exit 2;
and a whole network under amaranth.sim delivering every packet intact."""
import json
import random
import re

import pytest
from amaranth.sim import Simulator

from cubenoc.cli import main
from cubenoc.rtl.network_top import Network
from cubenoc.rtl.tools import verilator_lint
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.topology import EnhancedHypercube

#: verilator -Wall warnings on the 16-node Q(4, 0) network (docs/router.md records the count; keep it falling).
#: 205 -> 236 with input FIFO (rtl/router/fifo.py): every flip-flop declaration with an initial value
#: is a PROCASSINIT, and the FIFO has 11 registers (head, 3 entries, pointers, occupancy, select, flags) where
#: SyncFIFO had 3 (+48); its other warnings are fewer than SyncFIFO's (UNUSEDSIGNAL 132 -> 115, WIDTHTRUNC 10).
#: 231 -> 239 with the fixed route bits (docs/router.md): UNUSEDSIGNAL +8, the link inputs' tag bits a legal
#: upstream always sends the same (``in_p0__payload[6:2]`` ...) and the output units' route bits the link
#: drives as constants.
LINT_WARNINGS_BUDGET = 239


def test_generate_enhanced_16_nodes_lints_clean(tmp_path, capsys):
    assert main(["generate", "enhanced", "--n", "4", "--k", "0", "-o", str(tmp_path)]) == 0
    top = "cubenoc_enhanced_n4_k0"
    files = [tmp_path / f"{top}.v", tmp_path / f"{top}_router.v"]
    assert all(f.exists() for f in files)
    assert sorted(p.name for p in tmp_path.glob("*.v")) == sorted(f.name for f in files)  # one router module
    res = verilator_lint(files, top)
    assert res.errors == 0 and res.returncode == 0, res.log[-2000:]
    assert 0 < res.warnings <= LINT_WARNINGS_BUDGET
    desc = json.loads((tmp_path / f"{top}.json").read_text())
    assert desc["num_nodes"] == 16 and desc["route_header"] == [{"name": "tag", "lsb": 0, "width": 5}]
    assert [r["ports"] for r in desc["routers"]] == [6] * 16
    assert {f["name"]: (f["lsb"], f["width"]) for f in desc["local_flit"]} == {
        "head": (0, 1), "tail": (1, 1), "data": (2, 32)}
    text = files[0].read_text()
    for port in ("local_in__15__valid", "local_out__0__payload", "status__7__malformed"):
        assert port in text
    assert (tmp_path / f"{top}.md").read_text().startswith(f"# `{top}`")


def test_generate_router_options_no_counters_and_fifo_memory(tmp_path, capsys):
    """``--no-counters --fifo-memory``: the options synth-report measures, in the Verilog a user takes
    into their own flow: the description says so, the router has no 16-bit counter registers and keeps its
    FIFO entries in memory arrays, and the status ports are still there (the cocotb bench checks that they
    read 0 and that the traffic is the model's: tests/test_cocotb_network.py)."""
    top = "cubenoc_hypercube_n3"
    texts = {}
    for opts in ([], ["--no-counters", "--fifo-memory"]):
        out = tmp_path / ("opt" if opts else "plain")
        assert main(["generate", "hypercube", "--n", "3", "-o", str(out), "--quiet", *opts]) == 0
        desc = json.loads((out / f"{top}.json").read_text())
        assert (desc["counters"], desc["fifo_memory"]) == ((False, True) if opts else (True, False))
        texts[bool(opts)] = (out / f"{top}_router.v").read_text(), (out / f"{top}.v").read_text()
    plain, opt = texts[False][0], texts[True][0]
    counter_regs = [name for name in ("injected", "ejected", "dropped", "malformed") if f"reg [15:0] {name}" in plain]
    assert counter_regs and not any(f"reg [15:0] {name}" in opt for name in counter_regs)
    memory = re.compile(r"reg \[\d+:0\] \\\S+\s+\[\d+:0\];")     # an array: rtl/router/fifo.py's Memory
    assert not memory.search(plain) and memory.search(opt)
    assert "status__7__malformed" in texts[True][1]
    assert "no status counters, FIFOs in memory" in capsys.readouterr().out


@pytest.mark.parametrize("argv,message", [
    (["generate", "enhanced", "--n", "4", "--k", "3"], "k must be in 0..n-2"),
    (["generate", "hypercube", "--n", "0"], "n must be in 1..16"),
    (["generate", "enhanced", "--payload", "8"], "payload width must be an integer of at least 16"),
    (["generate", "hypercube", "--depth", "0"], "fifo depth must be in 1..64"),
])
def test_generate_bad_parameters_exit_2(tmp_path, capsys, argv, message):
    assert main(argv + ["-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cubenoc: error: ") and message in err[0]


def test_network_delivers_every_pair_intact():
    """Q(3, 0) in amaranth.sim (flat ports): every node sends a 1..3-flit packet to every node (itself
    included) and one to a bad address; random ejection backpressure. Every packet arrives at its
    destination intact, in order per source, never interleaved; the counters agree."""
    topo = EnhancedHypercube(3, 0)
    net = Network(topo, EcubeRouting(topo), flat=True)
    N, fw = topo.num_nodes, 34
    rng = random.Random(7)
    packets = {v: [] for v in range(N)}
    for v in range(N):
        for i, d in enumerate(rng.sample(range(N), N)):
            length = rng.randint(1, 3)
            packets[v].append([(int(j == 0), int(j == length - 1), (d if j == 0 else j) | (v << 16) | (i << 24))
                               for j in range(length)])
        packets[v].insert(3, [(1, 1, 0xFFFF)])                    # out of range: dropped
    received = {v: [] for v in range(N)}
    counters = {}

    def pack(h, t, d):
        return h | (t << 1) | (d << 2)

    async def bench(ctx):
        queues = {v: [f for p in packets[v] for f in p] for v in range(N)}
        for _ in range(300):
            valid, payload = 0, 0
            for v in range(N):
                if queues[v]:
                    valid |= 1 << v
                    payload |= pack(*queues[v][0]) << (v * fw)
            ctx.set(net.in_valid, valid)
            ctx.set(net.in_payload, payload)
            ctx.set(net.out_ready, rng.getrandbits(N))
            await ctx.delay(1e-9)
            took = ctx.get(net.in_ready) & valid
            fire = ctx.get(net.out_valid) & ctx.get(net.out_ready)
            outp = ctx.get(net.out_payload)
            for v in range(N):
                if took >> v & 1:
                    queues[v].pop(0)
                if fire >> v & 1:
                    f = outp >> (v * fw)
                    received[v].append((f & 1, f >> 1 & 1, f >> 2 & 0xFFFFFFFF))
            await ctx.tick()
        for name in ("injected", "ejected", "dropped", "malformed"):
            word = ctx.get(getattr(net, name))
            counters[name] = [word >> (16 * v) & 0xFFFF for v in range(N)]

    sim = Simulator(net)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()

    for d in range(N):
        per_src, cur = {}, None
        for flit in received[d]:
            assert (cur is None) == bool(flit[0]), f"interleaved or headless flit at node {d}: {flit}"
            cur = [flit] if flit[0] else cur + [flit]
            if flit[1]:
                per_src.setdefault(cur[0][2] >> 16 & 0xFF, []).append(cur)
                cur = None
        assert cur is None
        for v in range(N):
            want = [p for p in packets[v] if p[0][2] & 0xFFFF == d]
            assert per_src.get(v, []) == want, f"packets {v}->{d}"
    assert counters == {"injected": [N] * N, "ejected": [N] * N, "dropped": [1] * N, "malformed": [0] * N}
