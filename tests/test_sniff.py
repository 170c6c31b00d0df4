"""records.sniff: what a file that is not JSON is, from its first bytes (the one line of a refused trace says it)."""

from __future__ import annotations

import doctest
import gzip
import io
import tarfile

import pytest

from attnprof.records import sniff


def _tar(member: str) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo(member)
        info.size = 2
        tar.addfile(info, io.BytesIO(b"{}"))
    return buf.getvalue()


@pytest.mark.parametrize(
    ("data", "gzipped", "expected"),
    [
        (_tar("run/trace.json"), False, "a tar archive (first member 'run/trace.json')"),
        (_tar("t.json"), True, "a gzip-compressed tar archive (first member 't.json')"),
        (gzip.compress(b"{}", mtime=0), True, "gzip inside gzip (compressed twice)"),
        (b"PK\x03\x04rest", False, "a zip archive (torch.save and many exporters write these)"),
        (b"\xfd7zXZ\x00\x00", False, "an xz-compressed file"),
        (b"\x28\xb5\x2f\xfdxx", False, "a zstd-compressed file"),
        (b"BZh91AY", False, "a bzip2-compressed file"),
        (b"SQLite format 3\x00...", False, "an SQLite database (an Nsight Systems export?)"),
        (b"\xef\xbb\xbf  <!DOCTYPE html><html>", False, "an HTML page"),
        (b"<?xml version='1.0'?>", False, "an XML or HTML document"),
        (b"\x80\x04\x95\x00", False, "a Python pickle"),
        (b"\x0a\x10\x08\x01\x12\x0c" + bytes(range(20)), False, "a Perfetto protobuf trace"),
        (b"\x00\x01\x02 data", False, "binary data"),
        (b"", False, "empty"),
        (b"  \n", True, "gzip of an empty file"),
        (b'{"traceEvents": [', False, None),
        (b"plain words, not JSON", False, None),
        (b"\x0a plain text after a newline", False, None),  # 0x0a and text: not protobuf
    ],
)
def test_what_names_the_kind_of_file(data, gzipped, expected):
    assert sniff.what(data, gzipped) == expected


def test_doctests():
    assert doctest.testmod(sniff).failed == 0
