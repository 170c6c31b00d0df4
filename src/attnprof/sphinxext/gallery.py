"""Which gallery script writes which result file, and re-running a script whose results are gone or newer than its
page.

Each gallery script declares the result files it writes, as glob patterns in the results folder, in a
file-level configuration comment of sphinx-gallery (which ignores names it does not know and, with
``remove_config_comments``, leaves the line out of the rendered page)::

    # sphinx_gallery_attnprof_writes = ["naive__prefill__*.json"]

sphinx-gallery runs a script again only when the script changed (its MD5 cache in the gallery folder, written when
the script has run). Before it looks (at ``builder-inited``), :func:`rerun_scripts_with_changed_results` deletes
that cache for every script

* whose declared results are missing, or whose result names a trace file that is missing, so deleting a stale or
  corrupt result file and building again is enough to make it anew (the messages of :mod:`.lookup` name the script
  and this fix: :func:`fix_for`);
* whose declared results are newer than the cache: another build wrote them after the script's page was made. So
  when the first language's script measures again, the other languages' scripts run again too and print what it
  measured (:mod:`attnprof.measure.reuse`); a rebuild with nothing changed runs nothing.
"""

from __future__ import annotations

import ast
import fnmatch
import os
import re
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util import logging

from attnprof.records import files

logger = logging.getLogger(__name__)

#: The configuration comment that declares a script's results.
_WRITES = re.compile(r"^[ \t]*#\s*sphinx_gallery_attnprof_writes\s*=\s*(.+)$", re.MULTILINE)


def declared_outputs(script: Path) -> list[str]:
    """The result-file patterns ``script`` declares (see the module docstring); ``[]`` when it declares none."""
    try:
        source = script.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    patterns: list[str] = []
    for match in _WRITES.finditer(source):
        try:
            value = ast.literal_eval(match.group(1).strip())
        except (SyntaxError, ValueError):
            continue
        patterns += [value] if isinstance(value, str) else [p for p in value if isinstance(p, str)]
    return patterns


def _folders(config: Config, srcdir: str | os.PathLike[str]) -> list[tuple[Path, Path]]:
    """``(examples folder, gallery folder)`` pairs of sphinx-gallery's configuration (none without it)."""
    conf = getattr(config, "sphinx_gallery_conf", None) or {}
    src = Path(srcdir)
    examples, galleries = conf.get("examples_dirs", []), conf.get("gallery_dirs", [])
    examples = [examples] if isinstance(examples, str) else list(examples)
    galleries = [galleries] if isinstance(galleries, str) else list(galleries)
    return [((src / e).resolve(), (src / g).resolve()) for e, g in zip(examples, galleries, strict=False)]


def scripts(config: Config, srcdir: str | os.PathLike[str]) -> dict[Path, list[str]]:
    """Every gallery script that declares results, with its patterns."""
    found = {}
    for examples, _ in _folders(config, srcdir):
        for script in sorted(examples.glob("*.py")):
            patterns = declared_outputs(script)
            if patterns:
                found[script] = patterns
    return found


def script_for(config: Config, srcdir: str | os.PathLike[str], filename: str) -> Path | None:
    """The gallery script that declares a result file called ``filename``, or ``None``."""
    found = scripts(config, srcdir).items()
    return next((s for s, patterns in found if any(fnmatch.fnmatch(filename, p) for p in patterns)), None)


def _trace_files(data: object) -> list[str]:
    """Every ``trace_file`` a result names: its own, or (a context-parallel run) one per rank of every case."""
    if isinstance(data, dict):
        own = [data["trace_file"]] if isinstance(data.get("trace_file"), str) else []
        return own + [t for v in data.values() if isinstance(v, dict | list) for t in _trace_files(v)]
    if isinstance(data, list):
        return [t for v in data for t in _trace_files(v)]
    return []


def missing_outputs(patterns: list[str], results_dir: Path) -> list[str]:
    """The patterns with no file in ``results_dir``, and the trace files that the matching results name (a run file:
    every rank's) but that are not there."""
    missing = []
    for pattern in patterns:
        matches = sorted(results_dir.glob(pattern))
        if not matches:
            missing.append(pattern)
        for path in matches:
            try:
                data = files.read_json(path)
            except (OSError, files.UnreadableFile):
                continue  # an unreadable file is the page's warning, with its own fix
            missing += [t for t in _trace_files(data) if not (results_dir / t).exists()]
    return missing


def _shown(script: Path) -> str:
    """A script's path as a warning shows it: relative to where the build runs (``examples/10-scaling.py``)."""
    return Path(os.path.relpath(script)).as_posix()


def writer_line(config: Config, srcdir: str | os.PathLike[str], filename: str) -> str:
    """Which gallery script writes a file called ``filename``, for a warning that it is missing (from the scripts'
    own declarations): ``examples/10-scaling.py writes it; did it run?``."""
    script = script_for(config, srcdir, filename)
    if script is None:
        return "no gallery script declares it (sphinx_gallery_attnprof_writes); run the one that writes it"
    return f"{_shown(script)} writes it; did it run?"


def fix_for(config: Config, srcdir: str | os.PathLike[str], path: Path) -> str:
    """How to make the result file ``path`` anew, for a warning: delete it and build again (naming the script that
    writes it), or run that script by hand."""
    name = path.name.removesuffix(".trace.json.gz") + ".json" if path.name.endswith(".trace.json.gz") else path.name
    script = script_for(config, srcdir, name)  # a trace is written with its result
    if script is None:
        return "delete it and run again the script that wrote it"
    shown = _shown(script)
    return (
        f"delete it and build again: the build then re-runs {shown}, which writes it (or run that script yourself: "
        f"ATTNPROF_RESULTS_DIR={path.parent} python {shown})"
    )


def newer_outputs(patterns: list[str], results_dir: Path, than_ns: int) -> list[str]:
    """The names of the files matching ``patterns`` in ``results_dir`` that were written after ``than_ns``."""
    found = {p for pattern in patterns for p in results_dir.glob(pattern)}
    return sorted(p.name for p in found if p.stat().st_mtime_ns > than_ns)


def rerun_scripts_with_changed_results(app: Sphinx) -> None:
    """Delete sphinx-gallery's MD5 cache of every script whose declared results are missing or newer than that
    cache (see the module docstring), so that it runs in this build."""
    results_dir = Path(app.config.attnprof_results_dir)
    folders = dict(_folders(app.config, app.srcdir))
    for script, patterns in scripts(app.config, app.srcdir).items():
        md5 = folders[script.parent] / f"{script.name}.md5"
        if not md5.exists():
            continue
        missing = missing_outputs(patterns, results_dir)
        newer = [] if missing else newer_outputs(patterns, results_dir, md5.stat().st_mtime_ns)
        if missing or newer:
            md5.unlink()
            what = ", ".join(missing or newer[:3])
            why = f"{what} missing from" if missing else f"{what} newer than its page, in"
            logger.info(f"attnprof: re-running {script.name}: {why} {results_dir}")


def setup_gallery(app: Sphinx) -> None:
    """Re-run gallery scripts whose results are missing or changed, before sphinx-gallery decides what to run."""
    app.connect("builder-inited", rerun_scripts_with_changed_results, priority=100)
