"""A reader's download: the site's wheel, a script and a notebook, run in a fresh virtual environment outside this
checkout, with nothing but torch, that wheel, and what running a notebook needs.

Needs a built site (``nox -s docs``) and a package index for pip (``pip install torch==2.13.0`` takes the CPU wheel
on the CI machines); run with ``nox -s downloads`` (marker ``download``). A missing site fails, saying what to do.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.download

ROOT = Path(__file__).resolve().parent.parent
#: torch pinned as everywhere on CPU machines (a looser spec downloads a multi-GB CUDA build).
TORCH = "torch==2.13.0"
NOTEBOOK_NEEDS = ("matplotlib", "nbclient", "nbformat", "ipykernel")
KERNEL = "attnprof-download-test"
SCRIPT = "05-sdpa-flash"


def _site() -> Path:
    site = Path(os.environ.get("ATTNPROF_SITE") or ROOT / "_build" / "html").resolve()
    if not (site / "en" / "index.html").is_file():
        pytest.fail(
            f"no built site at {site}: build it first with `nox -s docs` (or set ATTNPROF_SITE)", pytrace=False
        )
    return site


def _clean_env(**extra: str) -> dict[str, str]:
    """The environment of a reader's shell: no PYTHONPATH into this checkout, no settings of the docs build."""
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("ATTNPROF_")}
    return env | {"MPLBACKEND": "agg", "CUDA_VISIBLE_DEVICES": "", **extra}


def _run(args: list[str], cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    run = subprocess.run(args, cwd=cwd, env=_clean_env(), capture_output=True, text=True, timeout=timeout,
                         check=False)  # fmt: skip
    assert run.returncode == 0, f"{' '.join(args)} failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    return run


def _download(site: Path, lang: str, name: str) -> Path:
    found = sorted((site / lang / "_downloads").glob(f"*/{name}"))
    assert len(found) == 1, f"{name} in {site / lang / '_downloads'}: {found}"
    return found[0]


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with torch, the site's wheel and a Jupyter kernel; its python."""
    site = _site()
    wheels = sorted((site / "en" / "_static").glob("attnprof-*.whl"))
    assert len(wheels) == 1, f"the site publishes one wheel of attnprof in en/_static, found {wheels}"
    home = tmp_path_factory.mktemp("reader")
    _run([sys.executable, "-m", "venv", str(home / "venv")], home)
    python = home / "venv" / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", TORCH, str(wheels[0]), *NOTEBOOK_NEEDS], home)
    _run([str(python), "-m", "ipykernel", "install", "--sys-prefix", "--name", KERNEL], home)
    return python


def test_the_wheel_is_the_same_in_both_languages():
    site = _site()
    en, ja = (sorted((site / lang / "_static").glob("attnprof-*.whl")) for lang in ("en", "ja"))
    assert len(en) == len(ja) == 1 and en[0].read_bytes() == ja[0].read_bytes()


def test_a_downloaded_script_runs_outside_the_repository(venv: Path, tmp_path: Path):
    script = shutil.copy(_download(_site(), "en", f"{SCRIPT}.py"), tmp_path)
    run = _run([str(venv), script], tmp_path)
    assert "running: [1, 4, 256, 64] bfloat16 on cpu" in run.stdout
    assert "relative error against float64" in run.stdout and "sdpa_flash_fwd" in run.stdout
    assert (tmp_path / "attnprof-results" / "sdpa_flash__prefill__1x4x256x64__bfloat16__cpu.json").is_file()
    where = _run([str(venv), "-c", "import attnprof; print(attnprof.__file__)"], tmp_path).stdout.strip()
    assert Path(where).is_relative_to(venv.parent.parent) and not Path(where).is_relative_to(ROOT)


_EXECUTE = """\
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
nb.cells.append(nbformat.v4.new_code_cell("import attnprof; print('attnprof from', attnprof.__file__)"))
NotebookClient(nb, kernel_name=sys.argv[3], timeout=900, resources={"metadata": {"path": "."}}).execute()
nbformat.write(nb, sys.argv[2])
"""


def test_a_downloaded_japanese_notebook_runs_in_a_jupyter_kernel(venv: Path, tmp_path: Path):
    notebook = shutil.copy(_download(_site(), "ja", f"{SCRIPT}.ipynb"), tmp_path)
    source = json.loads(Path(notebook).read_text(encoding="utf-8"))
    cells = {kind: "".join("".join(c["source"]) for c in source["cells"] if c["cell_type"] == kind)
             for kind in ("markdown", "code")}  # fmt: skip
    assert "実行する: flash" in cells["markdown"] and "# 表示する出力と図の言語" in cells["code"]
    assert 'settings.language("ja")' in cells["code"]  # the Japanese download prints in Japanese by itself
    _run([str(venv), "-c", _EXECUTE, notebook, "executed.ipynb", KERNEL], tmp_path)
    executed = json.loads((tmp_path / "executed.ipynb").read_text(encoding="utf-8"))
    printed = "".join(
        "".join(out.get("text", "")) for c in executed["cells"] if c["cell_type"] == "code" for out in c["outputs"]
    )
    assert "実行: [1, 4, 256, 64] bfloat16、cpu 上" in printed and "float64 との相対誤差" in printed
    assert "sdpa_flash: [1, 4, 256, 64] bfloat16、cpu 上" in printed
    where = Path(printed.split("attnprof from ")[1].split()[0])
    assert where.is_relative_to(venv.parent.parent)
    assert (tmp_path / "attnprof-results" / "sdpa_flash_trace.json").is_file()
