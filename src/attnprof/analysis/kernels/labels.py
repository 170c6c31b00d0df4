"""What a decoded kernel name is: :class:`KernelInfo` with its language-neutral :class:`Label`, the kernel families,
and :func:`shorten` for names no rule reads.

The label is put into words here, from the word table (:mod:`attnprof.words.kernels`); the browser's decoder
(``_assets/attnprof-kernels.js``) does the same from the exported entries, step for step: :meth:`Label.text`,
:func:`shorten` and :func:`clip` are its named steps ``text``, ``shorten`` and ``clip``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from attnprof import words

#: Kernel families, in the order the docs list them.
FAMILIES = (
    "gemm",
    "flash",
    "mem_efficient",
    "cudnn",
    "triton",
    "softmax",
    "reduce",
    "elementwise",
    "copy",
    "fill",
    "memcpy",
    "memset",
    "nccl",
    "other",
)

#: Longest label :func:`attnprof.analysis.kernels.decode` produces.
SHORT_MAX = 60

#: The characters :meth:`str.strip` takes for whitespace (exported for the browser, whose ``trim`` differs).
WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000"
)


@dataclass(frozen=True)
class Label:
    """A short label, before it is put into words: the same in every language.

    Attributes:
        form: The word-table key ``kernel.<form>`` whose text lays the label out; ``"raw"`` for a name shown as
            it is (``values["name"]``).
        values: Placeholder -> text kept verbatim in every language (identifiers, dtypes, tiles, numbers).
        words: Placeholder -> ``(word key, fallback)``: words that have a text in every language, or, for a key the
            table does not have (a memset target nobody named), the fallback as recorded. ``("", "")`` is empty.
        items: A list (the ops a Triton kernel fused) joined after the form's text, then ``+N more`` in the
            page's language: as many as fit in every language (:meth:`items_shown`), so the languages list the
            same ones.
    """

    form: str
    values: dict[str, str] = field(default_factory=dict, hash=False)
    words: dict[str, tuple[str, str]] = field(default_factory=dict, hash=False)
    items: tuple[str, ...] = ()

    def text(self, lang: str | None = None, limit: int = SHORT_MAX) -> str:
        """The label in ``lang`` (a language of the site; English for others), at most ``limit`` characters."""
        if self.form == "raw":
            return clip(self.values["name"], limit)
        head = self._head(lang)
        if not self.items:
            return clip(head, limit)
        n = self.items_shown(limit)
        if n == 0:
            return clip(head + words.text("kernel.ops", lang, n=len(self.items)), limit)
        return self._with_items(head, n, lang)

    def items_shown(self, limit: int = SHORT_MAX) -> int:
        """How many of :attr:`items` the label lists before ``+N more``: the most that fit in ``limit`` characters
        in every language of the site, so that each language lists the same ops (0: none fit, the label counts
        them instead)."""
        heads = {lang: self._head(lang) for lang in words.LANGUAGES}
        for n in range(len(self.items), 0, -1):
            if all(len(self._with_items(head, n, lang)) <= limit for lang, head in heads.items()):
                return n
        return 0

    def _head(self, lang: str | None) -> str:
        filled = {k: words.text_or(key, fb, lang) if key else "" for k, (key, fb) in self.words.items()}
        return words.text(f"kernel.{self.form}", lang, **self.values, **filled)

    def _with_items(self, head: str, n: int, lang: str | None) -> str:
        """``head`` followed by the first ``n`` items and, when some are left, ``+N more``."""
        left = len(self.items) - n
        more = words.text("kernel.more", lang, n=left) if left else ""
        return head + words.text("kernel.item_sep", lang).join(self.items[:n]) + more


@dataclass(frozen=True)
class KernelInfo:
    """What a kernel name says.

    Attributes:
        name: The name as the trace has it.
        family: One of :data:`FAMILIES`.
        short: A readable label of at most :data:`SHORT_MAX` characters, in English.
        fields: Parameters decoded from the name (``{"head_dim": "64", "dtype": "bf16", ...}``); empty for
            names no rule knows. Values are strings, as they appear in (or are derived from) the name.
        label: The label before it is put into words (:meth:`text` puts it into any language of the site).
    """

    name: str
    family: str
    short: str
    fields: dict[str, str] = field(default_factory=dict, hash=False)
    label: Label | None = field(default=None, hash=False, compare=False)

    def text(self, lang: str | None = None) -> str:
        """The short label in ``lang`` (identifiers, dtypes and numbers stay as they are)."""
        return self.label.text(lang) if self.label is not None else self.short

    def family_text(self, lang: str | None = None) -> str:
        """The kernel family in ``lang``, as tables show it."""
        return family_text(self.family, lang)


def family_text(family: str, lang: str | None = None) -> str:
    """A kernel family (:data:`FAMILIES`) in ``lang``: ``"elementwise"`` -> ``"要素ごと"``."""
    return words.text_or(f"family.{family}", family, lang)


def clip(s: str, limit: int = SHORT_MAX) -> str:
    """``s`` cut to ``limit`` characters, the last of them ``…``, when it is longer."""
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


def _strip_signature(name: str) -> str:
    """Drop a leading ``void `` and a trailing parameter list: ``void f<T>(int, T)`` -> ``f<T>``."""
    s = name.strip()
    s = s.removeprefix("void ")
    if s.endswith(")"):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            if s[i] == ")":
                depth += 1
            elif s[i] == "(":
                depth -= 1
                if depth == 0:
                    if i > 0:
                        s = s[:i]
                    break
    return s.strip()


def _collapse_templates(s: str) -> str:
    """Replace every outermost ``<...>`` with ``<…>``: ``a::f<x<y>, z>`` -> ``a::f<…>``."""
    out, depth = [], 0
    for ch in s:
        if ch == "<":
            if depth == 0:
                out.append("<…")
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
            if depth == 0:
                out.append(">")
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def shorten(name: str, limit: int = SHORT_MAX) -> str:
    """A name cut down for a table cell: no ``void``, no parameter list, templates collapsed if too long.

    >>> shorten("void at::native::foo_kernel<float, 4>(float*, int)")
    'at::native::foo_kernel<float, 4>'
    """
    s = _strip_signature(name)
    if len(s) > limit:
        s = _collapse_templates(s)
    if len(s) > limit and "::" in s:
        # keep the innermost qualified names: ``a::b::c::kernel<…>`` -> ``c::kernel<…>``
        head, _, tail = s.partition("<")
        parts = head.split("::")
        while len(parts) > 1 and len("::".join(parts)) + len(tail) + 1 > limit:
            parts.pop(0)
        s = "::".join(parts) + ("<" + tail if tail else "")
    return clip(s, limit)
