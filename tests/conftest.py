"""Shared fixtures: result folders made from the real H200 traces, and one tiny Sphinx project builder.

Helpers that are not fixtures live in ``helpers.py``.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from attnprof.records import fixedcosts, results, sweep
from attnprof.records.fixedcosts import FixedCosts
from attnprof.records.results import CpuCosts
from attnprof.records.sweep import Sweep
from helpers import TRACE_VARIANTS, TRAIN_VARIANTS, decode_results, trace_result, train_result

pytest_plugins = ("sphinx.testing.fixtures",)

#: conf.py of the projects :func:`project` builds; ``{extra}`` takes a test's own settings.
CONF = """\
extensions = ["myst_parser", "attnprof.sphinxext"]
myst_enable_extensions = ["colon_fence", "deflist"]
attnprof_results_dir = {results!r}
locale_dirs = ["locales/"]
gettext_compact = False
exclude_patterns = ["_build", "locales"]
{extra}
"""


def save_results(folder: Path, variants: tuple[str, ...] = TRACE_VARIANTS) -> Path:
    """Write fixture results (from the H200 traces) of ``variants`` into ``folder``; returns it."""
    for v in variants:
        result, raw = trace_result(v)
        results.save(result, folder, raw)
    return folder


@pytest.fixture
def make_results(tmp_path: Path) -> Callable[..., Path]:
    """Write fixture results into a folder; returns a function ``(variants, folder=None) -> folder``."""
    return lambda variants=TRACE_VARIANTS, folder=None: save_results(folder or tmp_path / "results", variants)


def _builder(root: Path, make_app: Callable) -> Callable:
    """The ``project`` function of a folder ``root`` (see :func:`project`)."""
    apps: list = []

    def build(
        pages: dict[str, str],
        variants: tuple[str, ...] = ("naive", "naive_inplace", "sdpa_flash"),
        *,
        sweep_data: Sweep | None = None,
        cpu_costs: CpuCosts | None = None,
        fixed: FixedCosts | None = None,
        workloads: bool = False,
        language: str = "en",
        builder: str = "html",
        conf: str = "",
        extra: dict[str, str] | None = None,
        **overrides: object,
    ):
        src = root / "src"
        folder = root / "results"
        if variants:
            save_results(folder, variants)
        folder.mkdir(parents=True, exist_ok=True)
        if sweep_data is not None:
            sweep.save(sweep_data, folder)
        if cpu_costs is not None:
            results.save_cpu_costs(cpu_costs, folder)
        if fixed is not None:
            fixedcosts.save(fixed, folder)
        if workloads:
            for r in [*(train_result(v) for v in TRAIN_VARIANTS), *decode_results()]:
                results.save(r, folder)
        src.mkdir(exist_ok=True)
        (src / "conf.py").write_text(CONF.format(results=str(folder), extra=conf))
        for name, text in {**pages, **(extra or {})}.items():
            path = src / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text), encoding="utf-8")
        builddir = src / "_build" / f"{builder}-{language}"
        if apps:
            apps[-1].cleanup()
        app = make_app(builder, srcdir=src, builddir=builddir, confoverrides={"language": language, **overrides})
        apps.append(app)
        app.build()
        return app

    return build


@pytest.fixture
def project(tmp_path: Path, make_app: Callable) -> Callable:
    """``project(pages, variants=..., sweep=None, cpu_costs=None, fixed=None, language=..., builder=..., conf="",
    extra={}, **confoverrides) -> app``: write the pages (and a results folder in ``tmp_path / "results"``), build,
    return the Sphinx app.

    ``variants`` are results made from the H200 traces; ``sweep``, ``cpu_costs`` and ``fixed`` are saved beside them
    when given; ``workloads`` adds the training and decoding results made from the 2xH200 recordings. ``conf`` is
    appended to conf.py. Several builds in one test are fine: the previous app's global docutils state is cleaned
    up first.
    """
    return _builder(tmp_path, make_app)


@pytest.fixture(scope="module")
def built_once(tmp_path_factory: pytest.TempPathFactory) -> Callable:
    """:func:`project` for the tests of a module that only read what a build wrote: each distinct call builds once
    per module (in its own folder), and later calls with the same arguments get that app back. The app is cleaned
    up right after its build (its pages, doctrees and environment stay), so other builds may follow."""
    from sphinx.testing.util import SphinxTestApp

    built: dict[str, object] = {}

    def make_app(*args: object, **kwargs: object) -> SphinxTestApp:
        return SphinxTestApp(*args, status=io.StringIO(), warning=io.StringIO(), **kwargs)  # type: ignore[arg-type]

    def build(pages: dict[str, str], *args: object, **kwargs: object):
        key = repr((sorted(pages.items()), args, sorted(kwargs.items())))
        if key not in built:
            app = _builder(tmp_path_factory.mktemp("project"), make_app)(pages, *args, **kwargs)
            app.cleanup()
            built[key] = app
        return built[key]

    return build


@pytest.fixture(scope="session")
def cpu_grid():
    """The eligibility map measured for real on the CPU at a small base case, once per session."""
    from attnprof.measure import eligibility
    from attnprof.records.eligibility import Case

    return eligibility.measure_grid("cpu", base=Case((2, 4, 16, 64), "bfloat16"), reuse=False)
