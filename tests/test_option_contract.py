"""The contract of one door for every option (docs/config.md "Precedence"): for every command that builds a
network and every router option it takes as a flag, the network spec's key and the flag resolve the same
router configuration, or both are refused in one line. The configuration is read where the model and the
RTL receive it: the network plan (sim/network_plan.py), which every command makes through ``plan_of``."""
from __future__ import annotations

import pytest

from cubenoc.boards.boards import get_board
from cubenoc.cli import main
from cubenoc.option import ROUTER_OPTIONS
from cubenoc.sim.network_plan import NetworkPlan
from cubenoc.sim.router_config import field_value

from test_options import _uses

#: the command line that takes each command to its network plan: (its words, the options after the network)
COMMANDS = {
    "generate": (["generate"], ["--quiet", "-o", "{tmp}/g"]),
    "simulate": (["simulate"], ["--quiet", "--rate", "0.05", "--warmup", "20", "--measure", "50", "--drain", "200"]),
    "synth-report": (["synth-report"], ["--quiet", "--targets", "up5k"]),
    "build": (["build"], ["--quiet", "--board", "icebreaker", "--build-dir", "{tmp}/b"]),
    "prove": (["prove"], ["--quiet", "--work-dir", "{tmp}/p"]),
    "bench latency": (["bench", "latency"], ["--quiet"]),
    "bench throughput": (["bench", "throughput"], ["--quiet"]),
    "bench model-speed": (["bench", "model-speed"], ["--quiet"]),
}
NETWORK, NODES = "hypercube:n=2", 4      # (a network no board demo or default uses)


def _asked(option):
    """(spec key=value, flag words, the RouterConfig field's value) asking for something other than the
    default."""
    if option.kind == "flag":
        return f"{option.spec}=1", [option.flag], True
    if option.kind == "bool":
        on = not option.default
        return f"{option.spec}={int(on)}", [option.flag if on else f"--no-{option.name}"], on
    if isinstance(option.kind, tuple):
        word = next(w for w in option.kind if w != option.default and w != option.kind[0])
        return f"{option.spec}={word}", [option.flag, word], field_value(option.dest, word)
    value = {"payload": 64, "depth": 2}[option.name]
    return f"{option.spec}={value}", [option.flag, str(value)], value


class _Planned(BaseException):
    """Raised at the first plan a command makes of the asked network, carrying its configuration (ends the
    command there)."""


def _resolve(argv, tmp_path, monkeypatch, capsys):
    """The router configuration of the first plan of the asked network ``argv`` makes, or the lines it is refused with."""
    made = NetworkPlan.__init__

    def capture(self, topology, routing, config=None):
        made(self, topology, routing, config)
        if topology.num_nodes == NODES:
            raise _Planned(self.config)

    get_board("icebreaker")                  # (the board table plans each board's demo once: made before)
    monkeypatch.setattr(NetworkPlan, "__init__", capture)
    argv = [a.format(tmp=tmp_path) for a in argv]
    try:
        code = main(argv)
    except _Planned as planned:
        return planned.args[0]
    finally:
        monkeypatch.setattr(NetworkPlan, "__init__", made)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, (argv, code, err)
    return err[0]


def _cases():
    flags = _uses()
    for option in ROUTER_OPTIONS:
        for cmd in COMMANDS:
            if any(c == cmd for c, _ in flags.get(option.name, ())):
                yield pytest.param(cmd, option, id=f"{cmd}-{option.name}")


def test_every_command_that_makes_a_network_takes_router_flags():
    """The table below covers every command that takes a router flag (a new command is added to it)."""
    taking = {c for uses in _uses().values() for c, _ in uses} & {c for c, _ in _uses()["depth"]}
    assert taking - {"bench area"} <= set(COMMANDS), taking - set(COMMANDS)


@pytest.mark.parametrize("cmd,option", list(_cases()))
def test_the_spec_key_and_the_flag_resolve_one_router(cmd, option, tmp_path, monkeypatch, capsys):
    key, flag, value = _asked(option)
    words, rest = COMMANDS[cmd]
    by_key = _resolve(words + [f"{NETWORK},{key}"] + rest, tmp_path / "k", monkeypatch, capsys)
    by_flag = _resolve(words + [NETWORK, *flag] + rest, tmp_path / "f", monkeypatch, capsys)
    if isinstance(by_key, str) or isinstance(by_flag, str):
        assert isinstance(by_key, str) and isinstance(by_flag, str), (by_key, by_flag)
        return
    assert getattr(by_flag, option.field) == value, (cmd, flag, by_flag)
    assert by_key == by_flag, (cmd, key, flag)
