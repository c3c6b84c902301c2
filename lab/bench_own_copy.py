"""A household's own copy of a game, set up and taught as its owner would, measured (``bench --own-copy``).

Per game and copy: a board of another size with its grids elsewhere (:func:`lab.bench.reshaped_profile`),
drawn in an art pack no model learnt, photographed as a phone would (no camera calibration, tilted up to
:data:`TILT_DEG`). Everything goes through the running web app's API from a paired phone, as the calibration
page and the result page send it:

1. the profile from one photo, no corners given: ``locate``, the board's size and one grid measured
   (``grids_mm``), ``turns`` (taken when the scorer is sure; asked of the owner, who taps the upright one,
   otherwise), ``profile``;
2. the fresh photos scored (the learning curve's point after 0 games);
3. a game played: its photo scored, every cell read wrong corrected (the taps it takes: the owner sets
   the cells wrong one by one, and takes the page's offer of the cells that look like one just set where
   that saves taps), kept to teach
   (``consent``): the profile is taught again in the background, and the fresh photos scored again once it
   is; repeated for each game played.

A score is exact when the read board scores as the truth; wrong when it is given and is not; silently wrong
when also no flag asks the player to look.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from calibration.statedir import StateDir
from device.serve import upload_scorer
from device.web import AppConfig, create_app
from lab.bench import _candidate, _hand, _totals, reshaped_profile
from lab.pairing import KIOSK_TOKEN, pair
from lab.serving import serve_in_thread
from lab.synth.art import UNTUNED_PACK
from lab.synth.camera import PHONE_WH, Photo, PhotoOptions
from lab.synth.games import get_artist
from lab.synth.render import RenderSpec, render_photo, render_table
from scoring.registry import Kind, get_entry
from vision.geometry import quad_size
from vision.profile import BoardProfile
from vision.readers import get_reader

GAMES = ("alices-garden", "sanssouci", "zen-garden", "four-gardens")
TILT_DEG = 35.0  # photographed from above or tilted up to this, as the owner did
FRESH = 30  # photos scored at each point of the learning curve
PLAYED = 3  # games played and corrected, one by one
PROFILE = "my-copy"
# The owner's phone, as the server sees it (not the Pi's own address).
PHONE = "127.0.0.2"
REQUEST_TIMEOUT_S = 600.0
# Re-teaching runs in the background: how long to wait for it, and how often to look.
TEACHING_WAIT_S = 1800.0
TEACHING_POLL_S = 0.5
# A tap per cell on the result page, one per choice in its picker; one on "Set them too" (the cells that
# look like one just set); then the keep-to-teach tick and Save.
TAPS_PER_CELL = 2
TAPS_TO_SET_ALIKE = 1
TAPS_TO_SAVE = 2


@dataclass(frozen=True)
class CopyRun:
    game: str
    copy: int  # the copy's seed (reshaped_profile)
    pack: str = UNTUNED_PACK
    fresh: int = FRESH
    played: int = PLAYED


def _seed(run: CopyRun) -> int:
    return 10_000 + 97 * run.copy


def table_photo(run: CopyRun, profile: BoardProfile, index: int) -> Photo:
    """A table game's (Zen Garden's) photo ``index`` (1 on) of the whole table: every player's garden on a
    board of that copy, as its players photograph it to score the table, at a phone camera's full 12 MP."""
    seed = _seed(run)
    table = get_artist(run.game).random_state(profile, np.random.default_rng([seed, index]))
    # One hand entry goes with a photo, not one per garden: the mission points a player took (tiles beside
    # the board, not on it) are left out of these tables, as they are typed on the result page per garden.
    table = {**table, "players": [{**p, "mission_points": {}} for p in table["players"]]}
    return render_table(run.game, table, run.pack, seed + index, PhotoOptions(PHONE_WH, TILT_DEG), profile)


def _photos(run: CopyRun, profile: BoardProfile) -> tuple[Photo, list[Photo]]:
    """The set-up photo (the board alone), then the games' photos, the games played first, then the fresh
    ones: one copy, one table, many games (a table game's: :func:`table_photo`)."""
    options = PhotoOptions(max_tilt_deg=TILT_DEG)
    spec = RenderSpec((run.game,), _seed(run), packs=(run.pack,), options=options, reshaped=profile)
    count = run.played + run.fresh
    if get_entry(run.game).kind is not Kind.TABLE:
        return render_photo(spec, 0), [render_photo(spec, i) for i in range(1, 1 + count)]
    return render_photo(spec, 0), [table_photo(run, profile, i) for i in range(1, 1 + count)]


@contextmanager
def _owner(url: str) -> Iterator[httpx.Client]:
    """A phone paired with the app at ``url`` as its owner's."""
    transport = httpx.HTTPTransport(local_address=PHONE)
    with (
        httpx.Client(base_url=url, transport=transport, timeout=REQUEST_TIMEOUT_S) as phone,
        httpx.Client(base_url=url, timeout=REQUEST_TIMEOUT_S) as kiosk,
    ):
        pair(phone, kiosk)
        yield phone


def _ok(response: httpx.Response) -> Any:
    if response.status_code != 200:
        raise RuntimeError(f"{response.request.url.path}: {response.status_code} {response.text[:300]}")
    return response.json()


def _right_turn(found: Sequence[Sequence[float]], truth: Sequence[Sequence[float]]) -> int:
    """Which of the found outline's turns (1-4: corner K first) is the true one."""
    outline, true = np.asarray(found, np.float64), np.asarray(truth, np.float64)
    return 1 + int(
        np.argmin([np.linalg.norm(np.roll(outline, -k, 0) - true, axis=1).max() for k in range(4)])
    )


def _make_profile(phone: httpx.Client, run: CopyRun, copy: BoardProfile, photo: Photo) -> dict[str, Any]:
    """The calibration page's "my copy" steps; what happened to the board's turn."""
    setup = dict(copy.setup)
    located = _ok(
        phone.post(
            "/api/calibrate/profile/locate",
            files={"file": ("board.jpg", photo.jpeg, "image/jpeg")},
            data={"game": run.game, "name": PROFILE, "setup": json.dumps(setup)},
        )
    )
    truth = photo.truth["boards"][0]["corners_xy"]
    found = located["corners_xy"] is not None
    # Not found: the owner drags the handles onto the board's corners (the first the top left).
    corners = located["corners_xy"] if found else truth
    first = copy.regions[0]  # the owner measures the board and one grid; the others follow it
    board = {
        "token": located["token"],
        "game": run.game,
        "name": PROFILE,
        "setup": setup,
        "corners_xy": corners,
        "size_mm": list(copy.size_mm),
        "grids_mm": {first.name: [*first.origin_mm, first.cell_mm[0], *first.pitch_mm]},
    }
    weighed = _ok(phone.post("/api/calibrate/profile/turns", json=board))
    right = _right_turn(corners, truth)
    chosen = weighed["best"] if weighed["sure"] else right  # unsure: the owner taps the upright picture
    _ok(phone.post("/api/calibrate/profile", json={**board, "turn": chosen}))
    return {
        "found": found,
        "sure": weighed["sure"],
        "right": weighed["sure"] and weighed["best"] == right,
        "wrong": weighed["sure"] and weighed["best"] != right,
    }


def _cells(run: CopyRun, copy: BoardProfile, state: Mapping[str, Any]) -> dict[tuple[str, int, int], str]:
    labels = get_reader(run.game).cell_labels(copy, state)
    return {
        (region, r, c): label
        for region, rows in labels.items()
        for r, row in enumerate(rows)
        for c, label in enumerate(row)
    }


def _given(game: str, board: Mapping[str, Any]) -> tuple[int, ...] | None:
    """The totals the app gave a board (a shared board's: every player's), None when it scored none."""
    if board.get("players"):
        return tuple(p["total"] for p in board["players"])
    return None if board["total"] is None else (board["total"],)


def _marked(
    run: CopyRun, copy: BoardProfile, truth: Mapping[str, Any], board: Mapping[str, Any] | None
) -> dict[str, Any]:
    """One board against its truth (``board``: as the app read it, None when it found none there): scored or
    not, exact, wrong, silently wrong; cells wrong; taps to correct it on the result page, a cell at a time
    (:func:`_taps`: with the look-alikes offered)."""
    want = _cells(run, copy, truth)
    state = board["state"] if board is not None else {}
    try:
        got = _cells(run, copy, _candidate(run.game, dict(truth), dict(state))) if board is not None else {}
    except (KeyError, ValueError, TypeError, IndexError):
        got = {}  # a reading that names no cell: every cell is to be set
    wrong = sum(got.get(key) != label for key, label in want.items())
    kind = get_entry(run.game).kind
    if kind is Kind.SHARED_BOARD:
        # Its tracks: a marker is moved by a tap on its space and one on it.
        read = {p.get("colour"): p.get("positions") or {} for p in state.get("players", [])}
        fixes = sum(
            read.get(p.get("colour"), {}).get(track) != space
            for p in truth["players"]
            for track, space in (p.get("positions") or {}).items()
        )
    else:
        fixes = wrong
    given = _given(run.game, board) if board is not None else None
    totals = _totals(run.game, dict(truth))
    # A table game's board is its player's: its own total, the others' boards weighed in by the app.
    true = totals[:1] if kind is Kind.TABLE and totals is not None else totals
    exact = given is not None and given == true
    return {
        "scored": given is not None,
        "exact": exact,
        "wrong": given is not None and not exact,
        "silent": given is not None and not exact and board is not None and not board["flags"],
        "cells": len(want),
        "cells_wrong": wrong,
        "taps": TAPS_PER_CELL * fixes + TAPS_TO_SAVE,
        "flags": list(board["flags"]) if board is not None else ["not found"],
    }


def _taps(
    phone: httpx.Client,
    run: CopyRun,
    copy: BoardProfile,
    photo: Photo,
    result: Mapping[str, Any],
    at: Sequence[int | None],
) -> list[int] | None:
    """Per truth board of the photo, the taps its owner makes on the result page to set it right: each cell
    read wrong set (2 taps), and where the page then offers the cells that look like it and were read as it
    was, "Set them too" (1 tap) when more of them are right than it costs (each set wrong is set again); a
    board not found, every cell set. None where the page offers no look-alikes (a shared board's tracks)."""
    if get_entry(run.game).kind is Kind.SHARED_BOARD or result["game_id"] is None:
        return None
    game_id, boards = result["game_id"], result["boards"]
    shown = _ok(phone.get(f"/api/result/{game_id}"))["boards"]
    truths = {i: photo.truth["boards"][t]["state"] for t, i in enumerate(at) if i is not None}
    want = {i: _cells(run, copy, truth) for i, truth in truths.items()}
    read: dict[int, dict[tuple[str, int, int], str]] = {}
    for i, truth in truths.items():
        try:
            read[i] = _cells(run, copy, _candidate(run.game, dict(truth), dict(boards[i]["state"])))
        except (KeyError, ValueError, TypeError, IndexError):
            read[i] = {}
    now = {i: dict(cells) for i, cells in read.items()}
    taps = {i: TAPS_TO_SAVE for i in truths}
    for i in truths:
        keys = [tuple(cell["key"]) for cell in shown[i]["cells"]]
        for index, key in enumerate(keys):
            if key not in want[i] or now[i].get(key) == want[i][key]:
                continue
            taps[i] += TAPS_PER_CELL
            now[i][key] = want[i][key]
            if read[i].get(key) is None:
                continue
            offered = phone.get(f"/api/result/{game_id}/board/{i}/alike/{index}")
            if offered.status_code != 200:
                continue
            alike = []
            for cell in offered.json()["cells"]:
                b, other = cell["board"], tuple(shown[cell["board"]]["cells"][cell["cell"]]["key"])
                if b in now and read[b].get(other) == read[i][key] and now[b].get(other) == read[b][other]:
                    alike.append((b, other))
            right = sum(want[b].get(other) == want[i][key] for b, other in alike)
            if alike and TAPS_TO_SET_ALIKE + TAPS_PER_CELL * (len(alike) - right) < TAPS_PER_CELL * right:
                taps[i] += TAPS_TO_SET_ALIKE
                for b, other in alike:
                    now[b][other] = want[i][key]
    for i in truths:  # cells the page does not lay over the picture: set from the lists
        taps[i] += TAPS_PER_CELL * sum(now[i].get(key) != label for key, label in want[i].items())
    return [
        taps[i] if i is not None else TAPS_TO_SAVE + TAPS_PER_CELL * len(_cells(run, copy, t["state"]))
        for t, i in zip(photo.truth["boards"], at, strict=True)
    ]


def _matched(photo: Photo, boards: Sequence[Mapping[str, Any]]) -> list[int | None]:
    """Per truth board of the photo, the index of the app's board that lies on it (None: not found)."""
    found = [np.mean(np.asarray(b["corners_xy"], np.float64), axis=0) for b in boards]
    out: list[int | None] = []
    for truth in photo.truth["boards"]:
        corners = np.asarray(truth["corners_xy"], np.float64)
        near = [float(np.linalg.norm(f - corners.mean(axis=0))) for f in found]
        best = int(np.argmin(near)) if near else None
        out.append(best if best is not None and near[best] < 0.25 * quad_size(corners) else None)
    return out


def _corrected(game: str, truth: Mapping[str, Any], read: Mapping[str, Any]) -> dict[str, Any]:
    """The board's state as its owner leaves it on the result page, every cell set right: a table game's is
    its player's board."""
    if get_entry(game).kind is Kind.TABLE:
        return {**read, **truth["players"][0]}
    return {**read, **truth}


def _score(phone: httpx.Client, run: CopyRun, photo: Photo) -> dict[str, Any]:
    """The app's result for the photo; one it refuses to score (Four Gardens' markers of a colour no player
    was given: 400, with what the players are to do) as a result with no board and no game kept."""
    truth = photo.truth["boards"][0]["state"]
    response = phone.post(
        "/api/score",
        params={"game": run.game, "profile": PROFILE},
        files={"file": ("photo.jpg", photo.jpeg, "image/jpeg")},
        data={"hand": json.dumps(_hand(run.game, truth))},
    )
    if response.status_code == 400:
        return {"game_id": None, "boards": [], "refused": response.json()["detail"]}
    sent: dict[str, Any] = _ok(response)
    return sent


def _taught(phone: httpx.Client) -> dict[str, Any]:
    """The profile once its re-teaching has ended."""
    deadline = time.monotonic() + TEACHING_WAIT_S
    while True:
        listed: dict[str, dict[str, Any]] = {p["name"]: p for p in _ok(phone.get("/api/profiles"))}
        if not listed[PROFILE]["reteaching"]:
            return listed[PROFILE]
        if time.monotonic() > deadline:
            raise RuntimeError(f"the profile was still being taught after {TEACHING_WAIT_S:.0f} s")
        time.sleep(TEACHING_POLL_S)


def _stage(marks: Sequence[tuple[int, Mapping[str, Any]]], taught: int) -> dict[str, Any]:
    """A point of the learning curve; ``marks``: (fresh photo's index, its board's marks)."""
    return {
        "taught": taught,
        "boards": len(marks),
        **{k: sum(bool(m[k]) for _, m in marks) for k in ("scored", "exact", "wrong", "silent")},
        "cells": sum(m["cells"] for _, m in marks),
        "cells_wrong": sum(m["cells_wrong"] for _, m in marks),
        # What went wrong where, to look at: the photo, its cells wrong, what the app said.
        "missed": [[i, m["cells_wrong"], m["flags"]] for i, m in marks if not m["exact"]],
    }


def run_copy(run: CopyRun) -> dict[str, Any]:
    """One copy set up, played and taught through the app; its figures."""
    copy = reshaped_profile(run.game, run.copy)
    setup, photos = _photos(run, copy)
    games, fresh = photos[: run.played], photos[run.played :]
    with tempfile.TemporaryDirectory() as tmp:
        state = StateDir(Path(tmp))
        app = create_app(AppConfig(state, upload_scorer(state), kiosk_token=KIOSK_TOKEN))
        with serve_in_thread(app, timeout_s=60) as url, _owner(url) as phone:
            turn = _make_profile(phone, run, copy, setup)

            def read(photo: Photo) -> tuple[dict[str, Any], list[dict[str, Any]]]:
                result = _score(phone, run, photo)
                at = _matched(photo, result["boards"])
                truths = [b["state"] for b in photo.truth["boards"]]
                boards = [None if i is None else result["boards"][i] for i in at]
                marks = [_marked(run, copy, t, b) for t, b in zip(truths, boards, strict=True)]
                if "refused" in result:
                    marks = [{**m, "flags": [f"refused: {result['refused']}"]} for m in marks]
                return result, marks

            def curve(taught: int) -> dict[str, Any]:
                return _stage([(i, mark) for i, photo in enumerate(fresh) for mark in read(photo)[1]], taught)

            stages, played = [curve(0)], []
            for k, photo in enumerate(games, start=1):
                result, marks = read(photo)
                taps = _taps(phone, run, copy, photo, result, _matched(photo, result["boards"]))
                taught = result["game_id"] is not None  # a refused photo is taken again: it teaches nothing
                # Every board set right, in the result's order; one on no board of the photo (something else
                # taken for one) left out as no board. A board the app did not find is not in it at all.
                at = _matched(photo, result["boards"])
                corrected: list[dict[str, Any] | None] = [None] * len(result["boards"])
                for truth, i in zip(photo.truth["boards"], at, strict=True):
                    if i is not None:
                        corrected[i] = _corrected(run.game, truth["state"], result["boards"][i]["state"])
                if taught:
                    sent = phone.post(
                        f"/api/result/{result['game_id']}/correct",
                        json={"boards": corrected, "consent": True},
                    )
                    # Refused (a board of the table not found, read as another's tiles): the owner
                    # photographs that game again; this one teaches nothing.
                    taught = sent.status_code != 422
                    if taught and _ok(sent)["reteaching"] != PROFILE:
                        raise RuntimeError(f"game {k}'s correction did not teach the profile: {sent.text}")
                profile = _taught(phone)
                played.append(
                    {
                        "game": k,
                        "taught": taught,
                        "boards": len(marks),
                        "exact": sum(m["exact"] for m in marks),
                        "cells_wrong": [m["cells_wrong"] for m in marks],
                        "taps": [m["taps"] for m in marks] if taps is None else taps,
                        "left_out": profile["left_out"],
                    }
                )
                stages.append(curve(k))
    return {
        "game": run.game,
        "copy": run.copy,
        "pack": run.pack,
        "turn": turn,
        "played": played,
        "stages": stages,
    }


def run_own_copy(
    games: Sequence[str],
    copies: Sequence[int],
    report: Callable[[str], None],
    workers: int = 2,
    **options: Any,
) -> list[dict[str, Any]]:
    """Every game's copies, ``workers`` at a time (each its own app and state folder)."""
    runs = [CopyRun(game, copy, **options) for game in games for copy in copies]
    out = []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for result in pool.map(run_copy, runs):
            last = result["stages"][-1]
            game, copy = result["game"], result["copy"]
            report(
                f"{game} copy {copy}: turn {result['turn']}, {last['exact']}/{last['boards']} exact at last"
            )
            out.append(result)
    return out


def summary(results: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per game, its copies together: the turn, the learning curve, the first game's taps."""
    rows = []
    for game in dict.fromkeys(r["game"] for r in results):
        mine = [r for r in results if r["game"] == game]
        turns = [r["turn"] for r in mine]

        def pct(a: int, b: int) -> float:
            return round(100.0 * a / b, 1) if b else 0.0

        curve = []
        for k in range(len(mine[0]["stages"])):
            stage = [r["stages"][k] for r in mine]
            boards = sum(s["boards"] for s in stage)
            curve.append(
                {
                    "taught": k,
                    "exact_pct": pct(sum(s["exact"] for s in stage), boards),
                    "wrong_pct": pct(sum(s["wrong"] for s in stage), boards),
                    "silent_wrong_pct": pct(sum(s["silent"] for s in stage), boards),
                    "not_scored_pct": pct(boards - sum(s["scored"] for s in stage), boards),
                    "cells_wrong_pct": pct(
                        sum(s["cells_wrong"] for s in stage), sum(s["cells"] for s in stage)
                    ),
                }
            )
        # Per board of the first game played.
        first = [taps for r in mine if r["played"] for taps in r["played"][0]["taps"]]
        rows.append(
            {
                "game": game,
                "copies": len(mine),
                "board_found": sum(t["found"] for t in turns),
                "turn_right": sum(t["right"] for t in turns),
                "turn_asked": sum(not t["sure"] for t in turns),
                "turn_wrong": sum(t["wrong"] for t in turns),
                "curve": curve,
                "first_game_taps_mean": round(float(np.mean(first)), 1) if first else None,
                "first_game_taps_max": max(first) if first else None,
            }
        )
    return rows


COLUMNS = (
    ("game", 14),
    ("copies", 6),
    ("turn right/asked/wrong", 22),
    ("taught", 6),
    ("exact %", 8),
    ("silent %", 8),
    ("not scored %", 12),
    ("cells wrong %", 13),
    ("taps game 1 mean/max", 20),
)


def format_summary(rows: Sequence[Mapping[str, Any]]) -> str:
    """The summary as a table: per game, a line per point of its learning curve."""
    table = [[name for name, _ in COLUMNS]]
    for row in rows:
        turn = f"{row['turn_right']}/{row['turn_asked']}/{row['turn_wrong']}"
        taps = f"{row['first_game_taps_mean']}/{row['first_game_taps_max']}"
        for point in row["curve"]:
            once = [row["game"], row["copies"], turn] if point["taught"] == 0 else ["", "", ""]
            table.append(
                [
                    *once,
                    point["taught"],
                    point["exact_pct"],
                    point["silent_wrong_pct"],
                    point["not_scored_pct"],
                    point["cells_wrong_pct"],
                    taps if point["taught"] == 0 else "",
                ]
            )
    return "\n".join(
        " ".join(
            f"{value!s:<{w}}" if i == 0 else f"{value!s:>{w}}"
            for i, (value, (_, w)) in enumerate(zip(line, COLUMNS, strict=True))
        )
        for line in table
    )
