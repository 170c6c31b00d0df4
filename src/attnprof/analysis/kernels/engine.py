"""The decoder's engine: reads a kernel name with a table of rules that are data, not code.

A :class:`Rule` is a regular expression with named groups, the family it identifies, and a short list of steps
that turn the match into fields and a label. The steps are data too, of seven kinds:

``("field", template)``
    Set a field (or, for a name starting with ``_``, a variable the rule uses but does not show) to a template
    (below). A tuple of templates is a list of alternatives, the first that has a value wins.
    A template with no value sets nothing.
:class:`Search`
    Search a text for the first of some patterns that matches; its named groups become variables.
:class:`Find`
    All the matches of a pattern in a text, as a list variable.
:class:`Spread`
    Name the items of a list by their place, when there are as many as names (else, optionally, keep them all in
    one field, joined by commas).
:class:`Classify`
    Sort the tokens of a list into fields by the first token pattern each one matches; the rest go to one field.
:class:`When`
    Run some steps when every condition holds (a variable has a value, has none, or matches a pattern), others
    when one does not.
:class:`Show`
    The label: a form of the word table, its values and words as templates, and the list it ends with.

Templates are text with ``{variable|pipe|pipe:argument}`` holes. The variables are the match's named groups that
took part in the match, the fields and variables set so far (a field shadows the group of the same name from the
step that sets it on), ``@name`` (the whole name) and ``@after`` (the name after the match). A template has no value
when one of its variables has none (after its pipes: ``default:x`` gives one). The pipes are few and named
(:data:`PIPES`); those that take one text are applied to each item of a list. A template that is one hole may
give a list (``split``, ``names``, ``Find``).

This is all the browser's decoder (``_assets/attnprof-kernels.js``) implements, once each, from the data that
:func:`attnprof.analysis.kernels.export_rules` writes. So that one regular expression means the same in both,
patterns are compiled with :data:`re.ASCII` (``\\w``, ``\\d``, ``\\b`` and ``\\s`` are ASCII, as in JavaScript's
``u`` mode once ``\\s`` is spelt out), and the exporter refuses the syntax it cannot carry over.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Union

from attnprof.analysis.kernels.labels import KernelInfo, Label, shorten

#: How every pattern of the table is compiled.
FLAGS = re.ASCII
#: The largest ``n`` of the ``pow2`` pipe (a row of ``2**n`` elements); larger ones give no value.
POW2_MAX = 1024

Value = Union[str, list[str], None]  # noqa: UP007 (a runtime alias)
Tables = Mapping[str, Union[Mapping[str, str], Sequence[str]]]  # noqa: UP007


# --- templates ------------------------------------------------------------------------------------------------------

_HOLE = re.compile(r"\{([^{}]*)\}")
_VAR = re.compile(r"@?[A-Za-z_]\w*", FLAGS)


@dataclass(frozen=True)
class Hole:
    """One ``{variable|pipe:arg|...}`` of a template."""

    var: str
    pipes: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class Template:
    """Text with holes (see the module's docstring)."""

    source: str
    parts: tuple[str | Hole, ...] = field(compare=False, default=())

    @classmethod
    def parse(cls, source: str) -> Template:
        parts: list[str | Hole] = []
        at = 0
        for m in _HOLE.finditer(source):
            if m.start() > at:
                parts.append(source[at : m.start()])
            var, *pipes = m[1].split("|")
            if not _VAR.fullmatch(var):
                raise ValueError(f"template {source!r}: {var!r} is no variable name")
            parsed = []
            for pipe in pipes:
                pipe_name, *args = pipe.split(":")
                if pipe_name not in PIPES:
                    raise ValueError(f"template {source!r}: unknown pipe {pipe_name!r}; known: {', '.join(PIPES)}")
                low, high = PIPES[pipe_name]
                if not low <= len(args) <= high:
                    raise ValueError(f"template {source!r}: pipe {pipe_name!r} takes {low} to {high} arguments")
                parsed.append((pipe_name, tuple(args)))
            parts.append(Hole(var, tuple(parsed)))
            at = m.end()
        if at < len(source):
            parts.append(source[at:])
        if any(isinstance(p, str) and ("{" in p or "}" in p) for p in parts):
            raise ValueError(f"template {source!r}: a brace outside a hole")
        return cls(source, tuple(parts))

    def holes(self) -> list[Hole]:
        return [p for p in self.parts if isinstance(p, Hole)]

    def value(self, env: Mapping[str, str | list[str]], tables: Tables) -> Value:
        """The template's value in ``env``: text, a list (a template that is one hole), or ``None``."""
        if len(self.parts) == 1 and isinstance(self.parts[0], Hole):
            return _hole(self.parts[0], env, tables)
        out = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            v = _hole(part, env, tables)
            if v is None:
                return None
            if isinstance(v, list):
                raise TypeError(f"template {self.source!r}: {part.var!r} is a list inside text")
            out.append(v)
        return "".join(out)


def _templates(spec: str | Sequence[str]) -> tuple[Template, ...]:
    """A template, or a tuple of alternatives, parsed."""
    return tuple(Template.parse(s) for s in ((spec,) if isinstance(spec, str) else spec))


def _first(alternatives: Sequence[Template], env: Mapping[str, str | list[str]], tables: Tables) -> Value:
    for t in alternatives:
        v = t.value(env, tables)
        if v is not None:
            return v
    return None


# --- pipes: the named steps of a template ---------------------------------------------------------------------------

#: Pipe -> (fewest, most arguments). ``item``/``join`` take a list; ``split``/``names`` take one text; ``default``
#: gives a value to a hole that has none; every other pipe takes one text and is applied to each item of a list
#: (items it gives no value for are dropped).
PIPES: dict[str, tuple[int, int]] = {
    "dtype": (0, 0),  # a C++ or library spelling of an element type -> its short name (table ``dtypes``)
    "map": (1, 1),  # map:T -> T[x], no value when T lacks x
    "lookup": (1, 1),  # lookup:T -> T[x], or x itself when T lacks it
    "default": (1, 1),  # default:V -> V when there is no value
    "nonempty": (0, 0),  # "" -> no value
    "lower": (0, 0),
    "removeprefix": (1, 1),
    "removesuffix": (1, 1),
    "strip": (0, 1),  # whitespace, or the characters given, from both ends
    "replace": (2, 2),
    "before": (1, 1),  # before:S -> the text before the first S (all of it without one)
    "char": (1, 1),  # char:I -> the I-th character (Python's indexing)
    "pow2": (0, 0),  # "7" -> "128"
    "shorten": (0, 0),  # labels.shorten
    "split": (1, 1),  # split:S -> a list
    "names": (1, 1),  # names:T -> split_names(x, T)
    "item": (1, 1),  # item:I -> the I-th item of a list (Python's indexing)
    "join": (1, 1),
}
_LIST_PIPES = ("item", "join")
_TEXT_PIPES = ("split", "names")


def dtype(s: str, dtypes: Mapping[str, str]) -> str:
    """``"c10::BFloat16"`` -> ``"bf16"``; unknown spellings come back stripped of namespaces."""
    if not s:
        return "?"
    s = s.strip().removesuffix(" const").strip()
    return dtypes.get(s, s.rsplit("::", 1)[-1])


def split_names(joined: str, multiword: Sequence[str]) -> list[str]:
    """``"_softmax_exp_masked_fill"`` -> ``["_softmax", "exp", "masked_fill"]``: a list joined by ``_`` whose names
    may hold ``_`` themselves, split greedily against ``multiword`` (tried in its order, the longest names first);
    an empty token before a name (a doubled ``_``) stands for a name that starts with ``_``."""
    tokens = joined.split("_")
    names: list[str] = []
    i = 0
    while i < len(tokens):
        prefix = ""
        if tokens[i] == "" and i + 1 < len(tokens):
            prefix, i = "_", i + 1
        for name in multiword:
            parts = name.split("_")
            if tokens[i : i + len(parts)] == parts:
                names.append(prefix + name)
                i += len(parts)
                break
        else:
            if tokens[i]:
                names.append(prefix + tokens[i])
            i += 1
    return names


def pow2(s: str) -> str | None:
    """``"10"`` -> ``"1024"``; no value for anything but digits, or beyond :data:`POW2_MAX`."""
    if not (s.isascii() and s.isdigit()) or int(s) > POW2_MAX:
        return None
    return str(2 ** int(s))


def _index(seq: Sequence[str], i: str) -> str | None:
    n = int(i)
    return seq[n] if -len(seq) <= n < len(seq) else None


def _pipe(name: str, args: tuple[str, ...], v: str, tables: Tables) -> Value:
    """One pipe on one text."""
    if name == "dtype":
        return dtype(v, tables["dtypes"])  # type: ignore[arg-type]
    if name == "map":
        return tables[args[0]].get(v)  # type: ignore[union-attr]
    if name == "lookup":
        return tables[args[0]].get(v, v)  # type: ignore[union-attr]
    if name == "nonempty":
        return v or None
    if name == "lower":
        return v.lower()
    if name == "removeprefix":
        return v.removeprefix(args[0])
    if name == "removesuffix":
        return v.removesuffix(args[0])
    if name == "strip":
        return v.strip(*args)
    if name == "replace":
        return v.replace(args[0], args[1])
    if name == "before":
        return v.split(args[0], 1)[0]
    if name == "char":
        return _index(v, args[0])
    if name == "pow2":
        return pow2(v)
    if name == "shorten":
        return shorten(v)
    if name == "split":
        return v.split(args[0])
    if name == "names":
        return split_names(v, tables[args[0]])  # type: ignore[arg-type]
    raise AssertionError(name)


def _hole(hole: Hole, env: Mapping[str, str | list[str]], tables: Tables) -> Value:
    v: Value = env.get(hole.var)
    for name, args in hole.pipes:
        if name == "default":
            v = args[0] if v is None else v
        elif v is None:
            continue
        elif name in _LIST_PIPES:
            if not isinstance(v, list):
                raise TypeError(f"pipe {name!r} takes a list, not {v!r}")
            v = _index(v, args[0]) if name == "item" else args[0].join(v)
        elif isinstance(v, list):
            if name in _TEXT_PIPES:
                raise TypeError(f"pipe {name!r} takes one text, not a list")
            v = [r for x in v if isinstance(r := _pipe(name, args, x, tables), str)]
        else:
            v = _pipe(name, args, v, tables)
    return v


# --- steps ----------------------------------------------------------------------------------------------------------


def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, FLAGS)


@dataclass(frozen=True)
class Set:
    """Set a field (or a ``_variable``) to the first alternative that has a value; none: set nothing."""

    name: str
    value: tuple[Template, ...]


@dataclass(frozen=True)
class Search:
    """The first of ``patterns`` found in ``text`` (a template): its named groups that took part become variables."""

    patterns: tuple[re.Pattern[str], ...]
    text: Template

    def __init__(self, patterns: str | Sequence[str], text: str) -> None:
        pats = (patterns,) if isinstance(patterns, str) else tuple(patterns)
        object.__setattr__(self, "patterns", tuple(_compile(p) for p in pats))
        object.__setattr__(self, "text", Template.parse(text))


@dataclass(frozen=True)
class Find:
    """Variable ``var``: every match of ``pattern`` in ``text``, in order (its one group if it has one)."""

    var: str
    text: Template
    pattern: re.Pattern[str]

    def __init__(self, var: str, text: str, pattern: str) -> None:
        compiled = _compile(pattern)
        if compiled.groups > 1 or compiled.search(""):
            raise ValueError(f"Find pattern {pattern!r}: at most one group, and it must not match nothing")
        object.__setattr__(self, "var", var)
        object.__setattr__(self, "text", Template.parse(text))
        object.__setattr__(self, "pattern", compiled)


@dataclass(frozen=True)
class Spread:
    """Name the items of list ``var`` by place when there are exactly ``len(names)`` (``None`` skips a place);
    otherwise, if ``rest`` is given and there are items, set field ``rest`` to them joined by commas."""

    var: str
    names: tuple[str | None, ...]
    rest: str | None = None


@dataclass(frozen=True)
class Classify:
    """Each token of list ``text`` goes to the field of the first ``(field, pattern)`` it matches whole (appended
    after a comma when the field has a value); the tokens none matches are joined by ``sep`` into field ``rest``."""

    text: Template
    tokens: tuple[tuple[str, re.Pattern[str]], ...]
    rest: str
    sep: str

    def __init__(self, text: str, tokens: Sequence[tuple[str, str]], rest: str, sep: str) -> None:
        object.__setattr__(self, "text", Template.parse(text))
        object.__setattr__(self, "tokens", tuple((f, _compile(p)) for f, p in tokens))
        object.__setattr__(self, "rest", rest)
        object.__setattr__(self, "sep", sep)


@dataclass(frozen=True)
class When:
    """``then`` when every condition holds, else ``otherwise``. A condition maps a variable to ``True`` (it has a
    value that is not empty), ``False`` (it has none, or an empty one) or a pattern its text matches whole."""

    conditions: tuple[tuple[str, bool | re.Pattern[str]], ...]
    then: tuple[Step, ...]
    otherwise: tuple[Step, ...] = ()

    def __init__(self, conditions: Mapping[str, bool | str], then: Sequence, otherwise: Sequence = ()) -> None:
        conds = tuple((k, c if isinstance(c, bool) else _compile(c)) for k, c in conditions.items())
        object.__setattr__(self, "conditions", conds)
        object.__setattr__(self, "then", steps(then))
        object.__setattr__(self, "otherwise", steps(otherwise))

    def holds(self, env: Mapping[str, str | list[str]]) -> bool:
        for var, cond in self.conditions:
            v = env.get(var)
            if isinstance(cond, bool):
                if bool(v) != cond:
                    return False
            elif not isinstance(v, str) or cond.fullmatch(v) is None:
                return False
        return True


@dataclass(frozen=True)
class Show:
    """The label: ``form`` (``kernel.<form>`` of the word table, or ``raw``), ``values`` kept as they are in every
    language, ``words`` as ``key`` or ``(key, fallback)`` templates (a key alone falls back to itself; no value:
    empty), and ``items``, a template that gives the list the label ends with."""

    form: str
    values: dict[str, tuple[Template, ...]] = field(hash=False)
    words: dict[str, tuple[Template, Template | None]] = field(hash=False)
    items: Template | None = None

    def __init__(
        self,
        form: str,
        values: Mapping[str, str | Sequence[str]] | None = None,
        words: Mapping[str, str | tuple[str, str]] | None = None,
        items: str | None = None,
    ) -> None:
        object.__setattr__(self, "form", form)
        object.__setattr__(self, "values", {k: _templates(v) for k, v in (values or {}).items()})
        pairs = {k: (w, None) if isinstance(w, str) else w for k, w in (words or {}).items()}
        parsed = {
            k: (Template.parse(key), None if fb is None else Template.parse(fb)) for k, (key, fb) in pairs.items()
        }
        object.__setattr__(self, "words", parsed)
        object.__setattr__(self, "items", None if items is None else Template.parse(items))
        if set(self.values) & set(self.words):
            raise ValueError(f"label {form!r}: {sorted(set(self.values) & set(self.words))} are values and words")

    def label(self, env: Mapping[str, str | list[str]], tables: Tables) -> Label:
        values = {k: _text(_first(alts, env, tables)) for k, alts in self.values.items()}
        words = {}
        for k, (key_t, fb_t) in self.words.items():
            key = _text(key_t.value(env, tables))
            words[k] = (key, key if fb_t is None else _text(fb_t.value(env, tables)))
        items = self.items.value(env, tables) if self.items else None
        return Label(self.form, values, words, tuple(items) if isinstance(items, list) else ())


def _text(v: Value) -> str:
    if isinstance(v, list):
        raise TypeError(f"a label's value is a list: {v!r}")
    return v or ""


Step = Union[Set, Search, Find, Spread, Classify, When, Show]  # noqa: UP007


def steps(specs: Sequence) -> tuple[Step, ...]:
    """Steps from their table spelling: ``(name, template or alternatives)`` is a :class:`Set`."""
    out = []
    for s in specs:
        if isinstance(s, tuple) and len(s) == 2 and isinstance(s[0], str):
            out.append(Set(s[0], _templates(s[1])))
        elif isinstance(s, (Set, Search, Find, Spread, Classify, When, Show)):
            out.append(s)
        else:
            raise TypeError(f"not a step: {s!r}")
    return tuple(out)


# --- rules ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """One line of the decoder table: a pattern, the family it identifies, and the steps that read a match.

    A step may set a field ``family`` to override the family (ATen's elementwise launcher serves copies and fills
    too); the steps must show a label.
    """

    family: str
    pattern: re.Pattern[str]
    steps: tuple[Step, ...]

    def __init__(self, family: str, pattern: str, steps_: Sequence) -> None:
        object.__setattr__(self, "family", family)
        object.__setattr__(self, "pattern", _compile(pattern))
        object.__setattr__(self, "steps", steps(steps_))


class _Run:
    """One rule reading one match: the variables, the fields, the label."""

    def __init__(self, name: str, m: re.Match[str], tables: Tables) -> None:
        self.tables = tables
        self.env: dict[str, str | list[str]] = {k: v for k, v in m.groupdict().items() if v is not None}
        self.env.update({"@name": name, "@after": name[m.end() :]})
        self.fields: dict[str, str] = {}
        self.label: Label | None = None

    def set(self, name: str, v: Value) -> None:
        if v is None:
            return
        if not name.startswith("_"):
            if not isinstance(v, str):
                raise TypeError(f"field {name!r} would be a list: {v!r}")
            self.fields[name] = v
        self.env[name] = v

    def run(self, todo: Sequence[Step]) -> None:
        for step in todo:
            if isinstance(step, Set):
                self.set(step.name, _first(step.value, self.env, self.tables))
            elif isinstance(step, Search):
                text = step.text.value(self.env, self.tables)
                for pattern in step.patterns if isinstance(text, str) else ():
                    if m := pattern.search(text):
                        self.env.update({k: v for k, v in m.groupdict().items() if v is not None})
                        break
            elif isinstance(step, Find):
                text = step.text.value(self.env, self.tables)
                found = step.pattern.findall(text) if isinstance(text, str) else []
                self.env[step.var] = found
            elif isinstance(step, Spread):
                items = self.env.get(step.var) or []
                if len(items) == len(step.names):
                    for n, v in zip(step.names, items, strict=True):
                        if n:
                            self.set(n, v)
                elif step.rest and items:
                    self.set(step.rest, ",".join(items))
            elif isinstance(step, Classify):
                self._classify(step)
            elif isinstance(step, When):
                self.run(step.then if step.holds(self.env) else step.otherwise)
            elif isinstance(step, Show):
                self.label = step.label(self.env, self.tables)

    def _classify(self, step: Classify) -> None:
        tokens = step.text.value(self.env, self.tables)
        rest = []
        for tok in tokens if isinstance(tokens, list) else ():
            for key, pattern in step.tokens:
                if pattern.fullmatch(tok):
                    self.set(key, f"{self.fields[key]},{tok}" if key in self.fields else tok)
                    break
            else:
                rest.append(tok)
        if rest:
            self.set(step.rest, step.sep.join(rest))


class Decoder:
    """A rule table and the tables its pipes name, ready to decode."""

    def __init__(self, rules: Sequence[Rule], tables: Tables) -> None:
        self.rules = tuple(rules)
        self.tables = tables
        for rule in self.rules:
            for hole in (h for t in templates(rule.steps) for h in t.holes()):
                for name, args in hole.pipes:
                    if name in ("map", "lookup", "names") and args[0] not in tables:
                        raise ValueError(f"rule {rule.pattern.pattern!r}: no table {args[0]!r}")

    def decode(self, name: str) -> KernelInfo:
        """:func:`attnprof.analysis.kernels.decode` with this table."""
        for rule in self.rules:
            m = rule.pattern.search(name)
            if m is None:
                continue
            run = _Run(name, m, self.tables)
            run.run(rule.steps)
            if run.label is None:
                raise ValueError(f"rule {rule.pattern.pattern!r} showed no label for {name!r}")
            family = run.fields.pop("family", rule.family)
            return KernelInfo(
                name=name, family=family, short=run.label.text("en"), fields=run.fields, label=run.label
            )
        label = Label("raw", {"name": shorten(name)})
        return KernelInfo(name=name, family="other", short=label.text("en"), fields={}, label=label)


def templates(todo: Sequence[Step]) -> list[Template]:
    """Every template of some steps, nested ones included."""
    out: list[Template] = []
    for step in todo:
        if isinstance(step, Set):
            out += step.value
        elif isinstance(step, (Search, Find, Classify)):
            out.append(step.text)
        elif isinstance(step, When):
            out += templates(step.then) + templates(step.otherwise)
        elif isinstance(step, Show):
            out += [t for alts in step.values.values() for t in alts]
            out += [t for pair in step.words.values() for t in pair if t is not None]
            out += [step.items] if step.items else []
    return out


#: The label of a name shown as it is, shortened (:func:`~attnprof.analysis.kernels.labels.shorten`).
RAW = Show("raw", values={"name": "{@name|shorten}"})


def pick(name: str, cases: Sequence[tuple[Mapping[str, bool | str], str]], default: str | None = None) -> When:
    """Set field ``name`` to the value of the first case whose conditions hold (else ``default``): nested
    :class:`When` steps, so the browser's engine needs nothing more."""
    (conditions, value), *rest = cases
    otherwise = (pick(name, rest, default),) if rest else (((name, default),) if default is not None else ())
    return When(conditions, ((name, value),), otherwise)
