"""What a file that is not JSON is, from its first bytes: a tar archive, a Perfetto protobuf trace, a zip, xz or zstd
file, an HTML page, an SQLite database..., so that a reader refusing it names what it got instead of calling it a
trace cut short.

:func:`what` looks at the bytes a reader already holds (decompressed when the file was gzip); it reads nothing.

No torch here.
"""

from __future__ import annotations

#: (magic bytes at the start, what the file is): the formats people hand a trace reader by mistake.
MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip inside gzip (compressed twice)"),
    (b"PK\x03\x04", "a zip archive (torch.save and many exporters write these)"),
    (b"\xfd7zXZ\x00", "an xz-compressed file"),
    (b"\x28\xb5\x2f\xfd", "a zstd-compressed file"),
    (b"BZh", "a bzip2-compressed file"),
    (b"\x04\x22\x4d\x18", "an lz4-compressed file"),
    (b"SQLite format 3\x00", "an SQLite database (an Nsight Systems export?)"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"%PDF-", "a PDF document"),
    (b"\x7fELF", "an executable (ELF)"),
    (b"\xff\xfe", "UTF-16 text (save it as UTF-8)"),
    (b"\xfe\xff", "UTF-16 text (save it as UTF-8)"),
)
_TEXT = frozenset(b"\t\n\r\x0c\x1b") | frozenset(range(0x20, 0x7F)) | frozenset(range(0x80, 0x100))


def _tar_member(data: bytes | bytearray) -> str | None:
    """The first member's name of a tar archive (``ustar`` at byte 257), or ``None`` when it is not one."""
    if len(data) < 263 or data[257:262] != b"ustar":
        return None
    at = 0
    for _ in range(4):  # past the headers of extended attributes and long names (pax ``x``/``g``, GNU ``L``/``K``)
        head = bytes(data[at : at + 512])
        if len(head) < 512 or head[156:157] not in (b"x", b"g", b"L", b"K"):
            break
        try:
            size = int(head[124:136].strip(b"\0 ") or b"0", 8)
        except ValueError:
            break
        at += 512 + -(-size // 512) * 512
    head = bytes(data[at : at + 100]) if len(data) >= at + 100 else bytes(data[:100])
    return head.split(b"\0", 1)[0].decode("utf-8", "replace")


def _perfetto(data: bytes | bytearray) -> bool:
    """Whether ``data`` looks like a Perfetto trace: protobuf ``Trace`` messages, each a ``packet`` (field 1,
    length-delimited: byte ``0x0a``, a varint length) holding binary data."""
    if len(data) < 8 or data[0] != 0x0A:
        return False
    n, shift, k = 0, 0, 1
    while k < min(len(data), 11) and data[k] & 0x80:
        n |= (data[k] & 0x7F) << shift
        shift, k = shift + 7, k + 1
    if k >= len(data):
        return False
    n |= data[k] << shift
    head = data[: min(len(data), 256)]
    return 0 < n < 1 << 30 and any(b not in _TEXT for b in head)


def what(data: bytes | bytearray, gzipped: bool = False) -> str | None:
    """What ``data`` (a file's content, after gunzip when ``gzipped``) is when it is a known kind of non-JSON file:
    ``"a gzip-compressed tar archive (first member 'trace.json')"``, ``"a Perfetto protobuf trace"``...; ``None``
    for anything else (text, or bytes this does not know).

    >>> what(b"\\x0a\\x05\\x08\\x01\\x10\\x02\\x00\\x00"), what(b'{"a": 1'), what(b"")
    ('a Perfetto protobuf trace', None, 'empty')
    """
    if not data.strip():
        return "empty" if not gzipped else "gzip of an empty file"
    member = _tar_member(data)
    if member is not None:
        return f"{'a gzip-compressed' if gzipped else 'a'} tar archive (first member {member[:60]!r})"
    for magic, name in MAGIC:
        if data[: len(magic)] == magic:
            return name
    head = bytes(data[:512]).lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith((b"<!doctype html", b"<html")):
        return "an HTML page"
    if head.startswith(b"<?xml") or head.startswith(b"<"):
        return "an XML or HTML document"
    if data[:1] == b"\x80" and data[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "a Python pickle"
    if _perfetto(data):
        return "a Perfetto protobuf trace"
    if any(b not in _TEXT for b in bytes(data[:256])):
        return "binary data"
    return None
