"""What a scorer says on the broker, and how: the contract the scorer, the hall and Home Assistant share.

Every table's topics lie under ``garden-scorer/TABLE/`` (Frigate's shape):

- ``available``: ``online`` or ``offline``, retained; ``offline`` is also the client's last will, which the
  broker sends when the scorer goes without saying goodbye (power cut, ``kill -9``).
- ``score``: the table's latest scores, retained (:func:`score_message`): a receiver that subscribes later,
  Home Assistant after a restart, has them at once. Updated by the live camera and by every photo scored or
  corrected.
- ``result``: each finished game, not retained, at least once (QoS 1): its ``result_id`` lets a receiver drop
  a repeat, its ``replaces`` names the result a correction takes the place of.

Home Assistant finds each table as a device (:func:`discovery_messages`), under ``homeassistant/``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from device.history import GameRecord
from scoring.registry import GAMES

PREFIX = "garden-scorer"
DISCOVERY_PREFIX = "homeassistant"
ONLINE, OFFLINE = "online", "offline"
AVAILABLE, SCORE, RESULT = "available", "score", "result"
# A table's name is one topic level and part of Home Assistant's ids: kept to what both take as it is.
TABLE_NAME = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?")
# The broker's users of the hall and of Home Assistant (systemd/mosquitto/): never a table's name.
RESERVED = ("hall", "homeassistant")
# Home Assistant gets a sensor per seat, the most players any game here seats (a seat no one sits at reads
# "unknown"): sensors that came and went with the game played would leave stale entities behind.
SEATS = 6
# What the hall subscribes to: every table's three topics.
EVERY_TABLE = tuple(f"{PREFIX}/+/{kind}" for kind in (AVAILABLE, SCORE, RESULT))


def check_table(name: str) -> str:
    """``name`` when it can name a table on the broker; else ValueError, saying what would."""
    if not TABLE_NAME.fullmatch(name):
        raise ValueError(
            f"{name!r} cannot name a table: use lowercase letters, digits and '-' (up to 40), such as "
            "'table-3' or 'kitchen'"
        )
    if name in RESERVED:
        raise ValueError(
            f"{name!r} is the name of the broker's user for the hall or Home Assistant: name the table "
            "otherwise"
        )
    return name


def topic(table: str, kind: str) -> str:
    """The topic of ``kind`` (:data:`AVAILABLE`, :data:`SCORE`, :data:`RESULT`) of ``table``."""
    return f"{PREFIX}/{check_table(table)}/{kind}"


def table_of(name: str) -> tuple[str, str] | None:
    """(table, kind) of a topic of :data:`EVERY_TABLE`; None for any other topic."""
    parts = name.split("/")
    if len(parts) != 3 or parts[0] != PREFIX or parts[2] not in (AVAILABLE, SCORE, RESULT):
        return None
    return (parts[1], parts[2]) if TABLE_NAME.fullmatch(parts[1]) else None


@dataclass(frozen=True)
class Seat:
    """One player's score at a table: their name (None: nobody said who sat there) and total (None: not
    scored, the board read but something to check first)."""

    name: str | None
    total: int | None


@dataclass(frozen=True)
class Played:
    """A table's scores as one message carries them (``score`` or ``result``)."""

    table: str
    game: str
    result_id: str
    time: datetime
    players: tuple[Seat, ...]
    boards: tuple[Mapping[str, Any], ...]
    finished: bool
    replaces: str | None = None

    def to_json(self) -> dict[str, Any]:
        rules = GAMES.get(self.game)
        out: dict[str, Any] = {
            "table": self.table,
            "game": self.game,
            # As people say it, for Home Assistant's sensor and anyone reading the message.
            "title": rules.title if rules is not None else self.game,
            "result_id": self.result_id,
            "time": self.time.astimezone(UTC).isoformat(),
            "players": [{"name": s.name, "total": s.total} for s in self.players],
            "boards": [dict(b) for b in self.boards],
            "finished": self.finished,
        }
        if self.replaces is not None:
            out["replaces"] = self.replaces
        return out

    def payload(self) -> bytes:
        return json.dumps(self.to_json(), separators=(",", ":")).encode()


def read_played(table: str, payload: bytes) -> Played:
    """The message ``payload`` of ``table``'s ``score`` or ``result`` topic; ValueError, saying what is wrong,
    for one that is not such a message (a receiver skips it: anyone allowed to publish may send anything)."""
    try:
        data = json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    game, result_id, time = data.get("game"), data.get("result_id"), data.get("time")
    if not isinstance(game, str) or not isinstance(result_id, str) or not result_id:
        raise ValueError("no game or result_id")
    try:
        when = datetime.fromisoformat(str(time))
    except ValueError:
        raise ValueError(f"time {time!r} is not an ISO 8601 time") from None
    if when.tzinfo is None:
        raise ValueError(f"time {time!r} has no time zone")
    players = data.get("players")
    boards = data.get("boards", [])
    if not isinstance(players, list) or not isinstance(boards, list):
        raise ValueError("players and boards must be lists")
    seats = []
    for p in players:
        name, total = (p.get("name"), p.get("total")) if isinstance(p, dict) else (None, None)
        if not isinstance(p, dict) or not (name is None or isinstance(name, str)):
            raise ValueError("each player is {name, total}")
        if not (total is None or (isinstance(total, int) and not isinstance(total, bool))):
            raise ValueError(f"a player's total {total!r} is not a whole number")
        seats.append(Seat(name or None, total))
    replaces = data.get("replaces")
    return Played(
        table=table,
        game=game,
        result_id=result_id,
        time=when,
        players=tuple(seats),
        boards=tuple(b for b in boards if isinstance(b, dict)),
        finished=bool(data.get("finished", False)),
        replaces=replaces if isinstance(replaces, str) and replaces else None,
    )


def played(
    table: str, record: GameRecord, result_id: str, finished: bool, replaces: str | None = None
) -> Played:
    """A game of the history as ``table`` says it on the broker: each player's seat as the history scores
    it (a board of its own, or every player of a shared board), the boards' breakdowns as the TV shows
    them."""
    return Played(
        table=table,
        game=record.game,
        result_id=result_id,
        time=datetime.now(UTC),
        players=tuple(Seat(name, total) for board in record.boards for name, total in board.scores()),
        boards=tuple(board.data for board in record.boards),
        finished=finished,
        replaces=replaces,
    )


def discovery_messages(table: str, version: str) -> list[tuple[str, dict[str, Any]]]:
    """Home Assistant's MQTT discovery configs for ``table`` (topic, JSON), each to be published retained:
    the table a device, with a sensor for the game played and one per seat for its score, each available
    while the table's ``available`` topic says ``online``. The fields are those of Home Assistant's MQTT
    sensor (``state_topic``, ``unique_id``, ``device.identifiers``, ...), in full, not abbreviated."""
    check_table(table)
    node = f"{PREFIX}-{table}"
    device = {
        "identifiers": [node],
        "name": f"Game table {table}",
        "manufacturer": "garden-scorer",
        "model": "Camera scorer",
        "sw_version": version,
    }
    common = {
        "state_topic": topic(table, SCORE),
        "availability_topic": topic(table, AVAILABLE),
        "payload_available": ONLINE,
        "payload_not_available": OFFLINE,
        "device": device,
        "origin": {"name": "garden-scorer", "sw_version": version},
    }
    out = [
        (
            f"{DISCOVERY_PREFIX}/sensor/{node}/game/config",
            {
                **common,
                "name": "Game",
                "unique_id": f"{node}-game",
                "icon": "mdi:dice-multiple",
                "value_template": "{{ value_json.title | default(value_json.game) }}",
                "json_attributes_topic": topic(table, SCORE),
                "json_attributes_template": (
                    "{{ {'result_id': value_json.result_id, 'time': value_json.time, "
                    "'finished': value_json.finished} | tojson }}"
                ),
            },
        )
    ]
    for seat in range(1, SEATS + 1):
        at = f"value_json.players[{seat - 1}]"
        there = f"value_json.players | length >= {seat}"
        out.append(
            (
                f"{DISCOVERY_PREFIX}/sensor/{node}/seat-{seat}/config",
                {
                    **common,
                    "name": f"Seat {seat} score",
                    "unique_id": f"{node}-seat-{seat}",
                    "icon": "mdi:trophy-outline",
                    "unit_of_measurement": "points",
                    "state_class": "measurement",
                    # None renders as "None", which Home Assistant takes as no value: nobody at that seat.
                    "value_template": f"{{{{ {at}.total if {there} else None }}}}",
                    "json_attributes_topic": topic(table, SCORE),
                    "json_attributes_template": (
                        f"{{{{ {{'player': {at}.name if {there} else None}} | tojson }}}}"
                    ),
                },
            )
        )
    return out
