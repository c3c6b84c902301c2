"""``garden-scorer-lab bench --reliability``: the figures that show the scorer holds up, in one table and
JSON.

Each part is a harness of its own, run here one after the other with one seed: the fuzzer
(:mod:`lab.reliability.fuzz`), kill-during-write (:mod:`lab.reliability.crashtest`), the live loop's soak
(:mod:`lab.reliability.soak`), the HTTP load test and schemathesis (:mod:`lab.reliability.loadtest`), the
security audit below, which walks every route the app publishes, so a route added later is covered without a
change here, with the attack suite (:mod:`lab.reliability.attacks`), and the server as a process of its own
under a flood of large photos and killed during uploads (:mod:`lab.reliability.server`).

Each row of the table says what was measured and whether it met its bar; the JSON holds every
figure the harnesses report.
"""

from __future__ import annotations

import re
import struct
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import FastAPI
from numpy.typing import NDArray

from lab.reliability.server import ATTACK_BAR_MB, FLOOD_KINDS, MEMORY_BAR_MB, TV_BAR_MS

# What every player at the table may do from their phone: say who is playing, score a photo, correct its
# reading (its score seen at once, before it is kept), and read its board again with more photos, where they
# placed its corners, or with what the photo cannot show typed in.
PLAYER_ACTIONS = frozenset(
    {
        ("PUT", "/api/players"),
        ("POST", "/api/score"),
        ("POST", "/api/result/{game_id}/preview"),
        ("POST", "/api/result/{game_id}/correct"),
        ("POST", "/api/result/{game_id}/also"),
        ("POST", "/api/result/{game_id}/corners"),
        ("POST", "/api/result/{game_id}/hand"),
        ("POST", "/api/pair"),  # how a phone becomes the owner's: open to all, limited by tries
    }
)
MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
TRAVERSALS = ("..", "../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "%2e%2e", "/etc/passwd", "a/../../b")
# Addresses the audit's requests come from: the scorer's own screen, and a phone on the same network.
LOCAL = ("127.0.0.1", 50000)
REMOTE = ("192.168.1.20", 5000)
# A live loop that keeps 16 MB more after hours of frames than after its first pass through the story leaks:
# a healthy one grows by well under 1 MB over 20,000 frames (the rest is allocator noise).
SOAK_MAX_GROWTH_MB = 16.0


@dataclass(frozen=True)
class Plan:
    """How much of each harness to run; the defaults are the counts the reliability issue asks for."""

    seed: int = 20261122
    fuzz_cases: int = 10_000
    kill_rounds: int = 200
    soak_frames: int = 20_000
    load_uploads: int = 200
    load_concurrency: int = 4
    sse_clients: int = 10
    schemathesis_examples: int = 50
    flood_clients: int = 8
    flood_megapixels: float = 64.0
    upload_kills: int = 20


# A run of a minute or so that still touches every target, kind of write, story step and route.
QUICK = Plan(
    fuzz_cases=300,
    kill_rounds=12,
    soak_frames=600,
    load_uploads=16,
    load_concurrency=2,
    sse_clients=3,
    schemathesis_examples=5,
    upload_kills=4,
)


# --- the security audit ---------------------------------------------------------------------------------


def _no_boards(
    image: NDArray[np.uint8],
    game: str,
    hand: object,
    profile: str | None,
    also: object = (),
    /,
    *,
    corners: object = None,
) -> list[Any]:
    return []


def audit_app(root: Path) -> FastAPI:
    """The app as ``garden-scorer serve`` builds it, over an empty state folder, with the lab's kiosk token;
    uploads are decoded and checked as for real but find no board (the audit is about the doors, not the
    reading)."""
    from calibration.statedir import StateDir
    from device.web import AppConfig, create_app
    from lab.pairing import KIOSK_TOKEN

    return create_app(AppConfig(StateDir(root), _no_boards, kiosk_token=KIOSK_TOKEN))


def routes(app: FastAPI) -> Iterator[tuple[str, str]]:
    """Every operation the app publishes (pages left out of the spec are plain GETs of static files)."""
    for path, operations in app.openapi()["paths"].items():
        for method in operations:
            yield method.upper(), path


def fill(path: str, value: str = "1") -> str:
    """``path`` with every parameter set to ``value``."""
    return re.sub(r"\{[^}]+\}", value, path)


def _png_claiming(width: int, height: int) -> bytes:
    """A PNG header that claims ``width`` x ``height`` pixels, with one tiny compressed row after it: a
    decompression bomb as the limit sees it."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64))


@dataclass
class SecurityAudit:
    admin_routes: int = 0
    """Published operations that change the scorer's set-up (every mutating one but the players')."""
    refused_unpaired: int = 0
    """Refused to a phone on the network that is not paired."""
    refused_on_loopback: int = 0
    """Refused to a client on the scorer itself that is not paired: loopback is not trusted."""
    passed_paired: int = 0
    player_actions_open: int = 0
    traversal_attempts: int = 0
    traversals_refused: int = 0
    upload_limit_bytes: int = 0
    limits_enforced: int = 0
    """Of the two limit checks: a body over the upload limit, and a photo claiming too many pixels."""
    problems: list[str] | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def audit_security(app: FastAPI, max_upload_bytes: int | None = None) -> SecurityAudit:
    """Walks every published route: set-up changes need a paired device, from the network and on the scorer
    itself alike, and pass with one; players' actions need none; no path parameter reaches a file; the
    upload limits hold before any decoding. ``app`` is built with the lab's kiosk token; ``max_upload_bytes``
    (default: the shipped limit) is its own. ``problems`` lists every door found open."""
    from fastapi.testclient import TestClient

    from device.web.bodies import MAX_UPLOAD_BYTES
    from lab.pairing import pair

    audit = SecurityAudit(problems=[])
    problems: list[str] = []
    published = list(routes(app))
    admin = sorted((m, p) for m, p in published if m in MUTATING and (m, p) not in PLAYER_ACTIONS)
    audit.admin_routes = len(admin)
    url = "http://127.0.0.1"
    with (
        TestClient(app, base_url=url, client=REMOTE) as remote,
        TestClient(app, base_url=url, client=LOCAL) as local,
        TestClient(app, base_url=url, client=REMOTE) as owner,
    ):
        pair(owner, TestClient(app, base_url=url, client=LOCAL))
        for method, path in admin:
            for client, who in ((remote, "a phone on the network"), (local, "a client on the scorer itself")):
                refused = client.request(method, fill(path))
                if refused.status_code == 403 and "pair this phone" in refused.json().get("detail", ""):
                    if client is remote:
                        audit.refused_unpaired += 1
                    else:
                        audit.refused_on_loopback += 1
                else:
                    problems.append(f"{method} {path} from {who}, not paired: {refused.status_code}")
            # Whatever the scorer answers past the guard is about the request, not the login.
            if owner.request(method, fill(path)).status_code != 403:
                audit.passed_paired += 1
            else:
                problems.append(f"{method} {path} from a paired device was still refused")
        for method, path in sorted(PLAYER_ACTIONS):
            if (method, path) not in published:
                problems.append(f"{method} {path}, a player's action, is not published")
            elif remote.request(method, fill(path)).status_code != 403:
                audit.player_actions_open += 1
            else:
                problems.append(f"{method} {path}, a player's action, asks for pairing")
        for method, path in [(m, p) for m, p in published if "{" in p]:
            for bad in TRAVERSALS:
                audit.traversal_attempts += 1
                # From the owner's device, so that every route reaches its parameter's own check.
                response = owner.request(method, fill(path, bad))
                # Refused as a malformed or unknown id: never served, never a server error.
                if response.status_code in (400, 404, 405, 422) and b"root:" not in response.content:
                    audit.traversals_refused += 1
                else:
                    problems.append(f"{method} {fill(path, bad)}: {response.status_code}")
        limit = MAX_UPLOAD_BYTES if max_upload_bytes is None else max_upload_bytes
        audit.upload_limit_bytes = limit
        too_big = remote.post("/api/score", files={"file": ("big.jpg", b"\xff" * (limit + 1), "image/jpeg")})
        bomb = remote.post(
            "/api/score",
            params={"game": "alices-garden"},
            files={"file": ("bomb.png", _png_claiming(60_000, 60_000), "image/png")},
        )
        for name, response, expected, word in (
            ("an upload over the limit", too_big, 413, "the scorer takes"),
            ("a photo claiming 3.6 billion pixels", bomb, 400, "pixel"),
        ):
            if response.status_code == expected and word in response.json().get("detail", ""):
                audit.limits_enforced += 1
            else:
                problems.append(f"{name}: {response.status_code} {response.text[:120]}")
    audit.problems = problems
    return audit


def run_security() -> dict[str, Any]:
    """:func:`audit_security` of the app over an empty state folder, and the attack suite against a real
    server (:mod:`lab.reliability.attacks`), as JSON-ready figures."""
    from lab.reliability.attacks import attacks_json, run_attacks

    with tempfile.TemporaryDirectory() as audited, tempfile.TemporaryDirectory() as attacked:
        return {
            **audit_security(audit_app(Path(audited))).to_json(),
            **attacks_json(run_attacks(Path(attacked))),
        }


# --- the whole run --------------------------------------------------------------------------------------


def run_reliability(plan: Plan, report: Callable[[str], None] = print) -> dict[str, Any]:
    """Every harness in turn, with its seconds; ``report`` hears which one is running."""
    from lab.reliability.crashtest import run_kill
    from lab.reliability.fuzz import run_fuzz
    from lab.reliability.loadtest import run_load, run_schemathesis
    from lab.reliability.server import run_flood, run_memory, run_upload_kills
    from lab.reliability.soak import run_soak

    results: dict[str, Any] = {"plan": asdict(plan)}

    def part(name: str, what: str, run: Callable[[], dict[str, Any]]) -> None:
        report(f"{name}: {what} ...")
        start = time.perf_counter()
        results[name] = run()
        results[name]["wall_s"] = round(time.perf_counter() - start, 1)

    part("fuzz", f"{plan.fuzz_cases} cases", lambda: run_fuzz(plan.fuzz_cases, plan.seed))
    with tempfile.TemporaryDirectory() as folder:
        part("kill", f"{plan.kill_rounds} kills", lambda: run_kill(plan.kill_rounds, plan.seed, Path(folder)))
    part("soak", f"{plan.soak_frames} frames", lambda: run_soak(plan.soak_frames, sample_every=1000))
    part(
        "load",
        f"{plan.load_uploads} uploads, {plan.load_concurrency} at once, {plan.sse_clients} TVs",
        lambda: run_load(plan.load_uploads, plan.load_concurrency, plan.sse_clients),
    )
    part(
        "schemathesis",
        f"{plan.schemathesis_examples} examples per operation",
        lambda: run_schemathesis(plan.schemathesis_examples, seed=plan.seed),
    )
    part("security", "every published route", run_security)
    part(
        "flood",
        f"{plan.flood_clients} phones at once, {plan.flood_megapixels:g} MP photos",
        lambda: {kind: run_flood(plan.flood_clients, plan.flood_megapixels, kind) for kind in FLOOD_KINDS},
    )
    part(
        "memory",
        f"each attack's request, alone and three at once, {plan.flood_megapixels:g} MP photos",
        lambda: run_memory(plan.flood_megapixels),
    )
    part("upload_kills", f"{plan.upload_kills} kills", lambda: run_upload_kills(plan.upload_kills, plan.seed))
    return results


@dataclass(frozen=True)
class Row:
    check: str
    figures: str
    ok: bool


def rows(results: dict[str, Any]) -> list[Row]:
    """One line per claim, with the figures behind it and whether it held."""
    fuzz, kill, soak = results["fuzz"], results["kill"], results["soak"]
    load, schema, sec = results["load"], results["schemathesis"], results["security"]
    flood, kills, memory = results["flood"], results["upload_kills"], results["memory"]
    outcomes: dict[str, int] = {}
    for counts in fuzz["counts"].values():
        for outcome, n in counts.items():
            outcomes[outcome] = outcomes.get(outcome, 0) + n
    kinds = kill["kinds"].values()
    rss = soak["rss_mb"]
    tv = soak["tv"] or {}
    sse = load["sse"]
    lat = load["latency_ms"]
    growth = rss["end"] - rss["warm"]
    flooded = [
        f"{f['photo']}: {f['answers']}, peak {f['peak_mb']:.0f} MB, TV median {f['tv_ms']['p50']:.0f} ms "
        f"(max {f['tv_ms']['max']:.0f})"
        for f in (flood[kind] for kind in FLOOD_KINDS)
    ]
    return [
        Row(
            "fuzz: files, images, uploads",
            f"{fuzz['cases']} cases over {len(fuzz['counts'])} targets: "
            + ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items()))
            + f"; slowest {fuzz['slowest_s']:.2f} s",
            fuzz["failed"] == 0,
        ),
        Row(
            "kill -9 during writes",
            f"{sum(k['rounds'] for k in kinds)} kills over {len(kill['kinds'])} kinds, "
            f"{sum(k['mid_write'] for k in kinds)} mid-write, "
            f"{sum(k['temp_files_swept'] for k in kinds)} temporaries swept; {kill['failed']} failed",
            kill["failed"] == 0,
        ),
        Row(
            "soak: live loop",
            f"{soak['frames']} frames, {soak['steps']} steps, {soak['failed_steps']} failed; "
            f"camera reopened {soak['camera_opens']} times",
            soak["failed_steps"] == 0,
        ),
        Row(
            "soak: memory",
            f"RSS {rss['start']} MB at start, {rss['warm']} MB after warm-up, {rss['end']} MB at the end "
            f"({soak['rss_slope_kb_per_1000_frames']} KB per 1000 frames)",
            growth <= SOAK_MAX_GROWTH_MB and soak["threads"]["end"] <= soak["threads"]["start"],
        ),
        Row(
            "soak: TV stream",
            f"{tv.get('reconnects', 0)} reconnects, {tv.get('events', 0)} events, "
            f"{tv.get('out_of_order', 0)} out of order, caught up: {tv.get('caught_up')}"
            + (f"; errors: {len(tv['errors'])}, first: {tv['errors'][0]}" if tv.get("errors") else ""),
            bool(tv) and tv["reconnects"] >= 1 and tv["caught_up"] and not tv["errors"],
        ),
        Row(
            "HTTP load",
            f"{load['uploads']} uploads {load['concurrency']} at once: p50 {lat['p50']:.0f} ms, "
            f"p99 {lat['p99']:.0f} ms, error rate {load['error_rate']:.1%}; {sse['stayed_connected']}/"
            f"{sse['clients']} TVs stayed, {sse['missed']} events missed",
            load["errors"] == 0 and sse["stayed_connected"] == sse["clients"] and sse["all_got_events"],
        ),
        Row(
            "schemathesis",
            f"{schema['requests']} requests over {schema['operations']} operations: "
            f"{schema['server_errors']} server errors ({schema['failed_checks']} other checks failed)",
            schema["server_errors"] == 0 and not schema["schema_errors"],
        ),
        Row(
            "security",
            f"{sec['refused_unpaired']}/{sec['admin_routes']} owner's routes refused unpaired (loopback: "
            f"{sec['refused_on_loopback']}), {sec['traversals_refused']}/{sec['traversal_attempts']} "
            f"traversals refused, {sec['refused']}/{sec['attacks']} attacks refused, "
            f"{sec['limits_enforced']}/2 upload limits",
            not sec["problems"] and sec["refused"] == sec["attacks"],
        ),
        Row(
            "flood: memory, TV",
            f"{next(iter(flood.values()))['clients']} phones x 4 photos at once; "
            + "; ".join(flooded)
            + f" (bars: {MEMORY_BAR_MB} MB, TV median {TV_BAR_MS} ms)",
            all(
                f["peak_mb"] < MEMORY_BAR_MB
                and f["tv_ms"]["p50"] < TV_BAR_MS
                and all(s not in ("0", "500") for s in f["answers"])
                for f in (flood[kind] for kind in FLOOD_KINDS)
            ),
        ),
        Row(
            "memory under attack",
            f"{sum(isinstance(v, dict) for v in memory.values())} requests alone and 3 at once: worst peak "
            f"{memory['worst_peak_mb']:.0f} MB ({memory['resident_mb_loaded']:.0f} MB with the models "
            f"loaded; bar {ATTACK_BAR_MB} MB)",
            memory["worst_peak_mb"] < ATTACK_BAR_MB,
        ),
        Row(
            "kill -9 during uploads",
            f"{kills['rounds']} kills ({kills['rounds'] - kills['answered_before_kill']} before the answer), "
            f"each upload sent again after the restart: {kills['games']} games stored, "
            f"{len(kills['problems'])} problems",
            not kills["problems"],
        ),
    ]


def format_table(results: dict[str, Any]) -> str:
    table = rows(results)
    width = max(len(r.check) for r in table)
    lines = [f"{'check':<{width}}  result  figures"]
    lines += [f"{r.check:<{width}}  {'ok' if r.ok else 'FAILED':<6}  {r.figures}" for r in table]
    return "\n".join(lines)


def all_ok(results: dict[str, Any]) -> bool:
    return all(r.ok for r in rows(results))
