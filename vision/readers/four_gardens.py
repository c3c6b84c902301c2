"""Four Gardens from a photo: the Scoreboard's God tracks with the players' markers, and Extra-rewards tiles.

A track space may hold any number of markers, so the Scoreboard is read with one "is this colour's marker
here" head per marker colour rather than one class per combination. The colours are the table's, listed in
the profile's ``setup.markers`` (the shipped model knows :data:`DEFAULT_MARKERS`; a table's own colours are
learnt by enrolment, whose heads come from this reader). A player's position on a track is the space where
their colour is seen; seen nowhere, the marker was removed (``null``, scores 0) unless a doubtful space could
be hiding it, which :meth:`FourGardensReader.notes` asks the player to check.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from statistics import median
from typing import Any

from scoring import four_gardens
from scoring.core import StateError
from scoring.fields import as_list, as_str
from vision.geometry import CellKey
from vision.profile import BoardProfile
from vision.reader_api import (
    LOW_CONFIDENCE,
    CellLabels,
    Head,
    ReaderBase,
    Reading,
    class_index,
)

# The shipped set's marker colours (drawn so on the synthetic table): what the shipped model has learnt, and
# the colours a profile that names none is read for.
DEFAULT_MARKERS = four_gardens.MARKER_COLOURS
PRESENCE = ("no", "yes")
TRACK_PREFIX = "track:"
EMPTY_SPACE = "."
# Profile setup keys that only the reader uses: the rule engine refuses what it does not know.
READER_SETUP = ("markers",)
# Hand entry: Extra-rewards tile numbers per marker colour, for players the hand entry does not list.
EXTRA_REWARDS_BY_COLOUR = "extra_rewards_by_colour"

REWARD_KEY = "four-gardens-reward"
REWARD_REGION = "number"


def profile_markers(profile: BoardProfile) -> tuple[str, ...]:
    """The marker colours a board is read for: its ``setup.markers``, else the synthetic palette."""
    raw = profile.setup.get("markers")
    if raw is None:
        return DEFAULT_MARKERS
    markers = tuple(as_str(v, f"setup.markers[{i}]") for i, v in enumerate(as_list(raw, "setup.markers")))
    if not markers or len(set(markers)) != len(markers) or not all(markers):
        raise StateError("setup.markers: name each marker colour once, at least one")
    return markers


def track_regions(profile: BoardProfile) -> tuple[str, ...]:
    return tuple(r.name for r in profile.regions if r.name.startswith(TRACK_PREFIX))


# A marker is taken as removed only when no space of its track gives it even this chance. Over 200 rendered
# photos of the evaluation seed, read at their true corners, removed markers peaked at 0.7 % and markers
# half hidden behind another (or the colour of their track) started at 3 %.
REMOVED_BELOW = 0.02
# On a space where another colour's marker stands, a much fainter sighting is taken: a marker right behind
# another shows little, so there the model's "no" proves less. Over 500 photos each of two seeds, removed
# markers reached 0.018 and 0.030 % on such spaces, the hidden markers taken so 0.56 and 0.84 %. The sighting
# must also stand out from the colour's "no" along the track (its median there), as a classifier less sure
# than the shipped one (a table's enrolled colours) may say "no" at a chance of a per cent everywhere.
REMOVED_BEHIND_BELOW = 0.001
STANDS_OUT = 10.0


class FourGardensReader(ReaderBase):
    """The Scoreboard: regions ``track:NAME``; a head per marker colour, each answering "no" or "yes"."""

    game: str = four_gardens.GAME
    printed_sure: bool = True
    # A standing marker 10 mm tall leans up to about its height off its space in a tilted photo: the crop
    # takes that much around the space, so a marker on it is seen whole and one leaning in from the next
    # space shows where it stands. 64 pixels, read through a strided first layer (its model card). Cut
    # turned so that the camera's foot is down: a marker's top always lies above its space, a neighbour's
    # leans in from below.
    context_mm: float = 10.0
    crop_px: int = 64
    lean_up: bool = True

    def __init__(
        self,
        markers: Sequence[str] = DEFAULT_MARKERS,
        tracks: Sequence[str] = four_gardens.DEFAULT_TRACKS,
    ) -> None:
        self.markers = tuple(markers)
        self.regions: tuple[str, ...] = tuple(f"{TRACK_PREFIX}{t}" for t in tracks)
        self.heads: tuple[Head, ...] = tuple(Head(m, PRESENCE) for m in self.markers)

    @classmethod
    def for_profile(cls, profile: BoardProfile) -> FourGardensReader:
        tracks = [name.removeprefix(TRACK_PREFIX) for name in track_regions(profile)]
        return cls(profile_markers(profile), tracks)

    def region_heads(self, region: str) -> tuple[str, ...]:
        return self.markers

    def cell_labels(self, profile: BoardProfile, state: Mapping[str, Any]) -> CellLabels:
        table = four_gardens.parse(state)
        # Labels take the colours the profile is read for: a real table's, for enrolment, need no art.
        spaces = marker_spaces(table, profile_markers(profile))
        labels = {}
        for track in table.setup.tracks:
            region = profile.region(f"{TRACK_PREFIX}{track}")
            row = ["+".join(sorted(spaces.get((track, c), []))) or EMPTY_SPACE for c in range(region.cols)]
            labels[region.name] = [row]
        return labels

    def targets(self, profile: BoardProfile, key: CellKey, label: str) -> dict[str, int]:
        colours = set() if label == EMPTY_SPACE else set(label.split("+"))
        unknown = colours - set(self.markers)
        if unknown:
            raise ValueError(
                f"marker colour {', '.join(sorted(unknown))} is not read on this board; "
                f"its colours are {', '.join(self.markers)}"
            )
        return {h.name: class_index(h, "yes" if h.name in colours else "no") for h in self.heads}

    def sightings(
        self, profile: BoardProfile, readings: Mapping[CellKey, Reading]
    ) -> dict[str, dict[str, list[tuple[float, int]]]]:
        """Per colour, per track, (probability its marker is there, space) for every space, surest first."""
        seen: dict[str, dict[str, list[tuple[float, int]]]] = {m: {} for m in self.markers}
        for region in self.regions:
            track = region.removeprefix(TRACK_PREFIX)
            for r, c in profile.region(region).cells():
                reading = readings[(region, r, c)]
                for colour in self.markers:
                    present, confidence = reading[colour]
                    p_yes = confidence if present == "yes" else 1.0 - confidence
                    seen[colour].setdefault(track, []).append((p_yes, c))
        for tracks in seen.values():
            for spots in tracks.values():
                spots.sort(reverse=True)
        return seen

    def positions(
        self, profile: BoardProfile, readings: Mapping[CellKey, Reading]
    ) -> dict[str, dict[str, int | None]]:
        """Per colour, its space on each track (None: removed).

        A player has one marker per track, so the track is read as a whole: the marker stands where it is
        likeliest, unless it is unlikely everywhere. Even a doubtful sighting (a marker half hidden behind
        another) is taken, since markers are rarely removed; :meth:`notes` asks for it to be checked. On a
        space another colour's marker holds, a fainter one counts (:data:`REMOVED_BEHIND_BELOW`).
        """
        seen = self.sightings(profile, readings)
        out: dict[str, dict[str, int | None]] = {}
        for colour, tracks in seen.items():
            out[colour] = {}
            for track, spots in tracks.items():
                taken = {
                    c for other in self.markers if other != colour for p, c in seen[other][track] if p >= 0.5
                }
                behind = max(REMOVED_BEHIND_BELOW, STANDS_OUT * median(p for p, _ in spots))
                chances = [(p, c) for p, c in spots if p >= REMOVED_BELOW or (c in taken and p >= behind)]
                out[colour][track] = max(chances)[1] if chances else None
        return out

    def assemble(
        self, profile: BoardProfile, readings: Mapping[CellKey, Reading], hand: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The whole table: players from ``hand["players"]`` (positions always from the photo), else one
        player per marker colour seen, named after it. ``hand["extra_rewards_by_colour"]`` gives the
        Extra-rewards tiles of a player who has none in ``hand["players"]`` (tiles read from their photos)."""
        positions = self.positions(profile, readings)
        # A colour is a player's when its marker is seen surely somewhere, not from faint sightings alone.
        seen = self.sightings(profile, readings)

        def seen_at(least: float) -> set[str]:
            return {c for c, tracks in seen.items() if any(s[0][0] >= least for s in tracks.values())}

        in_play = seen_at(0.5)
        tiles = {str(k): list(v) for k, v in (hand.get(EXTRA_REWARDS_BY_COLOUR) or {}).items()}
        unknown = sorted(set(tiles) - set(positions))
        if unknown:
            raise ValueError(
                f"{EXTRA_REWARDS_BY_COLOUR}: {', '.join(unknown)} is no marker colour of this board; "
                f"its colours are {', '.join(self.markers)}"
            )
        players: list[dict[str, Any]] = []
        for i, given in enumerate(hand.get("players") or []):
            colour = str(given.get("colour", ""))
            if colour not in positions:
                raise ValueError(
                    f"players[{i}]: marker colour {colour!r} is not read on this board; its colours are "
                    f"{', '.join(self.markers)} (a table's own colours go in the profile's setup.markers "
                    "and are learnt by enrolment)"
                )
            entry = {k: v for k, v in given.items() if k != "positions"}
            if colour in tiles and not entry.get("extra_rewards"):
                entry["extra_rewards"] = tiles[colour]
            players.append({**entry, "colour": colour, "positions": positions[colour]})
        # Markers seen surely of a colour no player was given: a player left out (a form's colours left as
        # they came), who would silently score nothing. A sighting below the line where its cell is flagged
        # for checking refuses nothing: the bundled photo viewed upright, its outline found 24 px off at one
        # corner, read a marker 0.896 white, and a right reading was refused.
        unclaimed = sorted(seen_at(LOW_CONFIDENCE) - {p["colour"] for p in players}) if players else []
        if unclaimed:
            # Where they stand, and both ways out: a misread board shows a colour nobody has too.
            where = "; ".join(
                f"{colour} on the {track} track's space {spots[0][1]}"
                for colour in unclaimed
                for track, spots in seen[colour].items()
                if spots[0][0] >= LOW_CONFIDENCE
            )
            raise ValueError(
                f"{' and '.join(unclaimed)} markers stand on the Scoreboard ({where}) but no player has that "
                "colour: give each player the colour of their markers, or, if nobody plays that colour, "
                "photograph the board again with some table round it (a marker may have been misread)"
            )
        if not players:
            players = [
                {
                    "name": colour,
                    "colour": colour,
                    "positions": spaces,
                    "extra_rewards": tiles.get(colour, []),
                }
                for colour, spaces in positions.items()
                if colour in in_play
            ]
        setup = {k: v for k, v in profile.setup.items() if k not in READER_SETUP}
        return {"game": self.game, "setup": setup, "players": players}

    def notes(
        self,
        profile: BoardProfile,
        readings: Mapping[CellKey, Reading],
        state: Mapping[str, Any] | None = None,
    ) -> tuple[str, ...]:
        """What a marker's confidence alone does not show: seen on two spaces of a track, taken from a faint
        sighting, or missing from a track a doubtful space could hide it on (under a hand), or a space with
        a marker (one can stand right behind another and show nothing: a clear "no" there proves nothing).
        Missing where no space could hide it, it was removed and needs no check. Said of the players'
        colours in ``state``, where it is given; a colour nobody plays, seen faintly, is said once, as such
        (its notes read as if it played: "white's marker not seen" on a table of orange and black)."""
        low = LOW_CONFIDENCE
        out: list[str] = []
        seen = self.sightings(profile, readings)
        positions = self.positions(profile, readings)
        playing = self.markers if state is None else tuple(str(p["colour"]) for p in state["players"])
        for colour in (m for m in self.markers if m not in playing):
            where = [f"the {t} track's space {s}" for t, s in positions[colour].items() if s is not None]
            if where:
                out.append(
                    f"{colour} markers may stand on the Scoreboard, faintly seen on {', '.join(where)}, but "
                    "no player has that colour: check those spaces, or give the player"
                )
        for colour in playing:
            for track, spots in seen[colour].items():
                sure = sorted(c for p, c in spots if p >= 0.5)
                if len(sure) > 1:
                    spaces = ", ".join(str(c) for c in sure)
                    out.append(
                        f"{colour}'s marker seen on spaces {spaces} of the {track} track: read as space "
                        f"{spots[0][1]}, the surest; check"
                    )
                elif (space := positions[colour][track]) is not None and not sure:
                    out.append(
                        f"{colour}'s marker on the {track} track read faintly, on space {space}: check"
                    )
        for region in self.regions:
            track = region.removeprefix(TRACK_PREFIX)
            read = [(str(c), readings[(region, r, c)]) for r, c in profile.region(region).cells()]
            doubtful = [c for c, cell in read if min(cell[m][1] for m in self.markers) < low]
            # Even one marker can stand right in front of another on its space and hide all of it: in 500
            # benchmark photos, a white marker behind an orange one was read as removed, with no flag, when
            # only a stack of several was taken to hide one.
            occupied = [c for c, cell in read if any(cell[m][0] == "yes" for m in self.markers)]
            why = [
                *([f"unclear space {', '.join(doubtful)}"] if doubtful else []),
                *([f"it may be behind a marker on space {', '.join(occupied)}"] if occupied else []),
            ]
            if not why:
                continue
            for colour in playing:
                placed = positions[colour]
                # A colour seen on no track at all is not in play: nobody owns that marker.
                if placed[track] is None and any(v is not None for v in placed.values()):
                    out.append(
                        f"{colour}'s marker not seen on the {track} track: removed (scores 0) or hidden? "
                        f"check ({'; '.join(why)})"
                    )
        return tuple(out)


class RewardReader(ReaderBase):
    """An Extra-rewards tile photographed as a board of its own (a profile with a ``number`` region)."""

    game: str = REWARD_KEY
    regions: tuple[str, ...] = (REWARD_REGION,)
    heads: tuple[Head, ...] = (Head("digit", tuple(str(n) for n in range(1, 10))),)
    context_mm: float = 2.0
    crop_px: int = 32

    def region_heads(self, region: str) -> tuple[str, ...]:
        return ("digit",)

    def cell_labels(self, profile: BoardProfile, state: Mapping[str, Any]) -> CellLabels:
        return {REWARD_REGION: [[str(reward_value(state))]]}

    def targets(self, profile: BoardProfile, key: CellKey, label: str) -> dict[str, int]:
        return {"digit": class_index(self.heads[0], label)}

    def assemble(
        self, profile: BoardProfile, readings: Mapping[CellKey, Reading], hand: Mapping[str, Any]
    ) -> dict[str, Any]:
        return {"tile": "extra-rewards", "value": int(readings[(REWARD_REGION, 0, 0)]["digit"][0])}


def is_reward_profile(profile: BoardProfile) -> bool:
    return any(r.name == REWARD_REGION for r in profile.regions)


def marker_spaces(
    table: four_gardens.FourGardensTable, colours: Collection[str]
) -> dict[tuple[str, int], list[str]]:
    """Marker colours per (track, space), in player order; a colour outside ``colours`` is refused."""
    spaces: dict[tuple[str, int], list[str]] = {}
    for player in table.players:
        if player.colour not in colours:
            raise ValueError(
                f"player {player.name!r} has marker colour {player.colour!r}; colours: {', '.join(colours)}"
            )
        for track, pos in player.positions.items():
            if pos is not None:
                spaces.setdefault((track, pos), []).append(player.colour)
    return spaces


def reward_value(state: Mapping[str, Any]) -> int:
    """An Extra-rewards tile's number from its state ``{"tile": "extra-rewards", "value": 1-9}``."""
    value = state.get("value")
    if state.get("tile") != "extra-rewards" or not isinstance(value, int) or not 1 <= value <= 9:
        raise ValueError(f"an Extra-rewards tile is {{'tile': 'extra-rewards', 'value': 1-9}}, got {state!r}")
    return value


def reader_for(profile: BoardProfile) -> FourGardensReader | RewardReader:
    """A Four Gardens photo shows the Scoreboard or an Extra-rewards tile, whose profile has a number."""
    return RewardReader() if is_reward_profile(profile) else FourGardensReader.for_profile(profile)


READERS = (FourGardensReader(), RewardReader())
