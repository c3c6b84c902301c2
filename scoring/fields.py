"""Typed reading of decoded JSON with error messages that name the offending field.

The rule engines receive plain decoded JSON (dicts, lists, str, int); these helpers turn it into typed values
or raise :class:`~scoring.core.StateError` saying which field is wrong and what was expected.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from scoring.core import StateError

T = TypeVar("T")
JsonObject = Mapping[str, Any]

_MISSING = object()


def _name(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def as_object(value: object, path: str) -> JsonObject:
    if not isinstance(value, Mapping):
        raise StateError(f"{path or 'state'}: expected an object, got {_type_name(value)}")
    return value


def as_int(value: object, path: str, lo: int | None = None, hi: int | None = None) -> int:
    # bool is an int subclass in Python but never a count in a state file.
    if isinstance(value, bool) or not isinstance(value, int):
        raise StateError(f"{path}: expected a whole number, got {_type_name(value)} {value!r}")
    if lo is not None and value < lo:
        raise StateError(f"{path}: {value} is below the minimum {lo}")
    if hi is not None and value > hi:
        raise StateError(f"{path}: {value} is above the maximum {hi}")
    return value


def as_float(value: object, path: str, lo: float | None = None, hi: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise StateError(f"{path}: expected a number, got {_type_name(value)} {value!r}")
    try:
        number = float(value)
    except OverflowError:  # a whole number beyond float's range, e.g. 1 followed by 400 zeros
        raise StateError(f"{path}: a number of {len(str(abs(value)))} digits is too large") from None
    if not math.isfinite(number):
        raise StateError(f"{path}: expected a finite number, got {value!r}")
    if lo is not None and number < lo:
        raise StateError(f"{path}: {value} is below the minimum {lo}")
    if hi is not None and number > hi:
        raise StateError(f"{path}: {value} is above the maximum {hi}")
    return number


def as_str(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise StateError(f"{path}: expected a string, got {_type_name(value)}")
    return value


def as_bool(value: object, path: str) -> bool:
    if not isinstance(value, bool):
        raise StateError(f"{path}: expected true or false, got {_type_name(value)}")
    return value


def as_list(value: object, path: str, length: int | None = None) -> Sequence[Any]:
    if not isinstance(value, list):
        raise StateError(f"{path}: expected a list, got {_type_name(value)}")
    if length is not None and len(value) != length:
        raise StateError(f"{path}: expected {length} entries, got {len(value)}")
    return value


def as_choice(value: object, path: str, choices: Sequence[str]) -> str:
    text = as_str(value, path)
    if text not in choices:
        raise StateError(f"{path}: {text!r} is not one of {', '.join(choices)}")
    return text


def get(obj: JsonObject, key: str, path: str, default: object = _MISSING) -> Any:
    """The value of ``obj[key]``, or ``default``; a missing required key names its full path."""
    if key in obj:
        return obj[key]
    if default is _MISSING:
        raise StateError(f"{_name(path, key)}: missing field")
    return default


def item_path(path: str, key: str | int) -> str:
    """The path of a field or list item, as error messages print it (``players[1].rows``)."""
    return _name(path, key)


def reject_unknown(obj: JsonObject, known: Sequence[str], path: str) -> None:
    """Refuse keys a state format does not define: a typo must not silently score as a default."""
    unknown = sorted(set(obj) - set(known))
    if unknown:
        where = path or "state"
        raise StateError(f"{where}: unknown field(s) {', '.join(unknown)}; expected {', '.join(known)}")
