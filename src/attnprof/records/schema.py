"""Check a JSON document against the types a record's dataclass declares, before the record is built from it.

Every reader of a record file (results, CPU costs, sweeps, context-parallel runs, fixed costs, eligibility grids,
build times) builds dataclasses from a parsed document. A value of the wrong kind (``"shape": "abc"``, a rank
``["a"]``, a time ``"abc"``) would otherwise pass the reader and fail later, far from the file, as an
``AttributeError`` or a ``TypeError``. :func:`check` walks the document once, field by field, against the
dataclass's annotations (nested dataclasses, lists, tuples, dicts, unions, ``None``) and raises
:class:`~attnprof.records.files.UnreadableFile` naming the first bad field and what it should be; :func:`load` is
the one reading path: read (bounded, :func:`attnprof.records.files.read_json`), build, and turn whatever building
raises into one :class:`~attnprof.records.files.UnreadableFile` line naming the file.

No torch here.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from attnprof.records import files

T = TypeVar("T")

#: Fields whose integers must be positive (a tensor's dimensions).
POSITIVE = frozenset({"shape"})


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls)
    except (NameError, TypeError):  # an annotation only a type checker can resolve: checked as Any
        return {}


def _name(tp: Any) -> str:
    """What a value of type ``tp`` is, in words."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_name(a) for a in args)
    if tp is type(None):
        return "null"
    if tp is bool:
        return "true or false"
    if tp is int:
        return "an integer"
    if tp is float:
        return "a number"
    if tp is str:
        return "a string"
    if origin in (list, tuple) or tp in (list, tuple):
        inner = [a for a in args if a is not Ellipsis]
        return f"a list of {_plural(inner[0])}" if len(set(inner)) == 1 else "a list"
    if origin is dict or tp is dict:
        return "an object"
    if dataclasses.is_dataclass(tp):
        return "an object"
    return getattr(tp, "__name__", str(tp))


def _plural(tp: Any) -> str:
    if dataclasses.is_dataclass(tp) or typing.get_origin(tp) is dict or tp is dict:
        return "objects"
    return {int: "integers", float: "numbers", str: "strings", bool: "true or false"}.get(tp, "values")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def problem(tp: Any, value: Any, where: str) -> str | None:
    """The first thing wrong with ``value`` as a ``tp``, as ``"<where>: <what is wrong>"``, or ``None``."""
    if tp is Any or tp is object:
        return None
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        found = [problem(a, value, where) for a in args]
        if any(p is None for p in found):
            return None
        # one branch of the right kind: its own, deeper message (a list whose third item is bad)
        deeper = [p for a, p in zip(args, found, strict=True) if _kind_matches(a, value)]
        return deeper[0] if deeper else f"{where}: {_shown(value)} is not {_name(tp)}"
    if tp is type(None):
        return None if value is None else f"{where}: {_shown(value)} is not null"
    if tp is bool:
        return None if type(value) is bool else f"{where}: {_shown(value)} is not true or false"
    if tp is int:
        return None if type(value) is int else f"{where}: {_shown(value)} is not an integer"
    if tp is float:
        ok = type(value) in (int, float) and not (type(value) is float and math.isinf(value))
        return None if ok else f"{where}: {_shown(value)} is not a number"
    if tp is str:
        return None if type(value) is str else f"{where}: {_shown(value)} is not a string"
    if origin in (list, tuple) or tp in (list, tuple):
        if type(value) is not list:
            return f"{where}: {_shown(value)} is not {_name(tp)}"
        items = [a for a in args if a is not Ellipsis]
        for i, item in enumerate(value):
            inner = items[0] if len(items) == 1 or Ellipsis in args else (items[i] if i < len(items) else Any)
            if (found := problem(inner, item, f"{where}[{i}]")) is not None:
                return found
        return None
    if origin is dict or tp is dict:
        if type(value) is not dict:
            return f"{where}: {_shown(value)} is not an object"
        inner = args[1] if len(args) == 2 else Any
        for key, item in value.items():
            if (found := problem(inner, item, f"{where}.{key}")) is not None:
                return found
        return None
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return fields_problem(tp, value, where)
    return None


def _kind_matches(tp: Any, value: Any) -> bool:
    """Whether ``value`` is of ``tp``'s outer kind (a list for a list type, an object for a dataclass)."""
    origin = typing.get_origin(tp)
    if origin in (list, tuple) or tp in (list, tuple):
        return type(value) is list
    return type(value) is dict and (origin is dict or tp is dict or dataclasses.is_dataclass(tp))


def fields_problem(cls: type, data: Any, where: str = "") -> str | None:
    """The first field of ``data`` that is not of the type ``cls`` declares for it, or ``None``; unknown and missing
    fields are left to the dataclass itself."""
    if type(data) is not dict:
        return f"{where or 'the document'}: {_shown(data)} is not an object"
    hints = _hints(cls)
    for f in dataclasses.fields(cls):
        if f.name not in data or f.name not in hints:
            continue
        here = f"{where}.{f.name}" if where else f.name
        value = data[f.name]
        if (found := problem(hints[f.name], value, here)) is not None:
            return found
        if f.name in POSITIVE and type(value) is list and any(type(n) is int and n <= 0 for n in value):
            return f"{here}: {_shown(value)} holds a dimension that is not positive"
    return None


def check(cls: type, data: Any) -> None:
    """Refuse ``data`` unless every field it has is of the type ``cls`` declares.

    Raises:
        attnprof.records.files.UnreadableFile: naming the first bad field, its value, and what it should be.
    """
    found = fields_problem(cls, data)
    if found is not None:
        raise files.UnreadableFile(f"field {found}")


# --- Chrome trace events -------------------------------------------------------------------------------------------

#: What each field of an event that the trace readers read must be (``None`` is allowed where it is absent).
_NUMBER, _TEXT, _ID = "a number", "a string", "a number or a string"
EVENT_FIELDS = {"ts": _NUMBER, "dur": _NUMBER, "name": _TEXT, "cat": _TEXT, "ph": _TEXT, "pid": _ID, "tid": _ID}
#: The same, for the ``args`` of an event.
ARGS_FIELDS = {"correlation": _NUMBER, "stream": _NUMBER, "registers per thread": _NUMBER, "shared memory": _NUMBER,
               "blocks per SM": _NUMBER, "warps per SM": _NUMBER, "est. achieved occupancy %": _NUMBER,
               "bytes": _NUMBER, "name": _ID}  # fmt: skip


def _is(kind: str, v: Any) -> bool:
    number = type(v) in (int, float) and v == v and v not in (float("inf"), float("-inf"))
    return number if kind == _NUMBER else type(v) is str if kind == _TEXT else number or type(v) is str


def event_problem(events: list[Any]) -> str | None:
    """The first event of ``events`` that is not what the trace readers read, in words (``traceEvents[3]: field
    'ts' is 'abc', not a number``), or ``None``: every event an object, times numbers, names and categories strings,
    ``args`` an object whose launch figures are numbers and whose ``grid`` and ``block`` are lists of integers."""
    for i, e in enumerate(events):
        if type(e) is not dict:
            return f"traceEvents[{i}] is {str(e)[:40]!r}, not an object"
        for key, kind in EVENT_FIELDS.items():
            v = e.get(key)
            if v is not None and not _is(kind, v):
                return f"traceEvents[{i}]: field {key!r} is {str(v)[:40]!r}, not {kind}"
        args = e.get("args")
        if args is None:
            continue
        if type(args) is not dict:
            return f"traceEvents[{i}]: field 'args' is {str(args)[:40]!r}, not an object"
        for key, kind in ARGS_FIELDS.items():
            v = args.get(key)
            if v is not None and not _is(kind, v):
                return f"traceEvents[{i}]: field 'args.{key}' is {str(v)[:40]!r}, not {kind}"
        for key in ("grid", "block"):
            v = args.get(key)
            if v is not None and (type(v) is not list or any(type(n) is not int for n in v)):
                return f"traceEvents[{i}]: field 'args.{key}' is {str(v)[:40]!r}, not a list of integers"
    return None


# --- reading -------------------------------------------------------------------------------------------------------


def load(path: str | os.PathLike[str], build: Callable[[Any], T], what: str) -> T:
    """Read the record file ``path`` (:func:`attnprof.records.files.read_json`) and build it with ``build``.

    Whatever building raises becomes one :class:`~attnprof.records.files.UnreadableFile` naming the file (a
    :class:`~attnprof.records.results.StaleResultError` stays one): no ``TypeError``, ``KeyError`` or
    ``AttributeError`` leaves a reader.

    Raises:
        FileNotFoundError: if there is no such file.
        attnprof.records.files.UnreadableFile: for a file that cannot be read, is not JSON, or is not ``what``.
    """
    path = Path(path)
    data = files.read_json(path)
    try:
        return build(data)
    except files.UnreadableFile as exc:
        raise type(exc)(f"{path.name}: {exc}", path) from exc
    except (TypeError, KeyError, AttributeError, ValueError, IndexError, RecursionError) as exc:
        raise files.UnreadableFile(f"{path.name}: not {what}: {type(exc).__name__}: {exc}", path) from None
