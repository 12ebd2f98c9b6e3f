"""The design card's namespace, the console script and the CLI's error contract."""
import importlib
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


def test_no_top_level_sim_or_rtl_module():
    import cubenoc.sim
    assert cubenoc.sim.__name__ == "cubenoc.sim"
    assert "sim" not in sys.modules or not hasattr(sys.modules["sim"], "topology")


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
