"""What a page depends on besides its source and the result files it reads: the list of result files, and the code
that renders it.

* A page that reads "every result there is" (the banner on every page, the claims, the decision) depends on the
  list of files in the results folder, not on the folder itself: Sphinx re-reads a page whose dependency is not a
  file on every build. :func:`note_results_folder` makes the page depend on :data:`LISTING`, a file in the build's
  doctree folder that holds that list, rewritten (:func:`write_listing`, once the gallery has run) only when a file
  appears or goes.
* The pages are what the package's code makes of the results: a change to that code re-reads every page. The
  extension's ``env_version`` is :func:`code_version`, a digest of the code that renders (every module but the
  measuring, command-line and site-building ones, and the package's templates, stylesheets and scripts); Sphinx
  starts from a fresh environment when it changes. A rebuild with nothing changed reads no page.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from attnprof.records.files import write_if_changed

#: The file, in each build's doctree folder, that lists the results folder (:func:`note_results_folder`).
LISTING = "attnprof-results-listing.txt"
#: Folders of the package whose code makes no page: measuring, the command line, building the site.
NOT_RENDERING = ("measure", "cli", "site")

_PACKAGE = Path(__file__).resolve().parent.parent


def write_listing(app: Sphinx) -> None:
    """Write the names of the files in the results folder into :data:`LISTING`, when they changed."""
    results_dir = Path(app.config.attnprof_results_dir)
    names = sorted(p.name for p in results_dir.iterdir() if p.is_file()) if results_dir.is_dir() else []
    write_if_changed(Path(app.doctreedir) / LISTING, "".join(f"{n}\n" for n in names).encode())


def note_results_folder(env: BuildEnvironment) -> None:
    """Make the page being read depend on the list of files in the results folder: it is read again when a file
    appears there or goes, not on every build (as a dependency on the folder itself would have it)."""
    env.note_dependency(str(Path(env.doctreedir) / LISTING))


@functools.cache
def code_version(package: Path = _PACKAGE) -> int:
    """A digest of the code that renders the pages (see the module docstring), as the int Sphinx wants."""
    digest = hashlib.sha256()
    for path in sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        rel = path.relative_to(package)
        if rel.parts[0] in NOT_RENDERING or path.suffix in (".pyc", ".typed"):
            continue
        digest.update(rel.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return int(digest.hexdigest()[:15], 16)


def setup_depends(app: Sphinx) -> None:
    """List the results folder once the gallery has run (sphinx-gallery runs the scripts at ``builder-inited``)."""
    app.connect("builder-inited", write_listing, priority=900)
