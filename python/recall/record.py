"""Typed records for the hook path: what `msgspec.Struct` gave us, without its import.

A hook is a whole process per agent turn, and importing msgspec costs it
~22 ms (with `typing_extensions`, which the model's packages install; ~14 ms
without), `dataclasses` ~9 ms (it imports `inspect`): more than the hook's own
work. `Record` costs nothing to import beyond `typing`. Subclasses declare
annotated fields with optional defaults, `field(default_factory=...)` for
mutable ones and `frozen=True` for immutable records; type checkers see them
as dataclasses (`dataclass_transform`). `convert` validates decoded data (the
TOML config) against a record type, rejecting unknown fields, as
`msgspec.convert` did for `forbid_unknown_fields` structs.
"""

from __future__ import annotations

import math
import types
import typing
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar, dataclass_transform

R = TypeVar("R", bound="Record")

_MISSING: Any = object()


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], Any]) -> Any:
    """A field whose default is made fresh for every record (lists, dicts)."""
    return _Factory(default_factory)


def _make_init(cls: type, names: tuple[str, ...], defaults: dict[str, Any], frozen: bool) -> None:
    """Write `__init__` as source, as dataclasses does: one plain function per class,
    as fast as a hand-written one (sync builds a record per message)."""
    scope: dict[str, Any] = {"_MISSING": _MISSING}
    params, body = [], []
    for name in names:
        if name not in defaults:
            params.append(name)
            value = name
        elif isinstance(defaults[name], _Factory):
            scope[f"_f_{name}"] = defaults[name].make
            params.append(f"{name}=_MISSING")
            value = f"_f_{name}() if {name} is _MISSING else {name}"
        else:
            scope[f"_d_{name}"] = defaults[name]
            params.append(f"{name}=_d_{name}")
            value = name
        # A frozen record's own __setattr__ refuses, so it fills its __dict__ directly.
        body.append(f"_d[{name!r}] = {value}" if frozen else f"self.{name} = {value}")
    if frozen and body:
        body.insert(0, "_d = self.__dict__")
    source = f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(body or ["pass"])
    exec(source, scope)
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[misc]


def _immutable(self: Any, name: str, value: Any) -> None:
    raise AttributeError(f"{type(self).__name__} is immutable")


@dataclass_transform(field_specifiers=(field,))
class Record:
    """Base of plain records: positional or keyword construction, equality, repr."""

    _record_fields: ClassVar[tuple[str, ...]] = ()
    _record_defaults: ClassVar[dict[str, Any]] = {}
    _record_frozen: ClassVar[bool] = False

    def __init_subclass__(cls, frozen: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names = list(cls._record_fields)
        defaults = dict(cls._record_defaults)
        own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 - `inspect` costs ~8 ms
        for name, annotation in own.items():
            if "ClassVar" in str(annotation):
                continue
            if name not in names:
                names.append(name)
            if name in cls.__dict__:
                defaults[name] = cls.__dict__[name]
                delattr(cls, name)  # instances hold the value; a factory must not show
            elif defaults and name not in defaults:
                raise TypeError(f"{cls.__name__}.{name}: a field without default after defaults")
        cls._record_fields = tuple(names)
        cls._record_defaults = defaults
        cls._record_frozen = frozen
        if frozen:
            cls.__setattr__ = _immutable  # type: ignore[method-assign]
        _make_init(cls, cls._record_fields, defaults, frozen)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, n) for n in self._record_fields)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        if not self._record_frozen:
            raise TypeError(f"unhashable type: {type(self).__name__!r}")
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._record_fields)
        return f"{type(self).__name__}({fields})"


def asdict(record: Record) -> dict[str, Any]:
    """The record's fields, shallow (nested records stay records)."""
    return {n: getattr(record, n) for n in record._record_fields}


def replace(record: R, **changes: Any) -> R:
    """A copy of `record` with `changes` applied (shallow, like `dataclasses.replace`)."""
    return type(record)(**{**asdict(record), **changes})


def to_builtins(value: Any) -> Any:
    """`value` with records turned into dicts, all the way down, and non-finite
    floats into None (JSON has no NaN or Infinity)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Record):
        return {n: to_builtins(getattr(value, n)) for n in value._record_fields}
    if isinstance(value, dict):
        return {k: to_builtins(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_builtins(v) for v in value]
    return value


class ConversionError(ValueError):
    """Decoded data that does not fit a record type; the message says where."""


_SCALARS: dict[type, str] = {str: "str", bool: "bool", int: "int", float: "float"}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return _SCALARS.get(type(value), type(value).__name__)


def _convert(value: Any, hint: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    if hint is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        arms = [a for a in typing.get_args(hint) if a is not type(None)]
        if value is None and len(arms) < len(typing.get_args(hint)):
            return None
        if len(arms) == 1:  # an optional field: the error is the inner type's
            return _convert(value, arms[0], where)
        for arm in arms:
            try:
                return _convert(value, arm, where)
            except ConversionError:
                continue
        expected = " | ".join(_name(a) for a in typing.get_args(hint))
        raise ConversionError(f"Expected `{expected}`, got `{_kind(value)}` - at `{where}`")
    if hint is type(None):
        if value is None:
            return None
    elif origin is list:
        if isinstance(value, list):
            (item,) = typing.get_args(hint)
            return [_convert(v, item, f"{where}[{i}]") for i, v in enumerate(value)]
    elif origin is dict:
        if isinstance(value, dict):
            _, item = typing.get_args(hint)
            for k in value:
                if not isinstance(k, str):
                    raise ConversionError(f"Expected `str` keys - at `{where}`")
            return {k: _convert(v, item, f"{where}.{k}") for k, v in value.items()}
    elif isinstance(hint, type) and issubclass(hint, Record):
        if isinstance(value, dict):
            return convert(value, hint, where)
    elif hint is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    elif hint in (str, bool, int):
        if type(value) is hint:
            return value
    else:
        raise TypeError(f"record field type {hint!r} is not supported")
    raise ConversionError(f"Expected `{_name(hint)}`, got `{_kind(value)}` - at `{where}`")


def _name(hint: Any) -> str:
    if hint is type(None):
        return "null"
    if isinstance(hint, type) and issubclass(hint, Record):
        return "object"
    origin = typing.get_origin(hint)
    if origin is list:
        return "array"
    if origin is dict:
        return "object"
    return getattr(hint, "__name__", str(hint))


def convert(data: Any, cls: type[R], where: str = "$") -> R:
    """`data` (decoded JSON or TOML) as a `cls`, checked field by field; unknown
    fields, missing required fields and wrong types raise `ConversionError`."""
    if not isinstance(data, dict):
        raise ConversionError(f"Expected `object`, got `{_kind(data)}` - at `{where}`")
    hints = typing.get_type_hints(cls)
    for key in data:
        if key not in cls._record_fields:
            raise ConversionError(f"Object contains unknown field `{key}` - at `{where}`")
    values = {}
    for name in cls._record_fields:
        if name in data:
            values[name] = _convert(data[name], hints[name], f"{where}.{name}")
        elif name not in cls._record_defaults:
            raise ConversionError(f"Object missing required field `{name}` - at `{where}`")
    return cls(**values)
