"""Security checks over the whole app, route by route (``lab.reliability.run.audit_security``), so a route
added later is covered without a new test: what changes the scorer's set-up needs a paired device,
no path parameter reaches a file, and the upload limits hold."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

from fastapi import FastAPI
from fastapi.testclient import TestClient

from lab.reliability.run import PLAYER_ACTIONS, audit_app, audit_security, fill
from tests.conftest import BASE_URL, LOCAL


def test_every_set_up_change_needs_a_paired_device_and_no_parameter_reaches_a_file(
    tmp_path: Path,
) -> None:
    audit = audit_security(audit_app(tmp_path))
    assert audit.problems == []
    # The app has set-up routes and file-naming parameters to guard: none would make this pass for nothing.
    assert audit.admin_routes >= 5
    assert audit.refused_unpaired == audit.refused_on_loopback == audit.passed_paired == audit.admin_routes
    assert audit.player_actions_open == len(PLAYER_ACTIONS)
    assert audit.traversal_attempts >= 30
    assert audit.traversals_refused == audit.traversal_attempts
    assert audit.limits_enforced == 2


def test_the_audit_finds_a_set_up_route_left_unguarded(tmp_path: Path) -> None:
    app = audit_app(tmp_path)

    @app.delete("/api/profiles/{name}/everything")
    def forgot_the_guard(name: str) -> dict[str, str]:
        return {"deleted": name}

    audit = audit_security(app)
    assert "DELETE /api/profiles/{name}/everything from a phone on the network, not paired: 200" in (
        audit.problems or []
    )


def test_the_audit_finds_a_parameter_that_reaches_a_file(tmp_path: Path) -> None:
    app: FastAPI = audit_app(tmp_path)
    (tmp_path / "files").mkdir()
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "passwd").write_text("root:x:0:0")

    @app.get("/api/files/{name:path}")
    def naive(name: str) -> str:
        # Serves whatever the name points at, as a careless route would.
        path = tmp_path / "files" / unquote(name)
        return path.read_text() if path.is_file() else "no such file"

    problems = audit_security(app).problems or []
    # The route does serve a file outside its folder, so the audit is right to flag it.
    with TestClient(app, base_url=BASE_URL, client=LOCAL) as local:
        assert "root:" in local.get(fill("/api/files/{name}", "..%2Fetc%2Fpasswd")).text
    # Plain "../" segments are resolved by the client before they are sent (as a browser does): the encoded
    # ones reach the route.
    assert "GET /api/files/..%2F..%2Fetc%2Fpasswd: 200" in problems
    assert all(p.startswith("GET /api/files/") for p in problems)
