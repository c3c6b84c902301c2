"""What the players type in, described as a form: the fields a photo cannot show, in the rulebook's words.

Each game lists its hand-entry fields as a :data:`Form` (see its registry entry); the web app draws the form
from :func:`form_json` and :func:`check` refuses a bad entry in the players' words, naming the field by its
label, before any photo is read. The rules still parse and check the whole state: the form only asks well.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.core import StateError


@dataclass(frozen=True)
class Number:
    """A whole number, ``lo`` to ``hi``: as far as the game allows, so that a slip of the finger is caught.

    Left blank, it is left out and the rules' own ``default`` stands (the page shows it greyed). Where the
    rules have none (``default`` None), a blank is refused when ``required``, asking a count "0 if none" (a
    Tang Garden player's coins, most of a score, must never score 0 forgotten), else it means "not given" (a
    tie-break count)."""

    key: str
    label: str
    lo: int
    hi: int
    default: int | None = 0
    hint: str = ""
    required: bool = False


@dataclass(frozen=True)
class Numbers:
    """A fixed count of whole numbers, each named (Sanssouci's two mission cards)."""

    key: str
    label: str
    names: tuple[str, ...]
    lo: int
    hi: int
    hint: str = ""
    # No two alike (two mission cards are two cards).
    distinct: bool = False


@dataclass(frozen=True)
class Choice:
    """One of ``options`` (value, words)."""

    key: str
    label: str
    options: tuple[tuple[str, str], ...]
    default: str = ""
    hint: str = ""
    # May be left unchosen: the key is then left out, and the rules' default stands.
    optional: bool = False
    # Each player has their own (a marker colour): a new player starts with one no other has, and two
    # players with the same are refused.
    distinct: bool = False


@dataclass(frozen=True)
class Choices:
    """Any of ``options`` (value, words): a list of the values ticked, in the options' order."""

    key: str
    label: str
    options: tuple[tuple[Any, str], ...]
    default: tuple[Any, ...] = ()
    most: int | None = None
    hint: str = ""


@dataclass(frozen=True)
class Group:
    """An object of its own fields (a player's cards)."""

    key: str
    label: str
    fields: tuple[Field, ...]
    hint: str = ""


@dataclass(frozen=True)
class Players:
    """One entry of ``fields`` per player (a name first), ``least`` to ``most`` of them."""

    key: str
    label: str
    fields: tuple[Field, ...]
    least: int
    most: int
    hint: str = ""


Field = Number | Numbers | Choice | Choices | Group | Players
Form = tuple[Field, ...]

PLAYER_NAME = "name"
# What to do about a required count left blank (a Tang Garden player's coins), as the page and a refusal say.
BLANK_COUNT = "type how many, 0 if none"
# What to do about two numbers alike where no two may be (a Sanssouci player's two mission cards).
DISTINCT = "no two may be the same: check each"


def form_json(form: Form) -> list[dict[str, Any]]:
    """The form as the web page draws it."""
    return [_field_json(f) for f in form]


def _field_json(field: Field) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": type(field).__name__.lower(), "key": field.key, "label": field.label}
    if field.hint:
        out["hint"] = field.hint
    if isinstance(field, Number):
        out.update(lo=field.lo, hi=field.hi, default=field.default, required=field.required)
        if field.required:
            out["blank"] = BLANK_COUNT
    elif isinstance(field, Numbers):
        out.update(names=list(field.names), lo=field.lo, hi=field.hi, distinct=field.distinct)
    elif isinstance(field, Choice):
        first = "" if field.optional else field.options[0][0]
        out.update(
            options=[list(o) for o in field.options],
            default=field.default or first,
            optional=field.optional,
            distinct=field.distinct,
        )
    elif isinstance(field, Choices):
        out.update(options=[list(o) for o in field.options], default=list(field.default), most=field.most)
    elif isinstance(field, Group):
        out["fields"] = form_json(field.fields)
    else:
        out.update(fields=form_json(field.fields), least=field.least, most=field.most)
    return out


def check(form: Form, entry: Mapping[str, Any], partial: bool = False) -> None:
    """Refuses a hand entry the form would not have let through, naming the field by its label.

    Fields the form does not list are left to the rules (the advanced JSON view may set any). ``partial``: a
    set-up typed in ahead of the game, whose required counts the players fill in at its end."""
    _check_fields(form, entry, lambda field: field.label, partial)


def _check_fields(
    fields: Sequence[Field], entry: Mapping[str, Any], where: Callable[[Field], str], partial: bool
) -> None:
    """Each of ``fields`` in ``entry`` checked, named by ``where``; a required count left out is refused."""
    for field in fields:
        if field.key in entry:
            _check(field, entry[field.key], where(field), partial)
        elif isinstance(field, Number) and field.required and not partial:
            raise StateError(f"{where(field)}: {BLANK_COUNT}")


def _check(field: Field, value: Any, where: str, partial: bool) -> None:
    if isinstance(field, Number):
        _whole(value, where, field.lo, field.hi)
    elif isinstance(field, Numbers):
        if not isinstance(value, list) or len(value) != len(field.names):
            raise StateError(f"{where}: give {len(field.names)} numbers ({', '.join(field.names)})")
        for name, item in zip(field.names, value, strict=True):
            _whole(item, f"{where}, {name}", field.lo, field.hi)
        if field.distinct and len(set(value)) < len(value):
            raise StateError(f"{where}: {DISTINCT}")
    elif isinstance(field, Choice):
        # Compared, not hashed: a list typed as JSON is refused, not a crash.
        if value not in [v for v, _ in field.options]:
            raise StateError(f"{where}: choose one of {', '.join(w for _, w in field.options)}")
    elif isinstance(field, Choices):
        allowed = [v for v, _ in field.options]
        if not isinstance(value, list) or any(v not in allowed for v in value):
            raise StateError(f"{where}: tick any of {', '.join(w for _, w in field.options)}")
        if field.most is not None and len(value) > field.most:
            raise StateError(f"{where}: at most {field.most}")
    elif isinstance(field, Group):
        if not isinstance(value, Mapping):
            raise StateError(f"{where}: fill in its fields")
        _check_fields(field.fields, value, lambda inner: f"{where}, {inner.label}", partial)
    else:
        _check_players(field, value, where, partial)


def _check_players(field: Players, value: Any, where: str, partial: bool) -> None:
    if not isinstance(value, list) or not field.least <= len(value) <= field.most:
        raise StateError(f"{where}: the game takes {field.least} to {field.most} players")
    names = []
    for i, player in enumerate(value, start=1):
        if not isinstance(player, Mapping):
            raise StateError(f"{where}: player {i} is not filled in")
        name = player.get(PLAYER_NAME)
        who = name if isinstance(name, str) and name.strip() else f"Player {i}"
        _check_fields(field.fields, player, _possessive(who), partial)
        names.append(who)
    for inner in field.fields:
        if isinstance(inner, Choice) and inner.distinct:
            _check_distinct(inner, value, names)


def _possessive(who: str) -> Callable[[Field], str]:
    """Names a player's field: "Ann's coins"."""
    return lambda field: f"{who}'s {field.label.lower()}"


def _check_distinct(field: Choice, players: Sequence[Mapping[str, Any]], names: Sequence[str]) -> None:
    """Refuses two players with the same of what each must have their own, naming both."""
    holder: dict[Any, str] = {}
    words = dict(field.options)
    for who, player in zip(names, players, strict=True):
        value = player.get(field.key)
        if value is None:
            continue
        if value in holder:
            raise StateError(
                f"{holder[value]} and {who} both chose {words[value]} for their {field.label.lower()}: "
                "pick a different one for each player"
            )
        holder[value] = who


def _whole(value: Any, where: str, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise StateError(f"{where}: type a whole number")
    if not lo <= value <= hi:
        raise StateError(f"{where}: {value} is not possible; it is {lo} to {hi}")


def named(options: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """Options whose words are their values, dashes read as spaces."""
    return tuple((o, o.replace("-", " ")) for o in options)
