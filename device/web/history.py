"""The history of scored games: a page, the JSON API, deleting (admin) and exports for a spreadsheet."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import HTMLResponse, StreamingResponse

from device.history import GameNotFound
from device.web.auth import ADMIN_ONLY, NEEDS_PAIRING
from device.web.bodies import Guarded
from device.web.score import NO_SUCH_GAME, SQLITE_MAX_INT, GameId
from device.web.security import page_response
from device.web.services import HistoryDep, ResultsDep

router = APIRouter(tags=["history"], route_class=Guarded)


@router.get("/history", include_in_schema=False)
def history_page() -> HTMLResponse:
    return page_response("history.html")


@router.get("/api/history")
def list_games(
    history: HistoryDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Annotated[int, Query(ge=0, le=SQLITE_MAX_INT)] = 0,
    game: str | None = None,
) -> list[dict[str, Any]]:
    """Games newest first, as ``{"id", "played_at", "game", "source", "boards": [...]}``."""
    return [g.to_json() for g in history.list(limit, offset, game)]


# Streamed a game at a time: the whole history is never held at once, however long it grows.
@router.get("/api/history.json", response_class=StreamingResponse)
def export_json(history: HistoryDep) -> StreamingResponse:
    return _download(history.json_chunks(), "application/json", "garden-scorer-history.json")


@router.get(
    "/api/history.csv",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/csv": {}}, "description": "one row a board"}},
)
def export_csv(history: HistoryDep) -> StreamingResponse:
    return _download(history.csv_chunks(), "text/csv; charset=utf-8", "garden-scorer-history.csv")


@router.get("/api/history/{game_id}", responses={404: NO_SUCH_GAME})
def one_game(game_id: GameId, history: HistoryDep) -> dict[str, Any]:
    try:
        return history.get(game_id).to_json()
    except GameNotFound as exc:
        raise HTTPException(404, str(exc)) from None


@router.delete(
    "/api/history/{game_id}",
    status_code=204,
    dependencies=[ADMIN_ONLY],
    responses={403: NEEDS_PAIRING, 404: NO_SUCH_GAME},
)
def delete_game(game_id: GameId, history: HistoryDep, results: ResultsDep) -> None:
    try:
        history.delete(game_id)
    except GameNotFound as exc:
        raise HTTPException(404, str(exc)) from None
    results.delete(game_id)


def _download(chunks: Iterator[str], media_type: str, filename: str) -> StreamingResponse:
    return StreamingResponse(
        chunks, media_type=media_type, headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )
