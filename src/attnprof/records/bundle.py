"""Results bundles: a build's (or one run's) files carried to another machine, with where they were measured.

A bundle is one gzipped tar archive (``NAME.tar.gz``) of flat members: ``manifest.json`` first, then the files it
lists (result files, their traces, the sweep, the context-parallel run, the other files of a results folder). The
manifest (format :data:`FORMAT`, version :data:`BUNDLE_VERSION`) holds the :class:`Provenance` (GPU model and count,
driver, CUDA, cuDNN, PyTorch, attnprof version and commit, the date of the measurements and of the bundle) and, per
member, its kind, size and SHA-256.

Reading (:func:`read`) checks everything before anything is used, and raises
:class:`attnprof.records.files.UnreadableFile` with one line for each way a bundle can be bad: too large, not gzip or
truncated, not a tar archive, too many members, a member that is not a plain file or whose name is a path (``..``,
``/``: nothing is ever written from a bundle, but such a name is refused all the same), a member larger than
:data:`MAX_MEMBER_BYTES`, a missing or malformed manifest, a bundle of a newer version, a member that is not what the
manifest says (size, checksum) or not listed in it. Members are read into memory (the archive is bounded), and each
member's content is checked by the reader of its kind when it is used (:meth:`Bundle.results`, ...).

No torch here.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import tarfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from attnprof.records import files, kinds, parallel, results, sweep
from attnprof.records.files import UnreadableFile

T = TypeVar("T")

FORMAT = "attnprof-bundle"
BUNDLE_VERSION = 1
MANIFEST = "manifest.json"
SUFFIX = ".tar.gz"
#: The most bytes read from a bundle file, and the most its archive may decompress to.
MAX_BUNDLE_BYTES = 256 * 2**20
MAX_ARCHIVE_BYTES = 1 << 30
#: The most members (manifest included) and the largest member.
MAX_MEMBERS = 4096
MAX_MEMBER_BYTES = 128 * 2**20
#: What a member may be called: a flat file name, no folders, nothing hidden.
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,199}$")
#: The kinds of member, by name.
KINDS = kinds.BUNDLE_KINDS


@dataclass
class Provenance:
    """Where and when a bundle's files were measured, and who bundled them.

    Attributes:
        gpu_model: The device's name (``"NVIDIA H200"``), or the CPU's for a CPU build.
        gpu_count: How many GPUs the machine had for the measurement (0 for a CPU build).
        driver: The NVIDIA driver version, when recorded.
        cuda: The CUDA version torch was built with.
        cudnn: The cuDNN version.
        torch: The PyTorch version.
        attnprof_version: The attnprof version that measured.
        attnprof_commit: The git commit of attnprof that measured, when known.
        measured: Date (ISO 8601, UTC) of the latest measurement in the bundle.
        created: Date the bundle was made.
        label: A short name for the machine, shown beside each figure (``"2× NVIDIA H200"`` by default).
    """

    gpu_model: str
    gpu_count: int
    torch: str
    measured: str
    created: str
    driver: str | None = None
    cuda: str | None = None
    cudnn: str | None = None
    attnprof_version: str = ""
    attnprof_commit: str | None = None
    label: str = ""

    @property
    def machine(self) -> str:
        """The label, or the GPU count and model (``2× NVIDIA H200``)."""
        if self.label:
            return self.label
        return self.gpu_model if self.gpu_count <= 1 else f"{self.gpu_count}× {self.gpu_model}"

    @property
    def day(self) -> str:
        """The date of the measurements, without the time of day."""
        return self.measured[:10]


@dataclass(frozen=True)
class Member:
    """One file of a bundle, as the manifest lists it."""

    name: str
    kind: str
    bytes: int
    sha256: str


@dataclass
class Manifest:
    """What a bundle holds and where it comes from (``manifest.json``)."""

    provenance: Provenance
    members: list[Member] = field(default_factory=list)
    format: str = FORMAT
    bundle_version: int = BUNDLE_VERSION

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any, path: Path) -> Manifest:
        """The manifest in ``data``, checked.

        Raises:
            UnreadableFile: for another format, a newer version, or a field missing or of the wrong kind.
        """
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise UnreadableFile(f"bundle {path}: {MANIFEST} is not an {FORMAT} manifest", path)
        version = data.get("bundle_version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise UnreadableFile(f"bundle {path}: bundle_version {version!r} is not a whole number", path)
        if version > BUNDLE_VERSION:
            raise UnreadableFile(
                f"bundle {path} is of version {version}, newer than the version {BUNDLE_VERSION} this attnprof "
                "reads; update attnprof to read it",
                path,
            )
        if version < 1:
            raise UnreadableFile(f"bundle {path}: bundle_version {version} is not 1 to {BUNDLE_VERSION}", path)
        try:
            members = [Member(**m) for m in data["members"]]
            return cls(Provenance(**data["provenance"]), members, FORMAT, version)
        except (TypeError, KeyError) as exc:
            raise UnreadableFile(f"bundle {path}: malformed {MANIFEST}: {exc}", path) from None


def kind_of(name: str) -> str | None:
    """The kind of member a file name stands for (:data:`KINDS`), or ``None`` for a file a bundle does not take: a
    gzipped trace, or a file of a kind of the register whose declaration says what a bundle files it under
    (:func:`attnprof.records.kinds.bundle_kind`). A script's scratch export (``naive_trace.json``) is none of them."""
    return None if name == MANIFEST else kinds.bundle_kind(name)


@dataclass
class Bundle:
    """A bundle read and checked: its manifest and its members' bytes."""

    path: Path
    manifest: Manifest
    data: dict[str, bytes]

    @property
    def provenance(self) -> Provenance:
        return self.manifest.provenance

    @property
    def name(self) -> str:
        """The file name without :data:`SUFFIX`."""
        return self.path.name.removesuffix(SUFFIX)

    def names(self, kind: str) -> list[str]:
        """The members of ``kind``, in the manifest's order."""
        return [m.name for m in self.manifest.members if m.kind == kind]

    def json(self, name: str) -> Any:
        """The parsed JSON of member ``name``.

        Raises:
            UnreadableFile: if it is not JSON (UTF-8), naming the bundle and the member.
        """
        try:
            return json.loads(self.data[name].decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise UnreadableFile(f"bundle {self.path}: member {name} is not valid JSON: {exc}", self.path) from None

    def results(self) -> list[results.Result]:
        """Every result file of the bundle.

        Raises:
            UnreadableFile: for a member that is not a result of this schema version.
        """
        return [self._load(name, results.KIND) for name in self.names("result")]

    def parallel_run(self) -> parallel.ParallelRun | None:
        """The bundle's context-parallel run (the CUDA one first), or ``None``."""
        return self.record(parallel.KIND)

    def sweep(self) -> sweep.Sweep | None:
        """The bundle's sweep (the CUDA one first), or ``None``."""
        return self.record(sweep.KIND)

    def record(self, kind: kinds.Kind[T]) -> T | None:
        """The bundle's file of ``kind`` (its preferred device's), read as its kind reads it, or ``None``.

        Raises:
            UnreadableFile: for a member that is not a file of that kind at this version.
        """
        mine = [Path(n) for n in self.names(kind.bundle or "") if kind.holds(n)]
        names = [p.name for p in kind.order(mine)]
        return self._load(names[0], kind) if names else None

    def _load(self, name: str, kind: kinds.Kind[T]) -> T:
        try:
            return kind.build(self.json(name))
        except UnreadableFile as exc:
            if str(self.path) in str(exc):
                raise
            raise UnreadableFile(f"bundle {self.path}: member {name}: {exc}", self.path) from None


# --- writing --------------------------------------------------------------------------------------------------------


def collect(sources: Iterable[str | Path], traces: bool = True) -> list[Path]:
    """The files a bundle of ``sources`` takes: each folder's files of a known kind (:func:`kind_of`), each file
    named as it is; traces left out when ``traces`` is false.

    Raises:
        FileNotFoundError: for a source that is not there.
        UnreadableFile: for a named file whose kind a bundle does not take, or two files of one name.
    """
    out: dict[str, Path] = {}
    for source in map(Path, sources):
        if source.is_dir():
            found = [p for p in sorted(source.iterdir()) if p.is_file() and kind_of(p.name) is not None]
        elif source.exists():
            if kind_of(source.name) is None:
                raise UnreadableFile(
                    f"{source} is not a file a bundle takes; expected a results folder, or a .json or .json.gz file",
                    source,
                )
            found = [source]
        else:
            raise FileNotFoundError(f"{source} is not there; expected a results folder or a result file")
        for path in found:
            if not traces and kind_of(path.name) == "trace":
                continue
            if path.name in out and out[path.name] != path:
                raise UnreadableFile(f"two files named {path.name}: {out[path.name]} and {path}", path)
            out[path.name] = path
    return [out[name] for name in sorted(out)]


def provenance_of(paths: Iterable[Path], created: str, **given: Any) -> Provenance:
    """The provenance of the measurements in ``paths``: the environment of their result and run files (the latest
    measurement's), with the GPU count from the run file (its world) or the results (1 on CUDA, 0 on the CPU);
    ``given`` fields (``attnprof_commit``, ``label``, ``gpu_count``, ``driver``, ...) win over what was found.

    Raises:
        UnreadableFile: when no file names its environment (no result or run file), or one is unreadable.
    """
    envs: list[tuple[results.Environment, int]] = []
    for path in paths:
        kind = kind_of(path.name)
        if kind == "result":
            r = results.load(path)
            envs.append((r.environment, 1 if r.device == "cuda" else 0))
        elif kind == "parallel":
            run = parallel.load(path)
            envs.append((run.environment, run.world or len(run.gpus)))
    if not envs:
        raise UnreadableFile("no result or context-parallel run file among the files to bundle: nothing says where "
                             "they were measured")  # fmt: skip
    env = max(envs, key=lambda e: (e[0].date, e[1]))[0]
    found = dict(
        gpu_model=env.device_name,
        gpu_count=max(c for _, c in envs),
        torch=env.torch_version,
        measured=env.date,
        created=created,
        driver=env.driver_version,
        cuda=env.cuda_version,
        cudnn=env.cudnn_version,
        attnprof_version=env.attnprof_version,
    )
    found.update({k: v for k, v in given.items() if v is not None})
    return Provenance(**found)


def _tar_member(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), 0, 0o644
    tar.addfile(info, io.BytesIO(data))


def pack(contents: dict[str, bytes], provenance: Provenance) -> tuple[bytes, Manifest]:
    """The bytes of a bundle of ``contents`` (member name -> bytes) and its manifest. The same contents give the
    same bytes (sorted members, zero timestamps).

    Raises:
        UnreadableFile: for a name a bundle cannot hold or a member over the limits.
    """
    members = []
    for name in sorted(contents):
        kind = kind_of(name)
        if kind is None or not _NAME.match(name):
            raise UnreadableFile(f"cannot bundle {name!r}: expected a flat .json or .json.gz file name")
        if len(contents[name]) > MAX_MEMBER_BYTES:
            raise UnreadableFile(f"cannot bundle {name}: more than the {MAX_MEMBER_BYTES} bytes a member may hold")
        members.append(Member(name, kind, len(contents[name]), hashlib.sha256(contents[name]).hexdigest()))
    if len(members) + 1 > MAX_MEMBERS:
        raise UnreadableFile(f"cannot bundle {len(members)} files: a bundle holds at most {MAX_MEMBERS - 1}")
    manifest = Manifest(provenance, members)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        _tar_member(tar, MANIFEST, files.json_bytes(manifest.to_dict()))
        for m in members:
            _tar_member(tar, m.name, contents[m.name])
    return gzip.compress(raw.getvalue(), mtime=0), manifest


def create(paths: Iterable[Path], out: str | Path, provenance: Provenance) -> Manifest:
    """Write the bundle of ``paths`` to ``out`` atomically (a gzipped member is taken as it is).

    Raises:
        UnreadableFile: for a file that cannot be bundled; attnprof.records.files.BadPath for ``out``.
    """
    data, manifest = pack({p.name: files.read_bytes(p, MAX_MEMBER_BYTES) for p in paths}, provenance)
    files.atomic_write(out, data)
    return manifest


# --- reading --------------------------------------------------------------------------------------------------------


def _members(path: Path, archive: bytes) -> dict[str, bytes]:
    """The members of the uncompressed tar ``archive``, every limit checked."""
    out: dict[str, bytes] = {}
    try:
        tar = tarfile.open(fileobj=io.BytesIO(archive), mode="r:")
    except tarfile.TarError as exc:
        raise UnreadableFile(f"bundle {path} is not a tar archive: {exc}", path) from None
    with tar:
        try:
            for info in tar:
                if len(out) >= MAX_MEMBERS:
                    raise UnreadableFile(f"bundle {path} has more than {MAX_MEMBERS} members", path)
                if not _NAME.match(info.name):
                    raise UnreadableFile(
                        f"bundle {path}: member name {info.name!r} is refused; expected a flat file name "
                        "(letters, digits, _ . + -; no folders, no ..)",
                        path,
                    )
                if not info.isreg():
                    raise UnreadableFile(
                        f"bundle {path}: member {info.name} is not a plain file (a link, a folder or a device)", path
                    )
                if info.size > MAX_MEMBER_BYTES:
                    raise UnreadableFile(
                        f"bundle {path}: member {info.name} is {info.size} bytes, more than {MAX_MEMBER_BYTES}", path
                    )
                if info.name in out:
                    raise UnreadableFile(f"bundle {path}: member {info.name} appears twice", path)
                f = tar.extractfile(info)
                out[info.name] = f.read(info.size + 1) if f is not None else b""
                if len(out[info.name]) != info.size:
                    raise UnreadableFile(f"bundle {path}: member {info.name} is cut short", path)
        except tarfile.TarError as exc:
            raise UnreadableFile(f"bundle {path} is a damaged tar archive: {exc}", path) from None
    return out


def read(path: str | Path) -> Bundle:
    """Read and check the bundle at ``path`` (see the module docstring for every check).

    Raises:
        FileNotFoundError: if there is no such file.
        UnreadableFile: with one line naming the bundle and what is wrong.
    """
    path = Path(path)
    archive = files.gunzip(files.read_bytes(path, MAX_BUNDLE_BYTES), path, MAX_ARCHIVE_BYTES)
    data = _members(path, archive)
    if MANIFEST not in data:
        raise UnreadableFile(f"bundle {path} has no {MANIFEST}", path)
    try:
        manifest = Manifest.from_dict(json.loads(data.pop(MANIFEST).decode("utf-8")), path)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise UnreadableFile(f"bundle {path}: {MANIFEST} is not valid JSON: {exc}", path) from None
    listed = {m.name: m for m in manifest.members}
    for name in sorted(set(data) | set(listed)):
        if name not in data:
            raise UnreadableFile(f"bundle {path}: member {name} is listed in {MANIFEST} but missing", path)
        if name not in listed:
            raise UnreadableFile(f"bundle {path}: member {name} is not listed in {MANIFEST}", path)
        m = listed[name]
        if m.kind != kind_of(name):
            raise UnreadableFile(f"bundle {path}: member {name} is listed as {m.kind!r}, expected {kind_of(name)!r}",
                                 path)  # fmt: skip
        if len(data[name]) != m.bytes or hashlib.sha256(data[name]).hexdigest() != m.sha256:
            raise UnreadableFile(f"bundle {path}: member {name} does not match its size or SHA-256 in {MANIFEST}",
                                 path)  # fmt: skip
    return Bundle(path, manifest, data)


def find(directory: str | Path) -> list[Path]:
    """The bundles in ``directory`` (``*.tar.gz``, by name); none when it is not a folder."""
    directory = Path(directory)
    return sorted(directory.glob("*" + SUFFIX)) if directory.is_dir() else []
