"""Numbers as the site and the claim sentences write them: one formatter per kind of number, no scientific notation.

>>> number(0.16234), number(27.31), number(303.4), number(1250.0)
('0.162', '27.3', '303', '1250')
>>> count(6.0), count(6.333), size(49152), dims([8, 8, 16])
('6', '6.3', '48\\xa0KiB', '8×8×16')
>>> signed_percent(0.0623), signed_percent(-0.004)
('+6.2\\xa0%', '\u22120.40\\xa0%')
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: A no-break space, between a number and its unit.
NBSP = "\u00a0"


def number(value: float, digits: int = 3) -> str:
    """``value`` with ``digits`` significant digits, never in scientific notation (``0.162``, ``27.3``, ``303``)."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    magnitude = math.floor(math.log10(abs(value)))
    return f"{value:.{max(0, digits - 1 - magnitude)}f}"


def ratio(value: float) -> str:
    """A percentage or a ratio, three significant digits at most: ``24``, ``18.8``, ``7.76``, ``100``, ``1986``."""
    return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def percent(value: float) -> str:
    """A percentage with its unit: ``18.8 %`` (no-break space)."""
    return unit(ratio(value), "%")


def signed_percent(fraction: float, digits: int = 2) -> str:
    """A fraction as a signed percentage with its unit: ``0.0623`` -> ``+6.2 %``, ``-0.004`` -> ``−0.40 %`` (a true
    minus sign; no-break space); zero has no sign."""
    sign = "+" if fraction > 0 else "\u2212" if fraction < 0 else ""
    return unit(sign + number(abs(100 * fraction), digits), "%")


def percent_of(fraction: float, digits: int = 2) -> str:
    """A fraction as an amount of percent, as :func:`signed_percent` writes it but with no sign: ``0.71`` -> ``71 %``
    (a saving, where the words say which way: "saves 71 % of a step").

    >>> percent_of(0.7134) == "71" + NBSP + "%"
    True
    """
    return unit(number(abs(100 * fraction), digits), "%")


def count(value: float) -> str:
    """A count, or a mean count: ``6``, ``6.3``."""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"


def size(n: int) -> str:
    """Bytes: ``49152`` -> ``48 KiB``; ``0`` -> ``0 B``."""
    if n < 1024:
        return f"{n}{NBSP}B"
    kib = n / 1024
    return f"{kib:.0f}{NBSP}KiB" if kib.is_integer() else f"{number(kib)}{NBSP}KiB"


def dims(values: Sequence[int] | None) -> str:
    """``[8, 8, 16]`` -> ``8×8×16``; nothing -> ``""``."""
    return "×".join(str(d) for d in values) if values else ""


def unit(value: str, name: str) -> str:
    """``value`` and its unit, joined by a no-break space."""
    return f"{value}{NBSP}{name}"


#: What ends a shortened text.
ELLIPSIS = "…"


def shorten(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters: whole when it fits, else cut at the last word boundary that fits
    and ended with ``…``, so that no word and no number is cut in two (a cut between ``row <=`` and ``102`` drops
    the number whole). Spaces are the preferred boundaries, then punctuation (``_``, ``,``, ``(``) in the second
    half; a single word longer than ``width`` is cut where it must be.

    >>> shorten("No viable backend for scaled_dot_product_attention was found.", 30)
    'No viable backend for…'
    >>> shorten("row <= 102", 9), shorten("fits", 9)
    ('row <=…', 'fits')
    >>> shorten("x" * 10_000, 8)
    'xxxxxxx…'
    """
    text = str(text)
    if width < 1:
        raise ValueError(f"bad width {width!r}; expected a positive integer")
    if len(text) <= width:
        return text
    room = width - len(ELLIPSIS)
    spaces = [i for i in range(1, room + 1) if text[i].isspace() and not text[i - 1].isspace()]
    if spaces:
        return text[: spaces[-1]].rstrip() + ELLIPSIS
    bounds = [i for i in range(room // 2, room + 1) if not (text[i - 1].isalnum() and text[i].isalnum())]
    cut = bounds[-1] if bounds else room
    return text[: max(cut, 1)] + ELLIPSIS


def human_bytes(n: float) -> str:
    """``17179869184`` -> ``16.0 GiB`` (binary units, three significant digits)."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}" if n / size < 1000 else f"{n / size:.0f} {unit}"
    return f"{int(n)} B"


def human_seconds(s: float) -> str:
    """``42.1`` -> ``42 s``; ``400`` -> ``6.7 min``; ``11000`` -> ``3.1 h``; ``950000`` -> ``264 h`` (never in
    scientific notation)."""
    if s < 60:
        return f"{s:.0f} s" if s >= 1 else f"{s:.1f} s"
    if s < 3600:
        return f"{s / 60:.2g} min"
    return f"{s / 3600:.2g} h" if s < 360_000 else f"{s / 3600:.0f} h"


def quoted(value: object, width: int = 60) -> str:
    """A bad value as a message echoes it: its ``repr``, the value shortened to ``width`` characters first (a
    10,000-character value is not printed whole).

    >>> quoted("flsh"), quoted("y" * 500, 12)
    ("'flsh'", "'yyyyyyyyyyy…'")
    """
    return repr(shorten(str(value), width)) if isinstance(value, str) else shorten(repr(value), width)


def printable(text: str) -> str:
    """``text`` with every character a terminal would act on or hide (control characters, bidirectional overrides,
    ...) written as its escape, the rest as it is: what a file name or a message may show on a terminal.

    >>> printable("a\\x1b[2Jb\\tc"), printable("µ × 日本")
    ('a\\\\x1b[2Jb\\\\tc', 'µ × 日本')
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def shown(path: object, width: int = 80) -> str:
    """A file name as a progress line echoes it: escaped (:func:`printable`) and, when longer than ``width``
    characters, shortened in the middle, where a path holds the least (its folders' names), keeping its start and its
    file name.

    >>> shown("t.json"), shown("/a/" + "b" * 200 + "/trace.json", 30)
    ('t.json', '/a/bbbbbbbbbbbbb…bb/trace.json')
    """
    return printable(_middle(printable(str(path)), width))


def quoted_path(path: object, width: int = 80) -> str:
    """A file name as a message quotes it: its ``repr`` (control characters escaped), shortened in the middle as
    :func:`shown` does.

    >>> quoted_path("in.json"), quoted_path("a" + chr(27) + "b")
    ("'in.json'", "'a\\\\x1bb'")
    """
    return repr(_middle(str(path), width))


def _middle(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    tail = min(len(text.rsplit("/", 1)[-1]) + 3, width * 2 // 3)
    return text[: width - tail - 1] + ELLIPSIS + text[-tail:]


#: ASCII spellings of the characters attnprof writes beyond ASCII, for a terminal that takes ASCII alone
#: (``PYTHONIOENCODING=ascii``, a ``C`` locale): every other character is written as its escape.
ASCII_SPELLINGS = {"µ": "u", "×": "x", "→": "->", "←": "<-", "…": "...", "−": "-", "–": "-", "—": "-", "≤": "<=",
                   "≥": ">=", "≈": "~", "·": ".", NBSP: " ", "’": "'", "‘": "'", "“": '"', "”": '"', "°": " deg",
                   "±": "+/-", "✓": "yes", "✗": "no"}  # fmt: skip


def ascii_spelling(text: str) -> str:
    """``text`` in ASCII: the spellings of :data:`ASCII_SPELLINGS`, escapes for the rest.

    >>> ascii_spelling("8×8 µs → 1.2 ms…"), ascii_spelling("日")
    ('8x8 us -> 1.2 ms...', '\\\\u65e5')
    """
    return "".join(c if c < "\x80" else ASCII_SPELLINGS.get(c) or c.encode("ascii", "backslashreplace").decode()
                   for c in text)  # fmt: skip
