"""Record what the kernel-name decoder says about every kernel name the tests know, as a golden file.

``tests/data/kernels-golden.json.gz`` holds, for each name of ``tests/helpers.kernel_names()`` (the fixtures' GPU
events, the recorded run file's kernels, the names ``tests/test_kernels.py`` decodes and a few more, one per branch
of the decoder), the :class:`~attnprof.analysis.kernels.KernelInfo` that :func:`~attnprof.analysis.kernels.decode`
gives: family, short label, every field, the label before it is put into words, and its text in every language of
the site. ``tests/test_kernels_golden.py`` holds the decoder to it, and the browser's decoder to the same answers.

It was written by the decoder as it stood before its rules became data (``git worktree add /tmp/ref <commit>``,
then ``PYTHONPATH=/tmp/ref/src python scripts/kernel_golden.py``): run it again only when a change of what a name
decodes to is meant, and say why in the commit.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from attnprof import words  # noqa: E402
from attnprof.analysis import kernels  # noqa: E402
from helpers import KERNEL_GOLDEN, kernel_names  # noqa: E402


def record(name: str) -> dict:
    """One name's decoding as JSON data."""
    info = kernels.decode(name)
    label = info.label
    return {
        "name": name,
        "family": info.family,
        "short": info.short,
        "fields": info.fields,
        "label": {
            "form": label.form,
            "values": label.values,
            "words": {k: list(v) for k, v in label.words.items()},
            "items": list(label.items),
        },
        "text": {language: info.text(language) for language in words.LANGUAGES},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=KERNEL_GOLDEN, help="where to write (default: %(default)s)")
    args = parser.parse_args()
    data = {"names": [record(n) for n in kernel_names()]}
    text = json.dumps(data, ensure_ascii=False, indent=0) + "\n"
    args.out.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    print(f"{len(data['names'])} names -> {args.out} ({args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
