"""scripts/compare_sites.py: two sites that differ only inside the elements of a dropped class compare equal; any
other difference is found."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).parent.parent / "scripts" / "compare_sites.py"


def _module():
    spec = importlib.util.spec_from_file_location("compare_sites", SCRIPT)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _site(root: Path, elsewhere: str, own: str = "1.23 ms") -> Path:
    page = root / "en" / "guide" / "decoding.html"
    page.parent.mkdir(parents=True)
    page.write_text(
        '<html><body><article role="main"><p>Own figure: ' + own + "</p>"
        '<div class="attnprof-elsewhere"><div><p>' + elsewhere + "</p></div><table><tr><td>" + elsewhere + "</td>"
        "</tr></table></div><p>After the section.</p></article></body></html>"
    )
    return root


def test_dropped_class_is_left_out_and_the_rest_compared(tmp_path):
    cs = _module()
    a = _site(tmp_path / "a", "")
    b = _site(tmp_path / "b", "NVIDIA H200 2026-11-30 0.09 ms")
    assert cs.compare(a, b, [], ("attnprof-elsewhere",)) == []
    assert cs.compare(a, b, [])  # without the option, the section differs
    c = _site(tmp_path / "c", "NVIDIA H200", own="9.99 ms")
    found = cs.compare(a, c, [], ("attnprof-elsewhere",))
    assert len(found) == 1 and "9.99 ms" in found[0]
    assert cs.page(b / "en" / "guide" / "decoding.html", ("attnprof-elsewhere",))[0] == [
        "Own figure: 1.23 ms", "After the section."]  # fmt: skip
