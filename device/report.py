"""Turn score breakdowns into what people and programs read: a text table or JSON-ready dicts."""

from __future__ import annotations

from typing import Any

from scoring.core import ScoreBreakdown, TableScore


def breakdown_json(breakdown: ScoreBreakdown) -> dict[str, Any]:
    data: dict[str, Any] = {
        "game": breakdown.game,
        "total": breakdown.total,
        "lines": [{"rule": ln.rule, "detail": ln.detail, "points": ln.points} for ln in breakdown.lines],
    }
    if breakdown.player is not None:
        data = {"player": breakdown.player, **data}
    if breakdown.tiebreak:
        data["tiebreak"] = {"rule": breakdown.tiebreak_rule, "values": list(breakdown.tiebreak)}
    return data


def result_json(result: ScoreBreakdown | TableScore) -> dict[str, Any]:
    """A single board's breakdown, or for a table ``{"game", "players": [...]}`` with each player's rank."""
    if isinstance(result, ScoreBreakdown):
        return breakdown_json(result)
    players = [
        {**breakdown_json(p), "rank": rank} for p, rank in zip(result.players, result.ranks, strict=True)
    ]
    return {"game": result.game, "players": players}


def breakdown_text(breakdown: ScoreBreakdown) -> str:
    rule_w = max([len("Rule"), *(len(ln.rule) for ln in breakdown.lines)])
    detail_w = max([len("Detail"), *(len(ln.detail) for ln in breakdown.lines)])
    rows = [f"{'Rule':<{rule_w}}  {'Detail':<{detail_w}}  {'Points':>6}"]
    rows.append("-" * len(rows[0]))
    rows += [f"{ln.rule:<{rule_w}}  {ln.detail:<{detail_w}}  {ln.points:>6}" for ln in breakdown.lines]
    rows.append("-" * len(rows[0]))
    rows.append(f"{'Total':<{rule_w}}  {'':<{detail_w}}  {breakdown.total:>6}")
    return "\n".join(rows)


def result_text(result: ScoreBreakdown | TableScore, title: str) -> str:
    """A readable report: one table per player, and for a table the final standings."""
    if isinstance(result, ScoreBreakdown):
        return f"{title}\n\n{breakdown_text(result)}"
    parts = [title]
    for p in result.players:
        parts.append(f"{p.player}\n{breakdown_text(p)}")
    standings = sorted(zip(result.ranks, result.players, strict=True), key=lambda rp: rp[0])
    lines = ["Standings"]
    totals = [p.total for p in result.players]
    for rank, p in standings:
        # The tie-break only matters, so only shows, where another player has the same total.
        tied = totals.count(p.total) > 1
        tie = f"  (tie-break: {p.tiebreak_rule} {list(p.tiebreak)})" if p.tiebreak and tied else ""
        lines.append(f"{rank}. {p.player}: {p.total}{tie}")
    parts.append("\n".join(lines))
    return "\n\n".join(parts)
