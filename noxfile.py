"""Development sessions: tests, lint, the bilingual docs build, translations.

Online: ``nox`` runs the default sessions (``tests``, ``lint``) in virtualenvs, installing from the dependency
groups of pyproject.toml. CPU environments pin ``torch==2.13.0`` (group ``cpu``). Environments are made with uv when
it is installed (virtualenv otherwise) and kept between runs: a session installs again only when what it would
install changed (pyproject.toml, or the groups it asks for), so a second ``nox -s docs`` goes straight to Sphinx.
``nox -R`` reuses an environment without installing anything; ``nox --reuse-venv=no`` starts from a fresh one.

Offline (the GPU builder, whose Python already has torch and the docs toolchain): ``python3 -m nox --no-venv -s
docs``. Without a virtualenv nothing is installed and commands run with the interpreter running nox.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

import nox

nox.needs_version = ">=2025.2.9"
nox.options.reuse_venv = "yes"
nox.options.default_venv_backend = "uv|virtualenv"

ROOT = Path(__file__).parent
PYPROJECT = nox.project.load_toml("pyproject.toml")
BUILD = ROOT / "_build"
LANGUAGES = ("en", "ja")
DOCS_LANGUAGE = LANGUAGES[0]
#: Where the docs build puts the wheel of attnprof that the gallery publishes (conf.py's attnprof_wheel_dir).
WHEEL_DIR = BUILD / "wheel"
#: What the wheel is built from: copied into a clean folder first, so that the in-tree build of setuptools leaves
#: nothing in the checkout and no stale file of an earlier build gets into the wheel.
WHEEL_SOURCES = ("pyproject.toml", "README.md", "src")


def _offline(session: nox.Session) -> bool:
    """True without a virtualenv (``--no-venv``): use what the running interpreter has."""
    return session.venv_backend == "none"


def _install(session: nox.Session, *groups: str, package: bool = True) -> None:
    """Install dependency groups (and the package, editable), unless running without a virtualenv, or unless the
    environment already has exactly this (a stamp in the environment records what was installed into it)."""
    if _offline(session):
        return
    requirements = nox.project.dependency_groups(PYPROJECT, *groups)
    args = [*requirements, *(["-e", "."] if package else [])]
    wanted = hashlib.sha256(json.dumps([args, (ROOT / "pyproject.toml").read_text()]).encode()).hexdigest()
    stamp = Path(session.virtualenv.location) / ".attnprof-installed"
    if stamp.is_file() and stamp.read_text() == wanted:
        session.log(f"{session.name}: environment up to date ({stamp}); `--reuse-venv=no` starts afresh")
        return
    session.install(*args)
    stamp.write_text(wanted)


def _python(session: nox.Session) -> str:
    """The interpreter to run tools with: the session's, or the one running nox when there is no virtualenv."""
    return sys.executable if _offline(session) else "python"


def _sphinx(session: nox.Session, *args: str) -> None:
    session.run(_python(session), "-m", "sphinx", *args)


#: The CPU test selection: every test that needs no GPU, no browser and no downloads of a built site.
CPU_TESTS = "not gpu and not browser and not download"


def _workers(session: nox.Session) -> list[str]:
    """``-n auto`` (pytest-xdist: one worker per core) where it is installed; a Python without it (``--no-venv``)
    runs the tests in one process."""
    if _offline(session) and importlib.util.find_spec("xdist") is None:
        return []
    return ["-n", "auto"]


@nox.session
def tests(session: nox.Session) -> None:
    """Run the whole CPU test suite (no GPU, no browser), on every core."""
    _install(session, "cpu", "test")
    session.run(_python(session), "-m", "pytest", *_workers(session), "-m", CPU_TESTS, *session.posargs)


@nox.session
def quick(session: nox.Session) -> None:
    """Run the CPU tests less the slow ones (each over 5 s: compiling, processes, a site): `nox -s tests` runs all."""
    _install(session, "cpu", "test")
    session.run(_python(session), "-m", "pytest", *_workers(session), "-m", f"({CPU_TESTS}) and not slow",
                *session.posargs)  # fmt: skip


@nox.session
def lint(session: nox.Session) -> None:
    """Check style and formatting with ruff, and the CI workflows (scripts/check_workflows.py)."""
    _install(session, "lint", package=False)
    session.run(_python(session), "-m", "ruff", "check", *session.posargs)
    session.run(_python(session), "-m", "ruff", "format", "--check", *session.posargs)
    session.run(_python(session), str(ROOT / "scripts" / "check_workflows.py"))


@nox.session(default=False)
def bundle(session: nox.Session) -> None:
    """Pack this build's results (_build/results) with their provenance into _build/bundle.tar.gz (after `nox -s
    docs` on a GPU; posargs go to `attnprof bundle create`: --out FILE, --label NAME, --no-traces, ...)."""
    _install(session)
    results = BUILD / "results"
    if not results.is_dir():
        session.error(f"no results in {results}: build the site first with `nox -s docs`")
    session.run(_python(session), "-m", "attnprof", "bundle", "create", "--from", str(results), "--out",
                str(BUILD / "bundle.tar.gz"), *session.posargs)  # fmt: skip


@nox.session(name="tests_gpu", default=False)
def tests_gpu(session: nox.Session) -> None:
    """Run the tests that need a CUDA GPU (on the GPU builder: nox --no-venv -s tests_gpu)."""
    _install(session, "test")
    session.run(_python(session), "-m", "pytest", "-m", "gpu", *session.posargs)


@nox.session(default=False)
def docs(session: nox.Session) -> None:
    """Build the site in English and Japanese into _build/html/{en,ja}, warnings as errors."""
    _install(session, "cpu", "docs")
    _build_wheel(session)
    # One language after the other, in one Python process (attnprof.site.builder says why), each from its own source
    # tree: English from docs/, Japanese from _build/src/ja, where attnprof.site.localize puts a copy of docs/ and the
    # gallery scripts translated through the catalogs. The English build's scripts measure and save their results in
    # _build/results; the Japanese build's scripts reuse those measurements (conf.py, attnprof.measure.reuse).
    session.run(_python(session), "-m", "attnprof.site.builder", "--root", str(ROOT), "--out", str(BUILD),
                *session.posargs)  # fmt: skip
    _write_redirect(BUILD / "html" / "index.html", f"{DOCS_LANGUAGE}/index.html")
    session.log(f"site: {BUILD / 'html' / 'index.html'}")


def _build_wheel(session: nox.Session) -> None:
    """Build the wheel of attnprof the site publishes into _build/wheel, unless it is newer than its sources."""
    sources = [
        path
        for name in WHEEL_SOURCES
        for path in ([ROOT / name] if (ROOT / name).is_file() else (ROOT / name).rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts and ".egg-info" not in str(path)
    ]
    newest = max(path.stat().st_mtime_ns for path in sources)
    wheels = list(WHEEL_DIR.glob("attnprof-*.whl"))
    if len(wheels) == 1 and wheels[0].stat().st_mtime_ns >= newest:
        return
    staging = BUILD / "wheel-src"
    for folder in (staging, WHEEL_DIR):
        shutil.rmtree(folder, ignore_errors=True)
    for path in sources:
        target = staging / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    # No build isolation: the offline GPU builder cannot download setuptools; the docs group installs it here.
    session.run(_python(session), "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w",
                str(WHEEL_DIR), str(staging))  # fmt: skip


@nox.session(default=False)
def browser(session: nox.Session) -> None:
    """Drive Chromium through the built site (pytest -m browser): run `nox -s docs` first."""
    site = Path(os.environ.get("ATTNPROF_SITE") or BUILD / "html")
    if not (site / DOCS_LANGUAGE / "index.html").is_file():
        session.error(f"no built site in {site}: build it first with `nox -s docs` (or set ATTNPROF_SITE)")
    # Chromium itself comes from the system (Debian: apt-get install chromium fonts-ipafont-gothic), not from
    # Playwright's browser download; the tests fail, and say so, without it.
    _install(session, "cpu", "test", "docs", "browser")  # docs: the viewer tests build a small site with furo
    session.run(_python(session), "-m", "pytest", "-m", "browser", *session.posargs)


@nox.session(default=False)
def downloads(session: nox.Session) -> None:
    """Run a script and a notebook downloaded from the built site in a fresh venv with only torch and its wheel."""
    site = Path(os.environ.get("ATTNPROF_SITE") or BUILD / "html")
    if not (site / DOCS_LANGUAGE / "index.html").is_file():
        session.error(f"no built site in {site}: build it first with `nox -s docs` (or set ATTNPROF_SITE)")
    # The test makes its own virtual environment (torch==2.13.0, the site's wheel, matplotlib, nbclient, ipykernel)
    # and runs the downloads outside this checkout; this session needs pytest alone (so no conftest, which imports
    # attnprof).
    _install(session, "downloads", package=False)
    session.run(_python(session), "-m", "pytest", "--noconftest", "-m", "download", "tests/test_downloads.py",
                *session.posargs)  # fmt: skip


@nox.session(name="docs-live", default=False)
def docs_live(session: nox.Session) -> None:
    """Serve the English site and rebuild it on every change (-- -D language=ja for Japanese)."""
    _install(session, "cpu", "docs", "docs-live")
    _build_wheel(session)
    session.run(
        _python(session),
        "-m",
        "sphinx_autobuild",
        "-c",
        ".",
        "docs",
        str(BUILD / "live"),
        "--watch",
        "src",
        "--watch",
        "examples",
        "--ignore",
        str(ROOT / "docs" / "auto_examples"),
        *session.posargs,
    )


@nox.session(default=False)
def i18n(session: nox.Session) -> None:
    """Extract the messages of every page and update the Japanese catalogs in docs/locales."""
    _install(session, "cpu", "docs")
    gettext_dir = BUILD / "gettext"
    if gettext_dir.exists():
        shutil.rmtree(gettext_dir)  # a stale .pot would bring back messages of deleted pages
    _sphinx(session, "-b", "gettext", "-W", "--keep-going", "-c", ".", "docs", str(gettext_dir), *session.posargs)
    # The gallery scripts' line comments are on no page: extract them into examples/<script>.pot beside the rest.
    session.run(_python(session), "-m", "attnprof.site.localize", "extract", str(gettext_dir))
    session.run(
        _python(session),
        "-m",
        "sphinx_intl",
        "update",
        "-p",
        str(gettext_dir),
        "-d",
        str(ROOT / "docs" / "locales"),
        *[arg for lang in LANGUAGES[1:] for arg in ("-l", lang)],
    )


def _write_redirect(path: Path, target: str) -> None:
    """A root page that sends the browser to the default language (and links both for those without refresh)."""
    links = " · ".join(f'<a href="{lang}/index.html" hreflang="{lang}">{lang}</a>' for lang in LANGUAGES)
    path.write_text(
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="refresh" content="0; url={target}">\n'
        f'<link rel="canonical" href="{target}">\n<title>attnprof</title>\n</head>\n'
        f'<body><p>Redirecting to <a href="{target}">{target}</a>. Languages: {links}</p></body>\n</html>\n',
        encoding="utf-8",
    )
