"""Numbers said as players say them: "1 card", "2 cards", never "2 card(s)"."""

from __future__ import annotations

import re


def counted(n: int, one: str, many: str | None = None) -> str:
    """``n`` and the word for that many; ``many`` where the plural is not ``one`` + "s".

    Example:
        >>> counted(1, "crown"), counted(3, "crown"), counted(2, "property", "properties")
        ('1 crown', '3 crowns', '2 properties')
    """
    return f"{n} {one if n == 1 else many or one + 's'}"


def listed(items: list[str]) -> str:
    """Items said as a list is said: "a", "a and b", "a, b and c".

    Example:
        >>> listed(["minor"]), listed(["minor", "major", "attention"])
        ('minor', 'minor, major and attention')
    """
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


# A state's field path: a name with indices (``players[1].tiles[3][2]``), or names joined by dots.
_PATH = re.compile(r"\b[a-z_]+(?:\[\d+\])+(?:\.[a-z_]+(?:\[\d+\])*)*")
_GRIDS = {"rows", "cells", "tiles", "squares", "grid"}
_ONE = {"noblemen": "nobleman", "setup": "the set-up"}


def where_said(where: str) -> str:
    """A field of a state as a player says it: rows, columns and pieces counted from 1, no code words.

    Example:
        >>> where_said("players[1].tiles[3][2]"), where_said("noblemen[5]"), where_said("rows[0]")
        ('player 2, row 4, column 3', 'nobleman 6', 'row 1')
        >>> where_said("setup.preferences.minor"), where_said("track_score")
        ('the set-up, preferences, minor', 'track score')
    """
    said = []
    for part in where.split("."):
        name, *found = re.findall(r"[^\[\]]+", part) or [part]
        numbers = [int(n) + 1 for n in found if n.isdigit()]
        if name in _GRIDS and len(numbers) == 2:
            said.append(f"row {numbers[0]}, column {numbers[1]}")
        elif name in _GRIDS and numbers:
            said.append(f"row {numbers[0]}")
        elif numbers:
            one = _ONE.get(name, name[:-1] if name.endswith("s") else name).replace("_", " ")
            said.append(" ".join([one, *map(str, numbers)]))
        else:
            said.append(_ONE.get(name, name.replace("_", " ")))
    return ", ".join(said)


def paths_said(text: str) -> str:
    """``text`` with every field path in it said as :func:`where_said` says it.

    Example:
        >>> paths_said("same floor, path and decor as players[0].tiles[0][1]; each of the 90 is unique")
        'same floor, path and decor as player 1, row 1, column 2; each of the 90 is unique'
    """
    return _PATH.sub(lambda m: where_said(m.group(0)), text)
