"""The contract on the broker: topics, the messages' JSON, and Home Assistant's discovery configs."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from device.history import History
from device.mqtt.topics import (
    DISCOVERY_PREFIX,
    SEATS,
    Played,
    Seat,
    check_table,
    discovery_messages,
    played,
    read_played,
    table_of,
    topic,
)


@pytest.mark.parametrize("name", ["table-3", "kitchen", "t", "a1-b2"])
def test_a_table_name_is_one_topic_level(name: str) -> None:
    assert check_table(name) == name
    assert table_of(topic(name, "score")) == (name, "score")


@pytest.mark.parametrize("name", ["", "Table 3", "a/b", "+", "#", "-x", "x-", "é", "a" * 41])
def test_a_name_that_is_no_topic_level_is_refused_saying_what_would_do(name: str) -> None:
    with pytest.raises(ValueError, match="lowercase letters, digits and '-'"):
        check_table(name)


def test_only_the_tables_own_topics_are_read() -> None:
    assert table_of("garden-scorer/t1/result") == ("t1", "result")
    for other in (
        "garden-scorer/t1/other",
        "frigate/t1/score",
        "garden-scorer/t1/score/x",
        "garden-scorer/T/score",
    ):
        assert table_of(other) is None


def _game(tmp_path: Path) -> tuple[History, int]:
    history = History.open(tmp_path / "history.sqlite")
    boards = [
        {"game": "alices-garden", "total": 41, "lines": [{"rule": "Rows", "points": 41}]},
        {"game": "alices-garden", "total": 35, "lines": []},
    ]
    return history, history.record("alices-garden", boards, "upload", ["Ann", "Bo"])


def test_a_game_of_the_history_says_each_players_total_and_the_boards_as_the_tv_shows_them(
    tmp_path: Path,
) -> None:
    history, game_id = _game(tmp_path)
    message = played("t1", history.get(game_id), "r1", finished=True)
    data = json.loads(message.payload())
    assert {k: data[k] for k in ("table", "game", "title", "result_id", "finished")} == {
        "table": "t1",
        "game": "alices-garden",
        "title": "Alice's Garden",
        "result_id": "r1",
        "finished": True,
    }
    assert data["players"] == [{"name": "Ann", "total": 41}, {"name": "Bo", "total": 35}]
    assert data["boards"][0]["lines"] == [{"rule": "Rows", "points": 41}]
    assert "replaces" not in data
    assert read_played("t1", message.payload()) == message


def test_a_shared_boards_players_each_have_a_seat(tmp_path: Path) -> None:
    history = History.open(tmp_path / "history.sqlite")
    board = {
        "game": "four-gardens",
        "total": None,
        "players": [{"player": "Red", "total": 30}, {"total": 28}],
    }
    game_id = history.record("four-gardens", [board], "upload")
    assert played("t1", history.get(game_id), "r", True).players == (Seat("Red", 30), Seat(None, 28))


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        (b"not json", "not JSON"),
        (b"[1]", "not a JSON object"),
        (b'{"game": "x"}', "no game or result_id"),
        (b'{"game": "x", "result_id": "r", "time": "yesterday", "players": []}', "ISO 8601"),
        (b'{"game": "x", "result_id": "r", "time": "2026-11-29T20:00:00", "players": []}', "no time zone"),
        (b'{"game": "x", "result_id": "r", "time": "2026-11-29T20:00:00+00:00", "players": {}}', "lists"),
        (
            b'{"game": "x", "result_id": "r", "time": "2026-11-29T20:00:00+00:00", "players": '
            b'[{"name": "A", "total": "12"}]}',
            "whole number",
        ),
        (
            b'{"game": "x", "result_id": "r", "time": "2026-11-29T20:00:00+00:00", "players": '
            b'[{"name": "A", "total": true}]}',
            "whole number",
        ),
    ],
)
def test_a_message_that_is_not_a_tables_scores_is_refused_saying_why(payload: bytes, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        read_played("t1", payload)


def test_a_correction_names_the_result_it_replaces() -> None:
    message = Played(
        "t1", "kingdomino", "r2", datetime(2026, 11, 29, tzinfo=UTC), (), (), True, replaces="r1"
    )
    assert read_played("t1", message.payload()).replaces == "r1"


def test_home_assistant_finds_the_table_as_a_device_with_a_sensor_for_the_game_and_each_seat() -> None:
    configs = discovery_messages("t1", "1.2.3")
    assert [name for name, _ in configs] == [
        f"{DISCOVERY_PREFIX}/sensor/garden-scorer-t1/game/config",
        *(f"{DISCOVERY_PREFIX}/sensor/garden-scorer-t1/seat-{i}/config" for i in range(1, SEATS + 1)),
    ]
    ids = set()
    for _, config in configs:
        # The fields Home Assistant's MQTT sensor needs to be discovered, tied to one device and available
        # while the table is: a state topic, a unique id, the device's identifiers (a list).
        assert config["state_topic"] == "garden-scorer/t1/score"
        assert config["availability_topic"] == "garden-scorer/t1/available"
        assert (config["payload_available"], config["payload_not_available"]) == ("online", "offline")
        assert config["device"]["identifiers"] == ["garden-scorer-t1"]
        assert config["device"]["sw_version"] == config["origin"]["sw_version"] == "1.2.3"
        assert config["origin"]["name"] == "garden-scorer"
        assert config["name"]
        ids.add(config["unique_id"])
    assert len(ids) == len(configs)
    seat = dict(configs)[f"{DISCOVERY_PREFIX}/sensor/garden-scorer-t1/seat-2/config"]
    assert (seat["unit_of_measurement"], seat["state_class"]) == ("points", "measurement")


def test_home_assistants_templates_read_the_game_and_each_seats_score_from_the_score_message() -> None:
    # Home Assistant renders the templates with Jinja2: rendered here as it would, on a real message.
    jinja2 = pytest.importorskip("jinja2")
    environment = jinja2.Environment()
    message = Played(
        "t1",
        "kingdomino",
        "r1",
        datetime(2026, 11, 29, 20, tzinfo=UTC),
        (Seat("Ann", 41), Seat(None, 35)),
        (),
        False,
    )
    value_json = json.loads(message.payload())
    configs = dict(discovery_messages("t1", "1"))

    def render(config: str, field: str) -> str:
        template = configs[f"{DISCOVERY_PREFIX}/sensor/garden-scorer-t1/{config}/config"][field]
        return str(environment.from_string(template).render(value_json=value_json))

    assert render("game", "value_template") == "Kingdomino"
    assert json.loads(render("game", "json_attributes_template"))["result_id"] == "r1"
    assert render("seat-1", "value_template") == "41"
    assert json.loads(render("seat-1", "json_attributes_template")) == {"player": "Ann"}
    assert render("seat-2", "value_template") == "35"
    assert json.loads(render("seat-2", "json_attributes_template")) == {"player": None}
    # Nobody at seat 3: "None", which Home Assistant takes as no value.
    assert render("seat-3", "value_template") == "None"


@pytest.mark.parametrize("name", ["hall", "homeassistant"])
def test_the_readers_user_names_are_no_tables(name: str) -> None:
    with pytest.raises(ValueError, match="user for the hall or Home Assistant"):
        check_table(name)
