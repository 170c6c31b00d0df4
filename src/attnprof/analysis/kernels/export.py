"""The rule table as data for the browser: :func:`export` gives JSON-able data that ``_assets/attnprof-kernels.js``
interprets, so that a page decodes kernel names from the one table, offline.

The data (format :data:`FORMAT`):

``format``, ``languages``, ``short_max``, ``pow2_max``, ``whitespace``, ``families``
    The format's version, the site's languages (the first is the fallback), the longest label, the ``pow2`` pipe's
    bound, the characters Python's ``str.strip`` takes for whitespace, and the kernel families in order.
``words``
    The word table's entries the labels and family names use (every ``kernel.*`` and ``family.*`` key), each
    ``{language: text}``.
``tables``
    The token tables the pipes name: objects, or (``names``) arrays.
``rules``
    In order, ``{"family", "pattern", "steps"}``. A step is one of ``{"set", "value"}`` (alternatives),
    ``{"search", "in"}`` (patterns), ``{"find", "in", "pattern", "group"}``, ``{"spread", "names", "rest"}``,
    ``{"classify", "tokens", "rest", "sep"}``, ``{"when", "then", "else"}`` (``when``: variable -> ``true``,
    ``false`` or a pattern) and ``{"show", "values", "words", "items"}`` (``words``: ``[key, fallback or null]``);
    texts are templates (:mod:`.engine`). Patterns are JavaScript source for ``new RegExp(source, "u")``; those of
    conditions and token tables are anchored (they match a whole text).

Python's and JavaScript's regular expressions differ in places; :func:`js_pattern` carries a pattern over where the
meaning stays the same (named groups, ``$``, ``.``, ``\\s``, ``\\Z``) and refuses the rest, so a pattern the
browser would read differently cannot enter the table unnoticed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from attnprof import words
from attnprof.analysis.kernels.engine import (
    POW2_MAX,
    Classify,
    Find,
    Rule,
    Search,
    Set,
    Show,
    Spread,
    Step,
    Tables,
    Template,
    When,
)
from attnprof.analysis.kernels.labels import FAMILIES, SHORT_MAX, WHITESPACE

FORMAT = 1
#: Word-table keys the browser needs: the labels' forms and words, and the families' names.
WORD_PREFIXES = ("kernel.", "family.")

_SPACE = r" \t\n\r\f\v"  # Python's ``\s`` under re.ASCII (JavaScript's ``\s`` is Unicode's)
_GROUPS = ("(?:", "(?=", "(?!", "(?<=", "(?<!")
_ESCAPES = "dDwWbBtnrfv" + r"\.^$|?*+()[]{}/"
_QUANTIFIER = re.compile(r"\{\d+(?:,\d*)?\}")


def js_pattern(pattern: str) -> str:
    """The JavaScript source (for ``new RegExp(source, "u")``) that matches what ``re.compile(pattern, re.ASCII)``
    matches, in the same way.

    Raises:
        ValueError: for syntax whose meaning would change (inline flags, back references, possessive or atomic
            groups, a class that starts with ``]``, ``\\S`` inside a class, unknown escapes), naming it.
    """
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            e = pattern[i + 1 : i + 2]
            if e == "s":
                out.append(_SPACE if in_class else f"[{_SPACE}]")
            elif e == "S" and not in_class:
                out.append(f"[^{_SPACE}]")
            elif e == "Z" and not in_class:
                out.append("$")
            elif e == "A" and not in_class:
                out.append("^")
            elif e == "-":
                out.append("\\-" if in_class else "-")
            elif e and e in _ESCAPES:
                out.append("\\" + e)
            else:
                raise ValueError(f"pattern {pattern!r}: the escape \\{e} is not carried over to JavaScript")
            i += 2
            continue
        if in_class:
            in_class = c != "]"
            out.append(c)
        elif c == "[":
            start = i + 2 if pattern[i + 1 : i + 2] == "^" else i + 1
            if pattern[start : start + 1] == "]":
                raise ValueError(f"pattern {pattern!r}: a class that starts with ']'")
            out.append(pattern[i:start])
            i, in_class = start, True
            continue
        elif c == ".":
            out.append(r"[^\n]")
        elif c == "$":
            out.append(r"(?=\n?$)")  # Python's $: the end, or before a newline that ends the text
        elif c == "(":
            if pattern.startswith("(?P<", i):
                out.append("(?<")
                i += 4
                continue
            if pattern.startswith("(?", i) and not pattern.startswith(_GROUPS, i):
                raise ValueError(f"pattern {pattern!r}: the group {pattern[i : i + 4]!r}... is not carried over")
            out.append(c)
        elif c == "{":
            q = _QUANTIFIER.match(pattern, i)
            if not q:
                raise ValueError(f"pattern {pattern!r}: a brace that is no quantifier (escape it)")
            out.append(q.group())
            i = q.end()
            if pattern[i : i + 1] == "+":
                raise ValueError(f"pattern {pattern!r}: a possessive quantifier")
            continue
        elif c in "*+?" and pattern[i + 1 : i + 2] == "+":
            raise ValueError(f"pattern {pattern!r}: a possessive quantifier")
        else:
            out.append(c)
        i += 1
    if in_class:
        raise ValueError(f"pattern {pattern!r}: a class that does not end")
    return "".join(out)


def _whole(pattern: re.Pattern[str]) -> str:
    """A pattern the browser matches against a whole text (Python's ``fullmatch``)."""
    return f"^(?:{js_pattern(pattern.pattern)})$"


def _sources(templates: Sequence[Template]) -> list[str]:
    return [t.source for t in templates]


def _step(step: Step) -> dict[str, Any]:
    if isinstance(step, Set):
        return {"set": step.name, "value": _sources(step.value)}
    if isinstance(step, Search):
        return {"search": [js_pattern(p.pattern) for p in step.patterns], "in": step.text.source}
    if isinstance(step, Find):
        group = step.pattern.groups == 1
        return {"find": step.var, "in": step.text.source, "pattern": js_pattern(step.pattern.pattern), "group": group}
    if isinstance(step, Spread):
        return {"spread": step.var, "names": list(step.names), "rest": step.rest}
    if isinstance(step, Classify):
        tokens = [[f, _whole(p)] for f, p in step.tokens]
        return {"classify": step.text.source, "tokens": tokens, "rest": step.rest, "sep": step.sep}
    if isinstance(step, When):
        conditions = {v: c if isinstance(c, bool) else _whole(c) for v, c in step.conditions}
        return {"when": conditions, "then": [_step(s) for s in step.then], "else": [_step(s) for s in step.otherwise]}
    if isinstance(step, Show):
        return {
            "show": step.form,
            "values": {k: _sources(alts) for k, alts in step.values.items()},
            "words": {k: [key.source, fb.source if fb else None] for k, (key, fb) in step.words.items()},
            "items": step.items.source if step.items else None,
        }
    raise TypeError(f"not a step: {step!r}")


def export(rules: Sequence[Rule], tables: Tables) -> dict[str, Any]:
    """The rule table, its token tables and the words its labels need, as JSON-able data (see the module)."""
    return {
        "format": FORMAT,
        "languages": list(words.LANGUAGES),
        "short_max": SHORT_MAX,
        "pow2_max": POW2_MAX,
        "whitespace": WHITESPACE,
        "families": list(FAMILIES),
        "words": {k: dict(v) for k, v in words.TABLE.items() if k.startswith(WORD_PREFIXES)},
        "tables": {k: dict(v) if isinstance(v, dict) else list(v) for k, v in tables.items()},
        "rules": [
            {"family": r.family, "pattern": js_pattern(r.pattern.pattern), "steps": [_step(s) for s in r.steps]}
            for r in rules
        ],
    }
