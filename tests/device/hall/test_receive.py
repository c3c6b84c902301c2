"""What the hall does with each message, and how the screens following it hear of the change, without a
broker: the topic and the bytes as paho hands them over."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from device.hall.feed import Feed
from device.hall.listen import MAX_PAYLOAD, Evening, Hall
from device.hall.store import HallStore, Standing, TableState
from device.mqtt.topics import topic
from tests.device.hall.support import EVENING, played

NOW = EVENING + timedelta(hours=2)


@pytest.fixture
def hall(tmp_path: Path) -> Iterator[Hall]:
    with HallStore.open(tmp_path / "hall.sqlite") as store:
        yield Hall(store, Feed(), Evening(hours=12), clock=lambda: NOW)


def _result(table: str, result_id: str, **kwargs: object) -> tuple[str, bytes]:
    return topic(table, "result"), played(table, result_id, **kwargs).payload()  # type: ignore[arg-type]


def test_a_result_is_kept_and_the_standings_change(hall: Hall) -> None:
    before = hall.feed.number()
    assert hall.receive(*_result("table-1", "r1"))
    assert hall.standings() == [Standing(1, "Bob", 1, 1, 20), Standing(2, "Alice", 1, 0, 10)]
    assert hall.feed.number() > before
    # A repeat: acknowledged, and nothing changes.
    number = hall.feed.number()
    assert hall.receive(*_result("table-1", "r1"))
    assert hall.feed.number() == number
    assert hall.store.result_count() == 1


@pytest.mark.parametrize(
    ("name", "payload", "said"),
    [
        ("garden-scorer/table-1/result", b"{not json", "not JSON"),
        ("garden-scorer/table-1/result", b'{"game": "x"}', "no game or result_id"),
        ("garden-scorer/table-1/score", b"[1, 2]", "not a JSON object"),
        ("garden-scorer/table-1/available", b"maybe", "neither 'online' nor 'offline'"),
        ("garden-scorer/table-1/result", b"x" * (MAX_PAYLOAD + 1), "more than"),
        (
            "garden-scorer/table-1/result",
            json.dumps({**played("table-1", "r").to_json(), "time": "0001-01-01T00:00:00+14:00"}).encode(),
            "out of range",
        ),
    ],
)
def test_a_bad_message_is_logged_and_skipped(
    hall: Hall, caplog: pytest.LogCaptureFixture, name: str, payload: bytes, said: str
) -> None:
    with caplog.at_level(logging.WARNING, logger="device.hall.listen"):
        # Acknowledged all the same: sent again, it would be as bad.
        assert hall.receive(name, payload)
    assert said in caplog.text and "table-1" in caplog.text
    assert hall.store.tables() == [] and hall.store.result_count() == 0


def test_a_flood_of_bad_messages_is_one_line_a_minute_per_table(
    hall: Hall, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="device.hall.listen"):
        for _ in range(500):
            hall.receive("garden-scorer/table-1/result", b"{not json")
        hall.receive("garden-scorer/table-2/result", b"{not json")
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert "table-1" in lines[0] and "table-2" in lines[1]


def test_a_message_on_another_topic_is_skipped(hall: Hall) -> None:
    assert hall.receive("garden-scorer/Not A Table/result", b"{}")
    assert hall.receive("garden-scorer/table-1/boards", b"{}")
    assert hall.store.tables() == [] and hall.store.result_count() == 0


def test_a_message_the_store_cannot_keep_is_left_for_the_broker_to_send_again(hall: Hall) -> None:
    hall.store.close()
    assert not hall.receive(*_result("table-1", "r1"))


def test_a_tables_scores_and_availability_reach_the_screens_once_each(hall: Hall) -> None:
    async def follow() -> list[TableState]:
        screen = hall.feed.subscribe()
        # From another thread, as paho's network thread tells them.
        received = threading.Thread(
            target=lambda: [
                hall.receive(topic("table-1", "available"), b"online"),
                hall.receive(topic("table-1", "score"), played("table-1", "r1").payload()),
                # The retained message, sent again on a new subscribe: no change.
                hall.receive(topic("table-1", "score"), played("table-1", "r1").payload()),
                hall.receive(topic("table-1", "available"), b"online"),
            ]
        )
        received.start()
        await asyncio.to_thread(received.join)
        changes = await hall.feed.next(screen, 10)
        assert changes is not None
        assert await hall.feed.next(screen, 0.05) is None
        return [state for _, state in changes.tables]

    states = asyncio.run(follow())
    # Both changes of table-1 in one: its latest state.
    assert len(states) == 1
    assert states[0].online is True and states[0].score is not None


def test_a_cleared_score_and_availability_take_the_table_away(hall: Hall) -> None:
    hall.receive(topic("table-1", "available"), b"online")
    hall.receive(topic("table-1", "score"), played("table-1", "r1").payload())
    hall.receive(topic("table-1", "score"), b"")
    hall.receive(topic("table-1", "available"), b"")
    assert hall.store.tables() == []


def test_the_hall_shows_the_tables_online_or_heard_from_this_evening(tmp_path: Path) -> None:
    with HallStore.open(tmp_path / "hall.sqlite") as store:
        store.set_available("last-week", False, NOW - timedelta(days=7))
        store.set_available("always-on", True, NOW - timedelta(days=7))
        store.set_available("tonight", False, NOW - timedelta(hours=1))
        hall = Hall(store, Feed(), Evening(hours=12), clock=lambda: NOW)
        assert [t.name for t in hall.tables()] == ["always-on", "tonight"]


def test_the_standings_are_worked_out_once_per_change(hall: Hall) -> None:
    hall.receive(*_result("table-1", "r1"))
    first = hall.standings()
    assert hall.standings() is first
    hall.receive(*_result("table-1", "r2"))
    assert hall.standings() is not first


@pytest.mark.parametrize(
    ("evening", "since"),
    [
        (Evening(hours=12), datetime(2025, 3, 1, 10, 0, tzinfo=UTC)),
        (Evening(hours=1.5), datetime(2025, 3, 1, 20, 30, tzinfo=UTC)),
        (Evening(start=EVENING - timedelta(days=1)), EVENING - timedelta(days=1)),
    ],
)
def test_the_evening_starts_hours_ago_or_when_given(evening: Evening, since: datetime) -> None:
    assert evening.since(NOW + timedelta(seconds=42)) == since


@pytest.mark.parametrize(
    ("hours", "start", "said"),
    [
        (0, None, "more than 0"),
        (24 * 8, None, "at most"),
        (12, datetime(2025, 3, 1, 18, 0), "time zone"),  # no time zone: the mistake tested
    ],
)
def test_an_evening_that_cannot_be_is_refused(hours: float, start: datetime | None, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        Evening(hours, start)


def test_a_slow_screen_holds_one_entry_per_table_however_far_behind() -> None:
    async def lag() -> tuple[int, int]:
        feed = Feed()
        screen = feed.subscribe()
        other = feed.subscribe()
        now = datetime.now(UTC)
        for i in range(1000):
            feed.table(TableState(f"table-{i % 5}", True, None, now))
            feed.standings()
        feed.connected(True)
        feed.unsubscribe(other)
        changes = await feed.next(screen, 10)
        assert changes is not None and changes.connected is True
        assert changes.standings == feed.number() - 1
        numbers = [n for n, _ in changes.tables]
        assert numbers == sorted(numbers)
        return len(changes.tables), feed.screens

    assert asyncio.run(lag()) == (5, 1)
