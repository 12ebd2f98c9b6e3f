"""Bad input across the commands: each is refused up front, in one line (``cubenoc: error: ...`` or argparse's
``cubenoc COMMAND: error: ...``), with exit status 2, within 10 seconds (docs/cli.md). Every case here
was once accepted, refused only after minutes of work, silently changed or a traceback."""
from __future__ import annotations

import re

import pytest

from cubenoc.cli import main

LIMIT_S = 10

#: the metacube broadcast refusal's words: why, and what to use instead
MCB = "the routers do not fork the metacube broadcast: its Sec. 4.2 tree and the class-path routing go round " \
      "the class cycle, which needs 2 or more virtual channels"
MCB_INSTEAD = "leave out broadcast (the metacube's unicast routers reach every node: send one packet per " \
              "destination) or broadcast on a hypercube, enhanced or pdn network"

#: (command line, words the one error line must contain); {tmp} is a fresh folder
CASES = [
    # tracebacks
    ("generate q4 --payload 100000", "payload width"),
    ("simulate q4 --seed -1", "--seed"),
    ("simulate q4 --plot {tmp}/p.txt", "plot format"),
    ("simulate q4 --plot {tmp}/p.jpg2", "plot format"),
    ("demo --seed -1", "--seed"),
    ("bench families --jobs 0", "--jobs"),
    # a silent hang: the size is estimated from the spec before any work
    ("generate enhanced:n=16,k=0", "would take about"),
    ("synth-report enhanced:n=16,k=0 --no-pnr", "would take about"),
    ("prove enhanced:n=16,k=0", "prove would take about"),
    ("demo enhanced:n=16,k=0", "demo would take about"),
    # refused late
    ("build --board icebreaker --network enhanced:n=10,k=0", "at most 256 nodes"),
    ("build --board icebreaker --network enhanced:n=10,k=0 --estimate-only", "at most 256 nodes"),
    ("prove --work-dir /proc/cubenoc-x", "--work-dir"),
    # the bipartite PDN is an analysis network: a traceback in simulate, a confusing route error in generate
    ("simulate pdn --set 0,1,3 --bipartite --rate 0.05", "bipartite PDN"),
    ("generate pdn --set 0,1,3,9 --bipartite -o {tmp}/b", "bipartite PDN"),
    # accepted with exit 0
    ("simulate q4 --sweep=", "--sweep"),
    ("bench sim-speed --network bad:spec", "unknown network"),
    ("bench vc-area --limit -1", "--limit"),
    ("bench vc-throughput --limit 0", "--limit"),
    ("bench adaptive --window 0", "--window"),
    ("bench families --window -1", "--window"),
    ("bench model-speed --node-cycles 0", "--node-cycles"),
    ("analyze hin --explicit --nodes 2048", "--explicit"),
    ("simulate hin:level1=bh:2,level2=bh:2,r=17", "hin r must be in 1..16"),
    ("demo --network q4 --n 5", "--n/--k"),
    ("demo q4 --network q4", "not both"),
    ("generate enhanced:n=4,,k=0", "empty parameter"),
    ("generate enhanced:n=4,k=0,", "empty parameter"),
    ("generate enhanced:", "nothing after the colon"),
    ("build --board icebreaker --seed -1 --estimate-only", "--seed"),
    ("synth-report q4 --seed -1 --list", "--seed"),
    ("simulate q4 --hotspot 3", "--hotspot"),
    ("simulate q4 --traffic uniform --g 3", "--g"),
    ("prove q4 --network q4", "not both"),
    ("bench latency q4 --network q4", "not both"),
    # metacube broadcast: refused with the reason and what to use instead (docs/router.md "Broadcast and
    # multicast"), as a spec key and as the flag, in every command that takes a spec
    ("generate metacube:k=1,m=2,broadcast=1 -o {tmp}/out", MCB),
    ("generate metacube --k 1 --m 2 --broadcast -o {tmp}/out", MCB),
    ("simulate metacube:k=1,m=2,broadcast=1", MCB),
    ("build --board icebreaker metacube:k=1,m=2,broadcast=1", MCB),
    ("build --board icebreaker --network metacube:k=1,m=2,broadcast=1 --estimate-only", MCB),
    ("prove metacube:k=1,m=1,broadcast=1 --work-dir {tmp}/prove", MCB),
    ("prove --family metacube --broadcast --work-dir {tmp}/prove", MCB),
    ("synth-report metacube:k=1,m=2,broadcast=1 --no-pnr", MCB),
    ("demo metacube:k=1,m=2,broadcast=1 --build-dir {tmp}/build", MCB),
    ("simulate enhanced:n=3,k=0,interface=axis --rate 0.1", "native ports; leave out interface=axis"),
    # contradictory flags: one rule in every command (cubenoc/netargs.py router_config)
    ("generate q4 --loopback --no-loopback -o {tmp}/out", "give one of --loopback or --no-loopback, not both"),
    ("simulate q4 --loopback --no-loopback", "give one of --loopback or --no-loopback, not both"),
    ("generate q4 --counters on --counters off -o {tmp}/out", "give one of --counters on or --counters off"),
    ("build --board icebreaker --fifo-memory --no-fifo-memory --estimate-only", "not both"),
    # input the run would ignore, and refusals that used to come late
    ("simulate q4 --study 12", "runs the paper's own networks: drop q4"),
    ("simulate q4 --rate 0.1 --scheduler tcp://127.0.0.1:1", "cannot reach a Dask scheduler there"),
    ("bench latency hypercube:n=20", "dense route table"),
    ("bench latency --n 1000000000", "2^1000000000 nodes"),              # not a 300-million-digit number
    ("bench sim-speed q4 --json --format csv", "give one of --json or --format csv, not both"),
    ("build --board icebreaker --rate 64 --estimate-only", "64/256 = 0.25"),
]


@pytest.mark.parametrize("line, words", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_exit_2_within_10_s(line, words, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)                           # anything a regression writes stays in the test's folder

    from cli_run import run_cli
    status, _, err, seconds = run_cli(line.replace("{tmp}", str(tmp_path)).split(), capsys, LIMIT_S)
    assert status == 2, f"exit {status}; stderr: {err[-3:]}"
    assert len(err) == 1, err
    assert re.match(r"cubenoc( [\w-]+)*: error: ", err[0]), err[0]
    assert words in err[0], err[0]
    if words == MCB:
        written = [f for f in tmp_path.rglob("*") if f.is_file()]        # (prove makes its --work-dir first)
        assert MCB_INSTEAD in err[0] and not written, (err[0], written)
    assert seconds < LIMIT_S


def test_model_speed_says_when_it_changes_node_cycles(capsys, monkeypatch):
    """``--node-cycles 1`` on 64 nodes is under the least run (20 cycles): a warning line says what runs."""
    import cubenoc.sim.speed as speed

    def stop(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(speed, "scaling_point", stop)
    assert main(["bench", "model-speed", "--network", "q6", "--node-cycles", "1"]) == 130
    err = capsys.readouterr().err
    assert "warning: --node-cycles 1 on 64 nodes" in err and "running 20" in err


def test_generate_says_its_estimate_for_a_long_network(capsys, monkeypatch, tmp_path):
    """A network that takes minutes is elaborated, with the estimate said first (the 512-node 9-cube)."""
    import cubenoc.rtl.emit as emit

    def stop(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(emit, "write_network", stop)
    assert main(["generate", "enhanced:n=9,k=0", "-o", str(tmp_path)]) == 130
    err = capsys.readouterr().err
    assert re.search(r"cubenoc generate: enhanced:n=9,k=0: 512 nodes, expect about \d+ (s|minutes)", err), err
