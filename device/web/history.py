"""The history of scored games: a page, the JSON API, deleting (admin) and exports for a spreadsheet."""

from __future__ import annotations

import io
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Response
from fastapi.responses import HTMLResponse

from device.history import GameNotFound, History
from device.web.auth import NEEDS_PAIRING, AdminGuard
from device.web.bodies import Guarded
from device.web.score import NO_SUCH_GAME, GameId, ResultStore
from device.web.security import page_response


def router(history: History, results: ResultStore, admin: AdminGuard) -> APIRouter:
    api = APIRouter(tags=["history"], route_class=Guarded)

    @api.get("/history", include_in_schema=False)
    def history_page() -> HTMLResponse:
        return page_response("history.html")

    @api.get("/api/history")
    def list_games(
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Annotated[int, Query(ge=0)] = 0,
        game: str | None = None,
    ) -> list[dict[str, Any]]:
        """Games newest first, as ``{"id", "played_at", "game", "source", "boards": [...]}``."""
        return [g.to_json() for g in history.list(limit, offset, game)]

    @api.get("/api/history.json")
    def export_json() -> Response:
        out = io.StringIO()
        history.export_json(out)
        return _download(out.getvalue(), "application/json", "garden-scorer-history.json")

    @api.get(
        "/api/history.csv", responses={200: {"content": {"text/csv": {}}, "description": "one row a board"}}
    )
    def export_csv() -> Response:
        out = io.StringIO()
        history.export_csv(out)
        return _download(out.getvalue(), "text/csv; charset=utf-8", "garden-scorer-history.csv")

    @api.get("/api/history/{game_id}", responses={404: NO_SUCH_GAME})
    def one_game(game_id: GameId) -> dict[str, Any]:
        try:
            return history.get(game_id).to_json()
        except GameNotFound as exc:
            raise HTTPException(404, str(exc)) from None

    @api.delete(
        "/api/history/{game_id}",
        status_code=204,
        dependencies=[Depends(admin)],
        responses={403: NEEDS_PAIRING, 404: NO_SUCH_GAME},
    )
    def delete_game(game_id: GameId) -> None:
        try:
            history.delete(game_id)
        except GameNotFound as exc:
            raise HTTPException(404, str(exc)) from None
        results.delete(game_id)

    return api


def _download(text: str, media_type: str, filename: str) -> Response:
    return Response(
        text, media_type=media_type, headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )
