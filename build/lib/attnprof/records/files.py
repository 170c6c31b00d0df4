"""Safe file I/O: check an output path before any work, write atomically, read with a size bound.

Every file attnprof writes goes through :func:`atomic_write` (a temporary file in the same folder, flushed to disk,
then renamed over the target; removed again on any failure or interrupt), and a command checks where it will write
with :func:`check_output` before it starts measuring, so a bad path is refused in one line instead of after the
work. Only regular files (or new paths in an existing, writable folder) are written: a device node, a directory, a
FIFO or a socket is refused without being opened.

Every reader of the library (:func:`attnprof.records.results.load`, :func:`attnprof.records.results.load_cpu_costs`,
:func:`attnprof.records.results.load_trace`, :func:`attnprof.records.trace.read_trace`,
:func:`attnprof.records.sweep.load`) raises one error type for a file it cannot use, :class:`UnreadableFile` (a
``ValueError``): truncated or corrupt gzip, not JSON, not of the expected format or schema version, not a regular
file, too large. A path with no file at all raises ``FileNotFoundError``.
:class:`attnprof.records.results.StaleResultError` (another schema version) is a kind of :class:`UnreadableFile`.

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
from typing import Any

#: The most bytes a reader takes from one file (or, for ``.gz``, decompresses from it).
MAX_READ_BYTES = 1 << 30


class UnreadableFile(ValueError):
    """A file that attnprof cannot use: corrupt gzip, not JSON, another format or schema version, not a regular
    file, or too large. The message names the file, what is wrong, and (when known) how to fix it.

    Attributes:
        path: The file, when known.
    """

    def __init__(self, message: str, path: str | os.PathLike[str] | None = None) -> None:
        super().__init__(message)
        self.path = None if path is None else Path(path)


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
        raise BadPath(f"cannot use {str(path)!r}: {_why(exc)}; {_ACCEPTED}") from None


def _why(exc: BaseException) -> str:
    """An OS error in a few words, without the path (the message names it already)."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def check_output(path: str | os.PathLike[str], what: str = "output file") -> Path:
    """Check that ``path`` can be written, before any work starts; returns the path to write.

    Accepted: an existing regular file (a link to one is followed: the file it points to is written), or a new
    name in an existing folder where a file can really be created (tried with a temporary file, removed at once;
    this also catches folders that even root cannot write, such as ``/proc``). Refused: an empty string, a
    directory, a device, a FIFO, a socket, a path under a regular file, a folder that does not exist.

    Raises:
        BadPath: with one line naming ``path`` and what is accepted.
    """
    text = os.fspath(path)
    if not str(text).strip():
        raise BadPath(f"empty {what} path; {_ACCEPTED}")
    if "\0" in str(text):
        raise BadPath(f"bad {what} path {text!r}: it contains a NUL character; {_ACCEPTED}")
    target = Path(os.path.realpath(text))
    st = _stat(target)
    if st is not None:
        kind = _kind(st.st_mode)
        if kind is not None:
            raise BadPath(f"{what} {text!r} is {kind}; {_ACCEPTED}")
    folder = target.parent
    fst = _stat(folder)
    if fst is None:
        missing = next((p for p in (folder, *folder.parents) if _stat(p) is not None), None)
        if missing is not None and not stat.S_ISDIR(os.stat(missing).st_mode):
            raise BadPath(f"{what} {text!r} is under {str(missing)!r}, which is a file, not a folder; {_ACCEPTED}")
        raise BadPath(f"the folder of {what} {text!r} does not exist ({str(folder)!r}); {_ACCEPTED}")
    if not stat.S_ISDIR(fst.st_mode):
        raise BadPath(f"{what} {text!r} is under {str(folder)!r}, which is not a folder; {_ACCEPTED}")
    try:  # the real test: create a file there (permission bits, read-only mounts and /proc all answer here)
        fd, probe = tempfile.mkstemp(prefix=".attnprof-", suffix=".probe", dir=folder)
    except OSError as exc:
        raise BadPath(f"cannot create {what} {text!r} in {str(folder)!r}: {_why(exc)}; {_ACCEPTED}") from None
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
        raise BadPath(f"{str(path)!r} is {_kind(st.st_mode)}; {_ACCEPTED}")
    mode = stat.S_IMODE(st.st_mode) if st is not None else _new_file_mode()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:64]}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(target.parent)


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


# --- reading --------------------------------------------------------------------------------------------------------


def read_bytes(path: str | os.PathLike[str], limit: int = MAX_READ_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Raises:
        FileNotFoundError: if there is no such file.
        UnreadableFile: if it is not a regular file, is larger than ``limit``, or cannot be read.
    """
    path = Path(path)
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
        raise UnreadableFile(
            f"{path} is {st.st_size} bytes, more than the {limit} attnprof reads from one file", path
        )
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise UnreadableFile(f"cannot read {path}: {_why(exc)}", path) from None
    if len(data) > limit:
        raise UnreadableFile(f"{path} grew past {limit} bytes while being read", path)
    return data


def gunzip(data: bytes, path: str | os.PathLike[str], limit: int = MAX_READ_BYTES) -> bytes:
    """Decompress the gzip ``data`` read from ``path``, checking its integrity (CRC and length), at most ``limit``
    bytes out.

    Raises:
        UnreadableFile: for a truncated or corrupt gzip stream, or one that decompresses to more than ``limit``.
    """
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as f:
            out = f.read(limit + 1)
    except EOFError:
        raise UnreadableFile(
            f"{path} is a truncated gzip file (it ends before the compressed stream does)", path
        ) from None
    except (gzip.BadGzipFile, zlib.error, OSError) as exc:
        raise UnreadableFile(f"{path} is not a valid gzip file: {_why(exc)}", path) from None
    if len(out) > limit:
        raise UnreadableFile(f"{path} decompresses to more than the {limit} bytes attnprof reads", path)
    return out


def read_json(path: str | os.PathLike[str], limit: int = MAX_READ_BYTES) -> Any:
    """The parsed JSON in ``path`` (gzip-compressed when the name ends in ``.gz``), integrity checked.

    Raises:
        FileNotFoundError: if there is no such file.
        UnreadableFile: for a file that is not a regular file, too large, truncated or corrupt gzip, or not JSON
            (UTF-8).
    """
    path = Path(path)
    data = read_bytes(path, limit)
    if path.suffix == ".gz":
        data = gunzip(data, path, limit)
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise UnreadableFile(f"{path} is not UTF-8 text: {exc.reason} at byte {exc.start}", path) from None
    except json.JSONDecodeError as exc:
        raise UnreadableFile(f"{path.name} is not valid JSON: {exc}", path) from None
    except RecursionError:
        raise UnreadableFile(f"{path.name} is not valid JSON: nested too deeply", path) from None
