"""Safe file I/O: check an output path before any work, write through one checked writer, read with bounds.

Every file attnprof writes goes through :func:`atomic_write` (a temporary file in the same folder, flushed to disk,
then renamed over the target; removed again on any failure or interrupt). A command checks where it will write with
:func:`check_output` before it starts measuring, so a bad path is refused in one line instead of after the work,
and writes with :func:`write_output`, the one checked writer: the path checked again, the content gzipped when the
name ends in ``.gz`` (plain otherwise), ``-`` to standard output. Only regular files (or new paths in an existing,
writable folder) are written: a device node, a directory, a FIFO or a socket is refused without being opened; a
read-only file or a symbolic link is refused unless the command was given ``--force``.

Every reader of the library (:func:`attnprof.records.results.load`, :func:`attnprof.records.results.load_cpu_costs`,
:func:`attnprof.records.trace.read_trace`, :func:`attnprof.records.sweep.load`,
:func:`attnprof.records.parallel.load`, :func:`attnprof.records.foreign.load`, ...) reads through
:func:`read_document`: gzip is decompressed as it streams in, and the reading stops as soon as it passes
:func:`max_read_bytes` bytes or holds more than :func:`max_objects` JSON objects (counted by their ``{``, before
anything is built), so a gzip bomb or a file of a million empty events costs memory near the limit, not near its
content. ``ATTNPROF_MAX_READ_MB`` and ``ATTNPROF_MAX_OBJECTS`` raise the limits. Every reader raises one error type
for a file it cannot use, :class:`UnreadableFile` (a ``ValueError``): truncated or corrupt gzip, not JSON, not of the
expected format or schema version, a field of the wrong type (:mod:`attnprof.records.schema`), not a regular file, too
large. A path with no file at all raises ``FileNotFoundError``. :class:`attnprof.records.results.StaleResultError`
(another schema version) is a kind of :class:`UnreadableFile`.

No torch here.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import stat
import tempfile
import zlib
from pathlib import Path
from typing import IO, Any

#: The most bytes a reader takes from one file (or, for ``.gz``, decompresses from it).
MAX_READ_BYTES = 1 << 30


class UnreadableFile(ValueError):
    """A file that attnprof cannot use: corrupt gzip, not JSON, another format or schema version, not a regular
    file, or too large. The message names the file, what is wrong, and (when known) how to fix it.

    Attributes:
        path: The file, when known.
    """

    def __init__(self, message: str, path: str | os.PathLike[str] | None = None) -> None:
        # one line, whatever the file held: a line break inside a quoted key or value is shown escaped
        super().__init__(message.replace("\r", "\\r").replace("\n", "\\n"))
        self.path = None if path is None else Path(path)


class StaleResultError(UnreadableFile):
    """A record file written by another schema version (or not a file of its kind at all): one kind of
    :class:`UnreadableFile`."""


class BadPath(ValueError):
    """An output path that cannot be written (a device, a directory, a FIFO, a folder that is not there, ...).

    The message is one line naming the path and what would be accepted.
    """


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words (``None`` for a regular file)."""
    for test, name in (
        (stat.S_ISREG, None),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _q(path: object, width: int = 80) -> str:
    """A path as a message quotes it: its ``repr`` (control characters escaped), shortened in the middle when long
    (as :func:`attnprof.words.fmt.quoted_path`, which this floor cannot import)."""
    text = str(path)
    if len(text) > width:
        text = text[: width // 2] + "…" + text[-(width // 2 - 1) :]
    return repr(text)


_ACCEPTED = "expected a regular file, or a new file in an existing folder you can write to"


def _stat(path: Path) -> os.stat_result | None:
    """``os.stat(path)`` (following links), or ``None`` when nothing is there."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None  # a parent is a file: reported by the folder check
    except (OSError, ValueError) as exc:
        raise BadPath(f"cannot use {_q(path)}: {_why(exc)}; {_ACCEPTED}") from None


def _why(exc: BaseException) -> str:
    """An OS error in a few words, without the path (the message names it already)."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def check_output(
    path: str | os.PathLike[str], what: str = "output file", *, force: bool = False, stdout: bool = False
) -> Path:
    """Check that ``path`` can be written, before any work starts; returns the path to write.

    Accepted: an existing regular file that can be written, or a new name in an existing folder where a file can
    really be created (tried with a temporary file, removed at once; this also catches folders that even root
    cannot write, such as ``/proc``); with ``force``, also a read-only file (replaced, keeping its mode) and a
    symbolic link to a regular file (the file it points to is written). ``-`` is standard output when ``stdout``
    (then ``Path("-")`` is returned; a file named ``-`` is ``./-``), refused otherwise. Refused: an empty string, a
    directory, a device, a FIFO, a socket, a path under a regular file, a folder that does not exist.

    Raises:
        BadPath: with one line naming ``path``, what is wrong and what is accepted.
    """
    text = os.fspath(path)
    if not str(text).strip():
        raise BadPath(f"empty {what} path; {_ACCEPTED}")
    if "\0" in str(text):
        raise BadPath(f"bad {what} path {_q(text)}: it contains a NUL character; {_ACCEPTED}")
    if text == STDOUT:
        if stdout:
            return Path(STDOUT)
        raise BadPath(f"{what} '-' (standard output) is not accepted here; give a file name (./- for a file named -)")
    target = Path(os.path.realpath(text))
    st = _stat(target)
    if st is not None:
        kind = _kind(st.st_mode)
        if kind is not None:
            raise BadPath(f"{what} {_q(text)} is {kind}; {_ACCEPTED}")
        if not force and (not stat.S_IMODE(st.st_mode) & 0o222 or not os.access(target, os.W_OK)):
            raise BadPath(f"{what} {_q(text)} is read-only (mode {stat.S_IMODE(st.st_mode):04o}); make it writable, "
                          "choose another name, or add --force to replace it")  # fmt: skip
    folder = target.parent
    fst = _stat(folder)
    if fst is None:
        missing = next((p for p in (folder, *folder.parents) if _stat(p) is not None), None)
        if missing is not None and not stat.S_ISDIR(os.stat(missing).st_mode):
            raise BadPath(f"{what} {_q(text)} is under {_q(missing)}, which is a file, not a folder; {_ACCEPTED}")
        raise BadPath(f"the folder of {what} {_q(text)} does not exist ({_q(folder)}); {_ACCEPTED}")
    if not stat.S_ISDIR(fst.st_mode):
        raise BadPath(f"{what} {_q(text)} is under {_q(folder)}, which is not a folder; {_ACCEPTED}")
    if not force and os.path.islink(text):
        raise BadPath(f"{what} {_q(text)} is a symbolic link to {_q(target)}; attnprof does not write through a "
                      "link: name the file itself, or add --force to write the file it points to")  # fmt: skip
    try:  # the real test: create a file there (permission bits, read-only mounts and /proc all answer here)
        fd, probe = tempfile.mkstemp(prefix=".attnprof-", suffix=".probe", dir=folder)
    except OSError as exc:
        raise BadPath(f"cannot create {what} {_q(text)} in {_q(folder)}: {_why(exc)}; {_ACCEPTED}") from None
    os.close(fd)
    os.unlink(probe)
    return target


def _new_file_mode() -> int:
    """The mode a new file gets from ``open()`` here: ``0o666`` less the umask."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def atomic_write(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file in the same folder, flushed to disk, renamed over
    ``path``. A reader sees the old content or the new, never a part. On any failure or interrupt the temporary
    file is removed and ``path`` is untouched. An existing file keeps its permission bits; a link is followed.

    Raises:
        BadPath: if ``path`` exists and is not a regular file (nothing is written then).
        OSError: if the folder cannot be written (full disk, permissions, ...).
    """
    target = Path(os.path.realpath(os.fspath(path)))
    st = _stat(target)
    if st is not None and _kind(st.st_mode) is not None:
        raise BadPath(f"{_q(path)} is {_kind(st.st_mode)}; {_ACCEPTED}")
    tmp = _stage(target, data)
    try:
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(target.parent)


def _stage(target: Path, data: bytes) -> Path:
    """``data`` in a temporary file beside ``target``, flushed to disk, with the mode ``target`` has (or a new
    file's); removed again on any failure or interrupt."""
    st = _stat(target)
    mode = stat.S_IMODE(st.st_mode) if st is not None else _new_file_mode()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:64]}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return Path(tmp)


def _sync_folder(folder: Path) -> None:
    """Flush the rename to disk (best effort: not every file system lets a folder be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def holds(path: str | os.PathLike[str], data: bytes) -> bool:
    """Whether ``path`` is a regular file whose content is exactly ``data``.

    Reads the file only when it is a regular file of exactly ``len(data)`` bytes, so a device, a FIFO or a huge
    file is never read.
    """
    st = _stat(Path(os.path.realpath(os.fspath(path))))
    if st is None or not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
        return False
    try:
        with open(path, "rb") as f:
            return f.read(len(data) + 1) == data
    except OSError:
        return False


# --- the one checked writer of a command's output -------------------------------------------------------------------

#: The output path that means standard output.
STDOUT = "-"
_GZIP_MAGIC = b"\x1f\x8b"


def wants_gzip(path: str | os.PathLike[str]) -> bool:
    """Whether a file of this name holds gzip: its name ends in ``.gz`` (the one rule of every writer and reader)."""
    return os.fspath(path).endswith(".gz")


def encoded(path: str | os.PathLike[str], data: bytes) -> bytes:
    """``data`` (plain, or already gzip) in the format ``path``'s name asks for: gzip (with a zero timestamp, so
    that equal content gives equal files) when it ends in ``.gz``, plain otherwise."""
    packed = data[:2] == _GZIP_MAGIC
    if wants_gzip(path) and not packed:
        return gzip.compress(data, mtime=0)
    if packed and not wants_gzip(path):
        return bytes(gunzip(data, path))
    return data


def write_output(
    path: str | os.PathLike[str],
    data: bytes | str,
    *,
    force: bool = False,
    what: str = "output file",
    out: IO[str] | None = None,
) -> None:
    """Write a command's output file: the path checked again (:func:`check_output`: a link or a read-only file is
    refused unless ``force``), the content in the format the name asks for (:func:`encoded`), written atomically
    (:func:`atomic_write`). ``path`` ``-`` writes the text to ``out`` (standard output) instead.

    Raises:
        BadPath: if the path cannot be written (it changed since the command checked it: a folder that vanished, a
            link put in its place, ...).
        OSError: if writing fails (a full disk, ...).
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if os.fspath(path) == STDOUT:
        if out is None:
            raise BadPath(f"{what} '-' (standard output) is not accepted here; give a file name")
        getattr(out, "write_data", out.write)(bytes(encoded("out.json", raw)).decode("utf-8"))  # JSON: escapes kept
        return
    target = check_output(path, what, force=force)
    atomic_write(target, encoded(path, raw))


def stage_output(path: str | os.PathLike[str], data: bytes | str, *, force: bool = False,
                 what: str = "output file") -> tuple[Path, Path]:  # fmt: skip
    """The first half of :func:`write_output` for a command with several output files: the path checked again, the
    content (in the format the name asks for) written to a temporary file beside it and flushed to disk; returns
    ``(temporary file, target)`` for :func:`commit` (or :func:`discard`). Nothing is replaced yet, so a command
    stopped before it has committed every output leaves none of them behind.

    Raises:
        BadPath: if the path cannot be written.
        OSError: if writing fails (a full disk, ...); the temporary file is removed.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    target = check_output(path, what, force=force)
    return _stage(target, encoded(path, raw)), target


def commit(staged: list[tuple[Path, Path]]) -> None:
    """Rename each staged temporary file over its target (:func:`stage_output`): renames only, microseconds."""
    for tmp, target in staged:
        os.replace(tmp, target)
        _sync_folder(target.parent)


def discard(staged: list[tuple[Path, Path]]) -> None:
    """Remove the staged temporary files that are still there."""
    for tmp, _ in staged:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _identity(path: str | os.PathLike[str]) -> tuple[str, tuple[int, int] | None]:
    """Where ``path`` leads: its real path (links and ``..`` resolved) and, when it exists, its device and inode
    (a hard link to the same file has other names but the same inode)."""
    real = os.path.realpath(os.fspath(path))
    try:
        st = os.stat(real)
    except (OSError, ValueError):
        return real, None
    return real, (st.st_dev, st.st_ino)


def clash(outputs: dict[str, str | os.PathLike[str] | None],
          inputs: dict[str, str | os.PathLike[str] | None] | None = None) -> str | None:  # fmt: skip
    """Why these outputs cannot be written, or ``None``: an output that is one of the inputs, or the same file as
    another output, resolved through symbolic links, ``..`` and hard links. Keys name each path as the command line
    does (``--json``, ``TRACE``); ``None`` and ``-`` (standard output) are left out. A command refuses this before
    it reads or writes anything; ``--force`` does not override it: a file is never read and written by one run."""
    seen: list[tuple[str, str, tuple[str, tuple[int, int] | None]]] = []
    for role, group in (("input", inputs or {}), ("output", outputs)):
        for name, path in group.items():
            if path is None or os.fspath(path) == STDOUT:
                continue
            me = _identity(path)
            for other_role, other, them in seen:
                if me[0] == them[0] or (me[1] is not None and me[1] == them[1]):
                    shown = _q(os.fspath(path))
                    if other_role == "input":
                        return (f"{name} {shown} is the file {other} reads; attnprof never writes over its input: "
                                "name another file")  # fmt: skip
                    return f"{name} {shown} is the same file as {other}; give each output a file of its own"
            seen.append((role, name, me))
    return None


# --- reading --------------------------------------------------------------------------------------------------------

#: The environment variable that raises (or lowers) the most bytes read from one file, decompressed, in megabytes.
MAX_READ_MB_ENV = "ATTNPROF_MAX_READ_MB"
#: The environment variable that raises (or lowers) the most JSON objects (``{``) one file may hold.
MAX_OBJECTS_ENV = "ATTNPROF_MAX_OBJECTS"
#: The most bytes a reader takes from one file (decompressed, for gzip) unless :data:`MAX_READ_MB_ENV` says more.
MAX_READ_BYTES = 512 << 20
#: The most ``{`` one file may hold (every JSON object opens with one: an event, its ``args``, a step...) unless
#: :data:`MAX_OBJECTS_ENV` says more; counted while the bytes come in, before anything is built from them.
MAX_OBJECTS = 8_000_000
_CHUNK = 1 << 20


def _env_limit(name: str, default: int, scale: int, example: str) -> int:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not (0 < number < 1 << 40):
        raise UnreadableFile(f"bad {name} {value[:40]!r}; expected a positive number such as {example}")
    return max(1, int(number * scale))


def max_read_bytes() -> int:
    """The most bytes read from one file: :data:`MAX_READ_BYTES`, or ``$ATTNPROF_MAX_READ_MB`` megabytes."""
    return _env_limit(MAX_READ_MB_ENV, MAX_READ_BYTES, 1 << 20, "2048")


def max_objects() -> int:
    """The most JSON objects read from one file: :data:`MAX_OBJECTS`, or ``$ATTNPROF_MAX_OBJECTS``."""
    return _env_limit(MAX_OBJECTS_ENV, MAX_OBJECTS, 1, "20000000")


#: How a reader's bounds are raised, said after a refusal.
RAISE_HINT = f"to read it, raise the limit: {MAX_READ_MB_ENV}=<megabytes>"


def _too_big(path: Path, limit: int, hint: str = RAISE_HINT) -> UnreadableFile:
    return UnreadableFile(
        f"{path} holds more than the {limit} bytes ({limit / (1 << 20):g} MB, decompressed) attnprof reads from "
        f"one file; {hint}",
        path,
    )


def _stat_input(path: Path, limit: int, hint: str = RAISE_HINT) -> os.stat_result:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as exc:
        raise UnreadableFile(f"cannot read {path}: {_why(exc)}", path) from None
    kind = _kind(st.st_mode)
    if kind is not None:
        raise UnreadableFile(f"cannot read {path}: it is {kind}, not a file", path)
    if st.st_size > limit:
        raise _too_big(path, limit, hint)
    return st


def read_bytes(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path`` as they are on disk (not decompressed), at most ``limit`` of them
    (:func:`max_read_bytes` by default).

    Raises:
        FileNotFoundError: if there is no such file.
        UnreadableFile: if it is not a regular file, is larger than ``limit``, or cannot be read.
    """
    path = Path(path)
    limit = max_read_bytes() if limit is None else limit
    _stat_input(path, limit)
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise UnreadableFile(f"cannot read {path}: {_why(exc)}", path) from None
    if len(data) > limit:
        raise UnreadableFile(f"{path} grew past {limit} bytes while being read", path)
    return data


def _drain(stream: IO[bytes], path: Path, limit: int, objects: int | None, hint: str = RAISE_HINT) -> bytearray:
    """Everything ``stream`` gives, a megabyte at a time, refused as soon as it passes ``limit`` bytes or (when
    given) ``objects`` JSON objects: nothing more than the limit is ever held."""
    out = bytearray()
    seen = 0
    try:
        while chunk := stream.read(_CHUNK):
            out += chunk
            if len(out) > limit:
                raise _too_big(path, limit, hint)
            if objects is not None:
                seen += chunk.count(b"{")
                if seen > objects:
                    raise UnreadableFile(
                        f"{path} holds more than {objects} JSON objects, the most attnprof reads from one file; "
                        f"to read it, raise the limit: {MAX_OBJECTS_ENV}=<count>",
                        path,
                    )
    except EOFError:
        raise UnreadableFile(
            f"{path} is a truncated gzip file (it ends before the compressed stream does)", path
        ) from None
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise UnreadableFile(f"{path} is not a valid gzip file: {_why(exc)}", path) from None
    except OSError as exc:
        raise UnreadableFile(f"cannot read {path}: {_why(exc)}", path) from None
    return out


def read_document(
    path: str | os.PathLike[str],
    limit: int | None = None,
    objects: int | None = None,
    gz: bool | None = None,
    hint: str = RAISE_HINT,
) -> bytearray:
    """The content of the regular file ``path``, gunzipped as it streams in, integrity checked, bounded.

    Args:
        path: The file.
        limit: The most bytes taken (decompressed): :func:`max_read_bytes` by default.
        objects: The most ``{`` the content may hold: :func:`max_objects` by default.
        gz: Whether the file is gzip: ``True`` (what a ``.gz`` name says; anything else is refused), ``False``
            (read as it is), ``None`` (whatever its first bytes say).

    Raises:
        FileNotFoundError: if there is no such file.
        UnreadableFile: for a file that is not a regular file, truncated or corrupt gzip, or more than either
            limit (refused as soon as the limit is passed, the message naming it and how to raise it).
    """
    path = Path(path)
    limit = max_read_bytes() if limit is None else limit
    objects = max_objects() if objects is None else objects
    _stat_input(path, limit, hint)
    try:
        with open(path, "rb") as f:
            if gz is None:
                gz = f.read(2) == _GZIP_MAGIC
                f.seek(0)
            if not gz:
                return _drain(f, path, limit, objects, hint)
            with gzip.GzipFile(fileobj=f) as stream:
                return _drain(stream, path, limit, objects, hint)
    except OSError as exc:
        raise UnreadableFile(f"cannot read {path}: {_why(exc)}", path) from None


def gunzip(data: bytes, path: str | os.PathLike[str], limit: int | None = None) -> bytearray:
    """Decompress the gzip ``data`` read from ``path``, checking its integrity (CRC and length), at most ``limit``
    bytes out (:func:`max_read_bytes` by default), a megabyte at a time.

    Raises:
        UnreadableFile: for a truncated or corrupt gzip stream, or one that decompresses to more than ``limit``.
    """
    limit = max_read_bytes() if limit is None else limit
    with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
        return _drain(stream, Path(path), limit, None)


def parse_json(data: bytes | bytearray, path: str | os.PathLike[str]) -> Any:
    """The JSON document in ``data`` (UTF-8) read from ``path``.

    Raises:
        UnreadableFile: for bytes that are not UTF-8 JSON, or nest too deeply.
    """
    path = Path(path)
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise UnreadableFile(f"{path} is not UTF-8 text: {exc.reason} at byte {exc.start}", path) from None
    except json.JSONDecodeError as exc:
        raise UnreadableFile(f"{path.name} is not valid JSON: {exc}", path) from None
    except RecursionError:
        raise UnreadableFile(f"{path.name} is not valid JSON: nested too deeply", path) from None


def read_json(path: str | os.PathLike[str], limit: int | None = None, objects: int | None = None) -> Any:
    """The parsed JSON in ``path`` (gzip-compressed when the name ends in ``.gz``), integrity checked and bounded
    (:func:`read_document`).

    Raises:
        FileNotFoundError: if there is no such file.
        UnreadableFile: for a file that is not a regular file, too large or holding too many objects, truncated or
            corrupt gzip, or not JSON (UTF-8).
    """
    data = read_document(path, limit, objects, gz=wants_gzip(path))
    return parse_json(data, path)


# --- writing a record: deterministic bytes, written only when they change --------------------


def json_bytes(data: dict[str, Any]) -> bytes:
    """Deterministic JSON (sorted keys, fixed indentation, UTF-8), so unchanged content gives unchanged bytes."""
    return (json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` unless the file already holds exactly that. Returns True if written.

    ``data`` is written in the format the name asks for (:func:`attnprof.records.files.encoded`: gzip when it ends
    in ``.gz``). Keeping unchanged files untouched keeps their timestamps, so Sphinx does not rebuild pages that
    depend on them. The old content is compared only when ``path`` is a regular file of the same size
    (:func:`attnprof.records.files.holds`); the new content is written atomically
    (:func:`attnprof.records.files.atomic_write`), the folder made first if needed.

    Raises:
        attnprof.records.files.BadPath: if ``path`` exists and is not a regular file (a device, a directory, a FIFO,
        ...).
    """
    path = Path(path)
    data = encoded(path, data)  # the name says the format: gzip for .gz, plain otherwise
    if holds(path, data):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, data)
    return True
