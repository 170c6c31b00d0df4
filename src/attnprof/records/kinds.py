"""The register of record kinds: every kind of file a build writes, declared once.

A kind (:class:`Kind`) is declared in one line by the module of its record (``KIND = Kind("sweep", "sweep file",
Sweep)`` in :mod:`attnprof.records.sweep`): its stem, what a warning calls it, its record type (a dataclass with
``to_dict`` and ``from_dict``), the devices a page looks it up for, and what a results bundle files it under.
Everything per kind derives from that declaration:

* its file names (``<stem>__<device>.json``; a kind without devices has one file, ``<stem>.json``), and whether a
  file name is one of its files (:meth:`Kind.holds`);
* saving (:meth:`Kind.save`: deterministic JSON, written only when it changes) and loading (:meth:`Kind.load`),
  always through :func:`attnprof.records.schema.load`: the layout's version first (the record's ``schema_version``
  field, or the one the declaration names, and its ``kind`` field when it has one), then every field's type
  (:func:`attnprof.records.schema.check`), then the record's own ``from_dict``; anything wrong is one
  :class:`~attnprof.records.files.UnreadableFile` line naming the file;
* finding it in a results folder (:meth:`Kind.find`: the first device of :attr:`Kind.devices` that has a file, CUDA
  before the CPU);
* which member of a results bundle it is (:func:`bundle_kind`), the page lookup
  (:func:`attnprof.sphinxext.lookup.find_record`), which gallery script writes it (from the scripts' own
  ``sphinx_gallery_attnprof_writes`` declarations, :mod:`attnprof.sphinxext.gallery`), and the tests that plant a
  wrong field in a file of every kind.

:func:`every` is the register: every kind declared by a module of this package, in the order declared.

No torch here.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import importlib
import os
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from attnprof.records import files, schema
from attnprof.records.files import StaleResultError

T = TypeVar("T")

#: The devices a kind is looked up for unless it says otherwise, in the order a page prefers them.
DEVICES: tuple[str, ...] = ("cuda", "cpu")
#: What a results bundle files a member under (:mod:`attnprof.records.bundle`): its own kinds, and ``"other"``.
BUNDLE_KINDS: tuple[str, ...] = ("result", "trace", "sweep", "parallel", "other")

_DECLARED: list[Kind[Any]] = []


@dataclass(frozen=True, eq=False)
class Kind(Generic[T]):
    """One kind of file a build writes.

    Attributes:
        stem: The start of its file names: ``sweep`` names ``sweep__cuda.json`` and ``sweep__cpu.json``.
        what: What a warning calls a file of the kind (``"sweep file"``).
        record: The dataclass a file holds: its fields' types are checked before ``record.from_dict`` builds it,
            and ``record.to_dict`` is what is saved.
        devices: The devices a page looks it up for, preferred first; ``()`` for a kind with one file,
            ``<stem>.json``, whatever the device.
        bundle: What a results bundle files it under (one of :data:`BUNDLE_KINDS`), or ``None`` for a kind that no
            bundle carries.
        version: The document's key that versions the layout; its value must be the default of the record's field
            of that name, or :attr:`version_number`.
        version_number: The version the layout is at, for a record whose version is no field of its own.
        pattern: The file names of the kind (a glob), when they are not ``<stem>__<device>.json``.
        name: A record's file name, when it is not ``<stem>__<record.device>.json``.
    """

    stem: str
    what: str
    record: type[T]
    devices: tuple[str, ...] = DEVICES
    bundle: str | None = "other"
    version: str | None = "schema_version"
    version_number: int | None = None
    pattern: str | None = None
    name: Callable[[T], str] | None = None

    def __post_init__(self) -> None:
        if self.bundle is not None and self.bundle not in BUNDLE_KINDS:
            raise ValueError(f"unknown bundle kind {self.bundle!r}; choose one of: {', '.join(BUNDLE_KINDS)}")
        _DECLARED.append(self)

    # --- names ---------------------------------------------------------------------------------------------------

    def filename(self, device: str | None = None) -> str:
        """The file of ``device`` (``sweep__cuda.json``); of a kind without devices, its one file."""
        return f"{self.stem}.json" if not self.devices or device is None else f"{self.stem}__{device}.json"

    def filenames(self) -> list[str]:
        """The files a page looks for, preferred first (the glob, for a kind of many files)."""
        if self.pattern is not None:
            return [self.pattern]
        return [self.filename(d) for d in self.devices] if self.devices else [self.filename()]

    def filename_of(self, record: T) -> str:
        """The file a record is saved as."""
        if self.name is not None:
            return self.name(record)
        return self.filename(getattr(record, "device", None))

    def holds(self, name: str) -> bool:
        """Whether a file called ``name`` is one of this kind's files."""
        if self.pattern is not None:
            return fnmatch.fnmatchcase(name, self.pattern)
        return name == self.filename() if not self.devices else fnmatch.fnmatchcase(name, f"{self.stem}__*.json")

    @property
    def label(self) -> str:
        """What a version message calls the layout: ``what`` without ``" file"`` (``"sweep"``)."""
        return self.what.removesuffix(" file")

    # --- reading and writing -------------------------------------------------------------------------------------

    def _version(self) -> int | None:
        if self.version is None:
            return None
        if self.version_number is not None:
            return self.version_number
        field = next((f for f in dataclasses.fields(self.record) if f.name == self.version), None)  # type: ignore[arg-type]
        return None if field is None else field.default

    def _kind_field(self) -> str | None:
        field = next((f for f in dataclasses.fields(self.record) if f.name == "kind"), None)  # type: ignore[arg-type]
        return None if field is None or not isinstance(field.default, str) else field.default

    def build(self, data: Any) -> T:
        """A record from a parsed document, checked first: its layout's version (and ``kind``), then the type of
        every field (:func:`attnprof.records.schema.check`).

        Raises:
            attnprof.records.files.StaleResultError: for another version, or a document of another kind.
            attnprof.records.files.UnreadableFile: naming the first field of the wrong type.
        """
        number, kind = self._version(), self._kind_field()
        if number is not None:
            found = data.get(self.version) if isinstance(data, dict) else None
            other = kind is not None and (not isinstance(data, dict) or data.get("kind") != kind)
            if found != number or other:
                also = f" (or not a {self.what})" if kind is not None else ""
                raise StaleResultError(f"{self.label} schema version {found!r} is not the supported version {number}"
                                       f"{also}")  # fmt: skip
        schema.check(self.record, data)
        return self.record.from_dict(data)  # type: ignore[attr-defined]

    def load(self, path: str | os.PathLike[str]) -> T:
        """Read a file of the kind (:func:`attnprof.records.schema.load`, through :meth:`build`).

        Raises:
            FileNotFoundError: if there is no such file.
            attnprof.records.files.UnreadableFile: for a file that cannot be read, is not JSON, or is not of this
                kind at this version (one line naming the file and, where one is, the first bad field).
        """
        article = "an" if self.what[:1].lower() in "aeiou" else "a"
        return schema.load(path, self.build, f"{article} {self.what}")

    def dumps(self, record: T) -> bytes:
        """The deterministic bytes a record is saved as (:func:`attnprof.records.files.json_bytes`)."""
        return files.json_bytes(record.to_dict())  # type: ignore[attr-defined]

    def save(self, record: T, directory: str | os.PathLike[str]) -> Path:
        """Write ``record`` into ``directory`` as :meth:`filename_of`, only when its content changed (so that its
        modification time, which pages depend on, stays). Returns the path."""
        path = Path(directory) / self.filename_of(record)
        files.write_if_changed(path, self.dumps(record))
        return path

    def paths(self, directory: str | os.PathLike[str]) -> list[Path]:
        """Every file of the kind in ``directory``, the preferred device's first (:meth:`order`)."""
        folder = Path(directory)
        if self.pattern is None:
            return [p for p in (folder / n for n in self.filenames()) if p.is_file()]
        return self.order([p for p in folder.glob(self.pattern) if p.is_file()])

    def find(self, directory: str | os.PathLike[str]) -> Path | None:
        """The kind's file in ``directory`` that a page shows: the first of :meth:`paths`, else ``None``."""
        return next(iter(self.paths(directory)), None)

    def order(self, paths: list[Path]) -> list[Path]:
        """``paths`` with the preferred device's files first (the device is a name's last ``__`` part), then by
        name."""
        rank = {d: i for i, d in enumerate(self.devices)}
        return sorted(paths, key=lambda p: (rank.get(p.name.removesuffix(".json").rsplit("__", 1)[-1], len(rank)),
                                            p.name))  # fmt: skip


@functools.cache
def every() -> tuple[Kind[Any], ...]:
    """The register: every kind declared by a module of :mod:`attnprof.records`, in the order declared."""
    package = Path(__file__).parent
    for module in sorted(m.name for m in pkgutil.iter_modules([str(package)])):
        importlib.import_module(f"attnprof.records.{module}")
    return tuple(_DECLARED)


def named(what: str) -> Kind[Any]:
    """The kind a warning calls ``what``.

    Raises:
        KeyError: for a name no kind has, listing the names.
    """
    found = next((k for k in every() if k.what == what), None)
    if found is None:
        raise KeyError(f"no kind of file called {what!r}; the register has: {', '.join(k.what for k in every())}")
    return found


def kind_of(name: str) -> Kind[Any] | None:
    """The kind a file called ``name`` is of, or ``None`` (a trace, a script's scratch file)."""
    return next((k for k in every() if k.holds(name)), None)


def bundle_kind(name: str) -> str | None:
    """What a results bundle files a file called ``name`` under (:data:`BUNDLE_KINDS`), or ``None`` for a file a
    bundle does not take: a gzipped trace is ``"trace"``; a record file, its kind's :attr:`Kind.bundle`."""
    if name.endswith(".json.gz"):
        return "trace"
    kind = kind_of(name)
    return None if kind is None else kind.bundle
