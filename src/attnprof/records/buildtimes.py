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

from attnprof.records import kinds


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

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LanguageTimes:
        return cls(**data)


#: One language build's times: ``attnprof-times.json`` in its doctree folder, whatever the device; no bundle takes it.
KIND: kinds.Kind[LanguageTimes] = kinds.Kind("attnprof-times", "build-times file", LanguageTimes, devices=(),
                                             bundle=None, version=None)  # fmt: skip
#: The file's name, in the build's doctree folder.
FILENAME = KIND.filename()


def save(times: LanguageTimes, folder: str | Path) -> Path:
    """Write ``times`` into ``folder`` as :data:`FILENAME`; returns the path."""
    return KIND.save(times, folder)


def load(folder: str | Path) -> LanguageTimes:
    """The times saved in ``folder``.

    Raises:
        FileNotFoundError: if there are none.
        attnprof.records.files.UnreadableFile: for a file that does not hold them.
    """
    return KIND.load(Path(folder) / FILENAME)
