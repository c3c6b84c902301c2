"""Numbers said as players say them: "1 card", "2 cards", never "2 card(s)"."""

from __future__ import annotations


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
