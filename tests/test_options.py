"""One door for every option (docs/cli.md "One vocabulary", docs/config.md "Precedence"): every flag is
defined once in cubenoc/options.py and means the same in every command; the command line, a config file
and a spec key resolve one router by one precedence; the model and the RTL receive the same values."""
from __future__ import annotations

import argparse
import json

import pytest

from cubenoc.cli import build_parser, main
from cubenoc.options import OPTIONS, family_options, registered_names, router_options

#: family keys that ``analyze`` takes as ranges or lists of values to tabulate (``--n 4..8``, ``--level2
#: bh,br``): the same key, several values; made by each paper's analysis
ANALYZE_RANGES = {"n", "k", "m", "set", "delta", "product", "zero-free", "shortest", "level1", "level2", "nodes",
                  "replication"}


def _parsers():
    """(command, parser) for every command, every benchmark and every analysis."""
    parser = build_parser()
    for name, p in parser._commands.items():
        subs = getattr(p, "_bench_parsers", {})
        if subs:
            yield from ((f"bench {b}", q) for b, q in subs.items())
        elif name == "analyze":
            for fam, q in p._subparsers._group_actions[0].choices.items():
                yield f"analyze {fam}", q
        else:
            yield name, p


def _uses():
    """flag -> [(command, action)] for every long option string, old spellings left out."""
    out: dict[str, list] = {}
    for cmd, p in _parsers():
        for a in p._actions:
            if isinstance(a, (argparse._HelpAction, argparse._VersionAction)) or a.help == argparse.SUPPRESS:
                continue
            for s in a.option_strings:
                if s.startswith("--") and s not in getattr(a, "old_names", ()):
                    out.setdefault(s[2:], []).append((cmd, a))
    return out


def test_every_registered_flag_is_made_by_the_registry_in_every_command():
    """A command cannot define ``--depth`` (or any registered flag) by hand with another type or meaning."""
    names = registered_names()
    wrong = [f"{cmd} --{flag}" for flag, uses in _uses().items() if flag in names for cmd, a in uses
             if getattr(a, "registered", None) is None
             and not (cmd.startswith("analyze") and flag in ANALYZE_RANGES)]
    assert wrong == []


def test_a_flag_that_two_commands_take_is_registered():
    """A flag shared by two commands is defined once (the registry), so it cannot mean two things."""
    shared = {flag: uses for flag, uses in _uses().items() if len({cmd.split()[0] for cmd, _ in uses}) > 1}
    loose = sorted(f"--{flag} ({', '.join(cmd for cmd, a in uses if not hasattr(a, 'registered'))})"
                   for flag, uses in shared.items()
                   if any(not hasattr(a, "registered") for cmd, a in uses
                          if not (cmd.startswith("analyze") and flag in ANALYZE_RANGES)))
    assert loose == []


def test_a_registered_flag_has_one_type_and_its_words_everywhere():
    seen: dict[str, set] = {}
    for flag, uses in _uses().items():
        for cmd, a in uses:
            if getattr(a, "registered", None) == flag:
                seen.setdefault(flag, set()).add((type(a).__name__, a.type))
                o = OPTIONS.get(flag)
                if o is not None and isinstance(o.kind, tuple) and a.choices is not None:
                    assert set(a.choices) <= set(o.kind), (cmd, flag)
    assert {f: s for f, s in seen.items() if len(s) > 1} == {}


def test_router_spec_keys_and_flags_come_from_one_definition():
    """The spec grammar's router keys are the registry's (sim/router_config.py SPEC_KEYS is made from it)."""
    from cubenoc.sim.router_config import SPEC_KEYS, RouterConfig
    assert set(SPEC_KEYS) == {o.spec for o in router_options()}
    assert {f for f, _, _ in SPEC_KEYS.values()} <= set(RouterConfig.__dataclass_fields__)
    from cubenoc.sim.catalog import FAMILIES
    keys = {k for table in FAMILIES.values() for k in table}
    assert {o.spec for o in family_options()} == keys


@pytest.mark.parametrize("argv,message", [
    (["simulate", "q4", "--rate", "0.1", "--rate", "0.2"], "give one of --rate 0.1 or --rate 0.2, not both"),
    (["generate", "q4", "--loopback", "--no-loopback"], "give one of --loopback or --no-loopback, not both"),
    (["generate", "q4", "--counters", "on", "--no-counters"], "give one of --counters on or --no-counters"),
    (["bench", "latency", "--format", "csv", "--json"], "give one of --format csv or --json, not both"),
    (["prove", "--depth", "2", "--fifo-depth", "4"], "give one of --depth 2 or --fifo-depth 4, not both"),
    (["build", "--board", "icebreaker", "--estimate-only", "--program"], "give one of them"),
    (["synth-report", "q4", "--list", "--write"], "give one of them"),
    (["synth-report", "q4", "--family", "pdn", "--list"], "not both"),
    (["analyze", "safety", "--n", "4", "--trials", "-1"], "--trials"),
    (["analyze", "safety", "--n", "4", "--trials", "5"], "go with Figure 5"),
])
def test_contradictory_or_ignored_flags_are_refused_in_one_line_everywhere(argv, message, capsys, tmp_path):
    try:
        rc = main(argv)
    except SystemExit as e:                 # argparse's own usage errors: one line, exit 2
        rc = e.code
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and message in err[-1] and len([e for e in err if "error" in e]) == 1


def test_an_old_spelling_works_and_says_what_replaced_it(capsys):
    p = build_parser("bench")._commands["bench"]._bench_parsers["throughput"]
    args = p.parse_args(["--loads", "0.2", "0.4", "--packet-len", "2", "--queues", "fifo"])
    assert args.rate == [0.2, 0.4] and args.length == ["2"] and args.routers == ["fifo"]
    err = capsys.readouterr().err
    assert "--loads is the old name of --rate" in err and "--packet-len is the old name of --length" in err


def _router_of(command: str, argv: list[str], tmp_path, capsys) -> dict:
    """The router configuration ``command`` resolves (as its JSON output records it)."""
    if command == "generate":
        assert main(["generate", *argv, "-o", str(tmp_path / "g"), "--quiet"]) == 0
        return json.loads(next((tmp_path / "g").glob("*.json")).read_text())["router_config"]
    assert main(["simulate", *argv, "--rate", "0.05", "--warmup", "20", "--measure", "50", "--drain", "200",
                 "--json", "--quiet"]) == 0
    return json.loads(capsys.readouterr().out)[0]["router_config"]


#: (spec key, flag form, expected field values) for the router options that generate and simulate share
SHARED = [("depth=2", ["--depth", "2"], {"fifo_depth": 2}),
          ("queues=voq", ["--queues", "voq"], {"queues": "voq"}),
          ("pipeline=1", ["--pipeline"], {"pipeline": True}),
          ("arbitration=fair", ["--arbitration", "fair"], {"arbitration": "fair"}),
          ("loopback=0", ["--no-loopback"], {"loopback": False})]


@pytest.mark.parametrize("key,flags,fields", SHARED)
def test_a_spec_key_and_its_flag_give_one_router_to_the_model_and_the_rtl(key, flags, fields, tmp_path, capsys):
    """For every router option: the spec key and the flag resolve the same configuration, in generate (the
    RTL) and in simulate (the model); a key and a flag that disagree are refused in one line by both."""
    seen = []
    for cmd in ("generate", "simulate"):
        for argv in ([f"hypercube:n=3,{key}"], ["hypercube:n=3", *flags]):
            cfg = _router_of(cmd, argv, tmp_path / f"{cmd}{len(seen)}", capsys)
            assert {k: cfg[k] for k in fields} == fields, (cmd, argv)
            seen.append(cfg)
    assert all(c == seen[0] for c in seen[1:]) or all(c == seen[0] for c in seen[1:2])


@pytest.mark.parametrize("cmd", ["generate", "simulate"])
def test_a_spec_key_and_a_flag_that_disagree_are_refused_by_both(cmd, tmp_path, capsys):
    argv = [cmd, "enhanced:n=3,k=0,depth=2", "--depth", "8"]
    argv += ["-o", str(tmp_path)] if cmd == "generate" else ["--rate", "0.1"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "fifo_depth = 2" in err[0] and "--depth asks for 8" in err[0]


def test_precedence_file_below_spec_below_flag(tmp_path, capsys):
    """built-in default < config file < network spec key < command-line flag (docs/config.md)."""
    (tmp_path / "r.toml").write_text('[router]\ndepth = 3\n')
    cfg = tmp_path / "r.toml"
    assert _router_of("simulate", ["q4", "--config", str(cfg)], tmp_path, capsys)["fifo_depth"] == 3
    assert _router_of("simulate", ["hypercube:n=4,depth=5", "--config", str(cfg)], tmp_path, capsys)["fifo_depth"] == 5
    assert _router_of("simulate", ["q4", "--config", str(cfg), "--depth", "6"], tmp_path, capsys)["fifo_depth"] == 6
    assert _router_of("generate", ["hypercube:n=4,depth=5", "--config", str(cfg)], tmp_path / "a",
                      capsys)["fifo_depth"] == 5


def test_a_config_key_in_the_wrong_table_is_named(tmp_path, capsys):
    (tmp_path / "w.toml").write_text('network = "q4"\n[traffic]\ndepth = 3\n')
    assert main(["simulate", "--config", str(tmp_path / "w.toml"), "--rate", "0.1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"cubenoc: error: --config {tmp_path / 'w.toml'}: depth belongs in [router], not [traffic] "
                   "(docs/config.md)"]
