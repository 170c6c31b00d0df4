"""Every word attnprof generates, in every language the site is built in: one table, one lookup.

Prose comes from the pages and is translated with gettext. The words the package writes itself (column headers,
the provenance banner, status words, units, claim verdicts and their sentences, picture labels, decoded kernel
labels, the trace viewer's words, the printed reports of the gallery scripts, the other workloads' tables) come from
:data:`TABLE`, picked by the build's ``language``. The table is assembled from data modules, one per part of the site
(:mod:`.site`, :mod:`.claims`, :mod:`.kernels`, :mod:`.viewer`, :mod:`.report`, :mod:`.workloads`,
:mod:`.parallel`, :mod:`.workloadreport`, :mod:`.explain`, :mod:`.eligibility`, :mod:`.figures`, :mod:`.dropin`,
:mod:`.crossgpu`, :mod:`.trainscale`, :mod:`.masks`, :mod:`.verdicts`, :mod:`.tracediff`, :mod:`.advice`); a key
lives in exactly one of them (checked on import), and every key has every language of :data:`LANGUAGES` (a test
checks it). ``{placeholders}`` are filled with :meth:`str.format`.

>>> text("status.oom", "ja")
'メモリ不足'
>>> text("verdict.holds", "en_US")
'holds'
"""

from __future__ import annotations

import functools
import math
import re
import string
from collections.abc import Sequence

from attnprof.words import advice as _advice
from attnprof.words import claims as _claims
from attnprof.words import crossgpu as _crossgpu
from attnprof.words import dropin as _dropin
from attnprof.words import eligibility as _eligibility
from attnprof.words import explain as _explain
from attnprof.words import figures as _figures
from attnprof.words import fmt
from attnprof.words import kernels as _kernels
from attnprof.words import masks as _masks
from attnprof.words import parallel as _parallel
from attnprof.words import report as _report
from attnprof.words import site as _site
from attnprof.words import tracediff as _tracediff
from attnprof.words import trainscale as _trainscale
from attnprof.words import verdicts as _verdicts
from attnprof.words import viewer as _viewer
from attnprof.words import workloadreport as _workloadreport
from attnprof.words import workloads as _workloads

#: Languages the site is built in; the first is the fallback.
LANGUAGES: tuple[str, ...] = ("en", "ja")


def _merge(*tables: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    merged: dict[str, dict[str, str]] = {}
    for table in tables:
        for key, texts in table.items():
            if key in merged:
                raise KeyError(f"word key {key!r} is defined twice")
            merged[key] = texts
    return merged


#: Every key -> ``{language: text}``.
TABLE: dict[str, dict[str, str]] = _merge(
    _site.SITE,
    _claims.CLAIMS,
    _kernels.KERNELS,
    _viewer.VIEWER,
    _report.REPORT,
    _workloads.WORKLOADS,
    _parallel.PARALLEL,
    _workloadreport.WORKLOAD_REPORT,
    _explain.EXPLAIN,
    _eligibility.ELIGIBILITY,
    _figures.FIGURES,
    _dropin.DROPIN,
    _crossgpu.CROSSGPU,
    _trainscale.TRAINSCALE,
    _masks.MASK_WORDS,
    _verdicts.VERDICTS,
    _tracediff.TRACEDIFF,
    _advice.ADVICE,
)


def language(name: str | None) -> str:
    """The site language a build language stands for: ``"ja_JP"`` -> ``"ja"``; unknown or ``None`` -> ``"en"``."""
    lang = (name or LANGUAGES[0]).replace("-", "_").split("_")[0].lower()
    return lang if lang in LANGUAGES else LANGUAGES[0]


def has(key: str) -> bool:
    """Whether :data:`TABLE` has ``key``."""
    return key in TABLE


def text(key: str, lang: str | None = None, **fields: object) -> str:
    """The words of ``key`` in ``lang`` (English for languages the site is not built in), filled with ``fields``.

    Args:
        key: A key of :data:`TABLE`.
        lang: The build's language (``"ja"``, ``"en"``, ``"ja_JP"``, or ``None``).
        **fields: Values for the ``{placeholders}`` of the text.

    Raises:
        KeyError: for an unknown key, naming it.
    """
    try:
        texts = TABLE[key]
    except KeyError:
        raise KeyError(f"unknown word key {key!r}") from None
    words = texts[language(lang)]
    return words.format(**fields) if fields else words


def counted(key: str, n: int, lang: str | None = None) -> str:
    """``{n}`` things in words: the text of ``key + ".1"`` for one (``1 step``), of ``key`` for any other count
    (``2 steps``, ``0 steps``), filled with ``n``."""
    return text(f"{key}.1" if n == 1 and f"{key}.1" in TABLE else key, lang, n=n)


def text_or(key: str, fallback: str, lang: str | None = None) -> str:
    """:func:`text` of ``key`` when the table has it, else ``fallback`` unchanged (a status or limiter the table
    has no words for is shown as recorded)."""
    return text(key, lang) if key in TABLE else fallback


def limiters(names: Sequence[str], lang: str | None = None) -> str:
    """Occupancy limiters in words, every one of them: ``("registers", "shared memory")`` -> ``registers and shared
    memory`` (``レジスタと共有メモリ``); three or more are listed with commas before the last "and"."""
    parts = [text_or(f"limiter.{n}", n, lang) for n in names]
    if len(parts) < 2:
        return "".join(parts)
    return text("limiter.sep", lang).join(parts[:-1]) + text("limiter.and", lang) + parts[-1]


def placeholders(key: str, lang: str) -> set[str]:
    """The ``{fields}`` the text of ``key`` uses in ``lang`` (for checking that translations agree)."""
    return {f for _, f, _, _ in string.Formatter().parse(TABLE[key][lang]) if f}


def times(ratio: float, lang: str | None = None) -> str:
    """A time against another in words, ``ratio`` being the one over the other: ``1.35`` -> ``1.35× slower``
    (``1.35 倍遅い``), ``0.5`` -> ``2.00× faster``; ``as fast`` where three digits cannot tell them apart. A bare
    ``1.35×`` leaves the reader to guess which way it goes.

    Raises:
        ValueError: for a ratio that is not a positive finite number, naming it.
    """
    if not (math.isfinite(ratio) and ratio > 0):
        raise ValueError(f"times: ratio {ratio!r} is no time over another; give a positive finite number")
    shown = fmt.number(max(ratio, 1 / ratio))
    if float(shown) == 1:
        return text("ratio.same", lang)
    return text("ratio.slower" if ratio > 1 else "ratio.faster", lang, ratio=shown)


#: The word keys of the reasons attnprof itself records, in English (:func:`text` with ``"en"``): ``reason.*``.
REASON_PREFIX = "reason."


@functools.cache
def _reason_pattern(key: str) -> re.Pattern[str]:
    """The English text of ``key`` as a pattern whose groups are its ``{fields}``."""
    parts = []
    for literal, name, _spec, _conv in string.Formatter().parse(TABLE[key][LANGUAGES[0]]):
        parts.append(re.escape(literal))
        if name is not None:
            parts.append(f"(?P<{name}>.+?)")
    return re.compile("".join(parts))


def reason(recorded: str, lang: str | None = None) -> str | None:
    """A reason attnprof recorded in English from a ``reason.*`` text (a training-scale point skipped as too slow),
    in ``lang``, its values as recorded; ``None`` for any other text (PyTorch's words stay as PyTorch wrote them).

    >>> reason(text("reason.oom_at", "en", seq=8192), "ja")
    '省略: 系列長 8192 でメモリ不足'
    """
    for key in (k for k in TABLE if k.startswith(REASON_PREFIX)):
        m = _reason_pattern(key).fullmatch(recorded)
        if m is not None:
            return text(key, lang, **m.groupdict())
    return None


#: How :func:`attnprof.measure.profiling.environment` names a CPU: ``CPU (x86_64, 2 cores)``.
CPU_NAME = "CPU ({arch}, {cores} cores)"
_CPU_NAME_RE = re.compile(r"^CPU \((?P<arch>.+), (?P<cores>\d+) cores\)$")


def device(name: str, lang: str | None = None) -> str:
    """A recorded device name as a page in ``lang`` shows it: a GPU's as recorded (``NVIDIA H200``), a CPU's
    (:data:`CPU_NAME`) in the page's words (``CPU (x86_64、2 コア)``)."""
    m = _CPU_NAME_RE.match(name)
    return text("device.cpu", lang, arch=m["arch"], cores=m["cores"]) if m else name
