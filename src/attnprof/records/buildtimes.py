"""Where one language's docs build spent its time: the file the Sphinx extension writes and the site builder reads.

One JSON file, :data:`FILENAME`, in the doctree folder of each language's build
(:mod:`attnprof.sphinxext.buildtimes` writes it at the end of the build; :mod:`attnprof.site.timetable` reads it).
Seconds throughout.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from attnprof.records import schema
from attnprof.records.results import json_bytes, write_if_changed

#: The file's name, in the build's doctree folder.
FILENAME = "attnprof-times.json"


@dataclass
class LanguageTimes:
    """One language's build.

    Attributes:
        language: The build's ``language``.
        scripts: Each gallery script that ran, by file name, with its seconds (from before it ran to after its page
            was written); a script whose page was up to date did not run and is not listed.
        gallery_s: From ``builder-inited`` to the first page read: the gallery scripts and sphinx-gallery's own work.
        read_s: Reading the pages (and the extension's work there: analysis, pictures).
        write_s: Writing the HTML.
        read_docs: The pages read (a rebuild with nothing changed reads none).
        sweep_s: The sweep's own time (its file's ``elapsed_s``) when a script of this build measured it, else
            ``None``; a part of that script's time.
        trainscale_s: The training-scale grid's own time (its file's ``elapsed_s``) when a script of this build
            measured it, else ``None``; a part of that script's time.
    """

    language: str
    scripts: dict[str, float] = field(default_factory=dict)
    gallery_s: float = 0.0
    read_s: float = 0.0
    write_s: float = 0.0
    read_docs: list[str] = field(default_factory=list)
    sweep_s: float | None = None
    trainscale_s: float | None = None


def save(times: LanguageTimes, folder: str | Path) -> Path:
    """Write ``times`` into ``folder`` as :data:`FILENAME`; returns the path."""
    path = Path(folder) / FILENAME
    write_if_changed(path, json_bytes(dataclasses.asdict(times)))
    return path


def load(folder: str | Path) -> LanguageTimes:
    """The times saved in ``folder``.

    Raises:
        FileNotFoundError: if there are none.
        attnprof.records.files.UnreadableFile: for a file that does not hold them.
    """
    return schema.load(Path(folder) / FILENAME, _build, "a build's times")


def _build(data: Any) -> LanguageTimes:
    schema.check(LanguageTimes, data)
    return LanguageTimes(**data)
