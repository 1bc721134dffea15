"""Stability: turns flickering per-frame detections into settled table events.

A card enters the table only after it has been seen steadily for ``settle_seconds``. A card that
vanishes is removed only after ``remove_after_seconds`` of absence counted on *clear* frames: while a
hand covers the table (an occluder, or most known cards unseen at once) absence does not count, so a
hand passing over removes nothing. A card that reappears elsewhere while its old place is empty is
``moved``; a card that turns to ``BACK`` where it lay is ``turned`` and keeps the memory of its face.
Whatever the tracker is unsure of (a weak reading, a second copy of a one-copy card, a card in no
zone) becomes a ``question`` and no event: the table answers, the tracker never guesses.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np

from companion.table.events import Observation, TableEvent
from companion.messages import CardName, Message

ZoneOf = Callable[[tuple[float, float]], "str | None"]


@dataclass(frozen=True)
class TrackerConfig:
    settle_seconds: float = 0.6          # seen this long, steadily, before a card counts
    remove_after_seconds: float = 2.0    # absent this long on clear frames before a card is removed
    remove_after_frames: int = 3         # ... and in at least this many clear frames read anew (a slow detector)
    forget_candidate_seconds: float = 0.5  # an unsettled sighting unseen this long is noise
    match_distance: float = 40.0         # table units (mm on a mat): how far a card may drift between frames
    steady_fraction: float = 0.6         # of the frames in the settle window that must show the card
    min_confidence: float = 0.25         # readings below this are ignored altogether
    sure_confidence: float = 0.6         # a settled face reading with a median below this becomes a question
    # A back names no face, so there is nothing to misread: the detector's own back threshold already
    # decided a card lies there face down, and the tracker asks only below that.
    sure_back_confidence: float = 0.4
    # A settled face read as another face where it lies (a swap, or a misread of it) is believed only
    # this surely (None: sure_confidence). A learned deck lowers sure_confidence to its detector's
    # threshold (companion.table.pipeline.sure_as_the_detector) but not this: on the Dungeon
    # recording drawn with the held-out tigullio deck its readings flipped settled cards 3C <-> 3S and
    # AC <-> AS at medians of 0.36-0.49, and each flip became a removal and a placement.
    sure_swap_confidence: float | None = None
    occlusion_visible_fraction: float = 0.5  # fewer known cards seen than this: the frame is occluded ...
    occlusion_min_cards: int = 3         # ... when at least this many are known (one card may simply be gone)
    copies: int = 1                      # copies of each face in play (decks); BACK is unlimited
    # A card that comes to rest elsewhere in its own zone is "moved" too (farther than
    # within_zone_move_distances match distances from where it was last reported): without a game every
    # card lies in one zone, "table" (companion.table.bindings.none), and a card slid or carried across
    # it is still a change. One match distance is too little: a card read from one index one frame and
    # from two the next has its centre estimated that far apart (real webcam photos held still,
    # vision_models/checks/still_table.py: an AH "moved" twice in 4 s without being touched).
    moves_within_zone: bool = False
    within_zone_move_distances: float = 2.0
    # Hysteresis: a settled card changes code (another face, turned) only when, since the new reading
    # took over, it has been read as steadily as a new card must be (steady_fraction of the frames read
    # anew) and outweighs the card's own readings (confidence-weighted) this many times. A card swapped or
    # turned is not read as itself any more (its own weight drops to nothing: the change comes as promptly
    # as before); a classifier flickering between two readings of a still card reads it as itself now
    # and then, and changes nothing. Real webcam photos held still (vision_models/checks/still_table.py, 51
    # clips, 2026-12-02): extra changes 12 (incremental) / 18 (every frame read in full) at 1 or 2,
    # 10 / 16 at 4 and at 8.
    change_margin: float = 4.0
    # A card is placed, or changes, only once read anew in this many frames: one look handed back by an
    # incremental reader over a still table until its next recheck proves no more than the look itself.
    # (Steadiness, votes and absence are all counted in frames read anew; that, not this number, is what
    # took the still clips' extra changes from 42 / 36 to 10 / 16; 1 and 2 measure alike there, 3 lost
    # recall on the incremental clips.)
    settle_looks: int = 2
    # A new card must have been read steadily over its life, up to this long, not only over the last
    # settle_seconds: a card seen in a third of the frames is steady by chance in some 0.6 s. Still clips:
    # extra changes 16 / 16 at 0.6 s, 10 / 16 at 1.2 s, 10 / 16 at 2 s (F1 0.847 / 0.847, 0.841 / 0.845,
    # 0.839 / 0.846). Time to settle a card read in every frame is unchanged (settle_seconds).
    steady_seconds: float = 1.2
    # Settled by evidence: a card read the same, surely, in this many looks in a row (frames read anew),
    # lying still, with no hand over the table now, and since it appeared read in every look, as
    # nothing else and never doubtfully, settles at once instead of after settle_seconds; a new card,
    # a turn, a move to another zone alike. One that flickers, is doubtful, is seen now and then or
    # still moves waits as long as before (the rules above). 0: never at once (the constant settle of
    # before). Chosen on scripts/settle_check.py (3 demos + 4 new seeds, live and every frame: 356
    # actions) and the 51 still real tables (vision_models/checks/still_table.py), 2026-12-04: 2 looks at
    # 0.8 add no event anywhere and wait 0.375 s median (0.875 p95) where the constant waited 0.667
    # (1.0); at 0.75-0.79 the still tables gain 3-7 events (phantoms, a card placed early where its
    # centre was estimated off); 3 looks at 0.75 add none but wait 0.5 s. docs/table.md, *Settled by evidence*.
    sure_looks: int = 2
    sure_look_confidence: float = 0.8    # every one of those looks at least this sure
    still_fraction: float = 0.25         # "lying still": no look farther than this share of the match distance from the last

    def sure_for(self, code: str) -> float:
        """The median confidence below which a settled reading of ``code`` is asked about."""
        return self.sure_back_confidence if code == "BACK" else self.sure_confidence

    def sure_for_change(self, previous: str | None, code: str) -> float:
        """The median confidence below which a settled card's change from ``previous`` to ``code`` is asked about."""
        if "BACK" in (previous, code) or self.sure_swap_confidence is None:
            return self.sure_for(code)
        return self.sure_swap_confidence

    def __post_init__(self) -> None:
        for name in ("settle_seconds", "remove_after_seconds", "forget_candidate_seconds", "match_distance"):
            if getattr(self, name) <= 0:
                raise ValueError(f"tracker setting {name} must be positive, got {getattr(self, name)}")
        if self.remove_after_frames < 1:
            raise ValueError("remove_after_frames must be at least 1")
        for name in ("sure_confidence", "sure_back_confidence", "sure_swap_confidence"):
            if name == "sure_swap_confidence" and self.sure_swap_confidence is None:
                continue
            if not 0 <= self.min_confidence <= getattr(self, name) <= 1:
                raise ValueError(f"need 0 <= min_confidence <= {name} <= 1")
        if self.copies < 1:
            raise ValueError("copies must be at least 1")
        if self.settle_looks < 1:
            raise ValueError("settle_looks must be at least 1")
        if self.steady_seconds < self.settle_seconds:
            raise ValueError("steady_seconds must be at least settle_seconds")
        if self.sure_looks < 0 or (self.sure_looks and self.sure_looks < self.settle_looks):
            raise ValueError("sure_looks must be 0 (never at once) or at least settle_looks")
        if not 0 < self.sure_look_confidence <= 1 or self.still_fraction <= 0:
            raise ValueError("sure_look_confidence must be in (0, 1] and still_fraction positive")
        if self.change_margin < 1:
            raise ValueError("change_margin must be at least 1 (a change outweighs the card's own readings)")


# A sighting, one frame's reading of a track, is a plain tuple (time, code, confidence, look): Python's
# garbage collector stops tracking a tuple of plain values, and a server following 50 tables keeps
# ~360,000 of them (240 per card); as objects its full collections stalled every request for up to
# 140 ms (benchmarks/load_venue.py).
# ``look`` is False where the frame brought no new reading (an incremental reader that saw no change
# hands back its last frame's cards): time passes and the card is still there, but nobody looked again,
# so such a sighting is no further evidence of what the card is.
_TIME, _CODE, _CONFIDENCE, _LOOK = 0, 1, 2, 3
_Sighting = tuple

# A card lifted and laid elsewhere may still be read where it lay in the frame its new place is first
# read (the hand lifting it); read there in more frames since, it is another reading, not one card moved.
TWIN_OVERLAP_FRAMES = 1
# A weak back closer than this many match distances to two settled backs (or half as far to one) lies
# over their edges, not beside them (Tracker._overlaps_settled_backs): on a mat 36 mm, half a poker
# card's 63 mm width and a little more; the chips of the shipped Chosen demo lie 60 mm apart.
BACK_OVERLAP_DISTANCES = 0.9
# ... and closer than this many to one settled back covers more than half of it (30 mm of a 63 mm wide
# card): a card laid there would hide the one below, so it is that card's edge read with its
# neighbour's. A new Chosen seed (development seed 44, every frame read): a weak back (0.50-0.60) 19-24 mm
# from a chip at the mat's far edge and 38-43 mm from the chip just laid beside it settled as a third
# chip; half as far as above (18 mm) let it through.
ONE_BACK_OVERLAP_DISTANCES = 0.75


@dataclass
class Track:
    id: int
    position: tuple[float, float]
    first_seen: float
    last_seen: float
    sightings: deque = field(default_factory=lambda: deque(maxlen=240))
    settled: bool = False
    code: str | None = None        # settled visible code
    face: str | None = None        # remembered face while the card lies face down
    zone: str | None = None        # settled zone
    missing: float = 0.0           # seconds of absence on clear frames
    missed_frames: int = 0         # clear frames in a row without it
    asked: set = field(default_factory=set)
    velocity: tuple[float, float] = (0.0, 0.0)
    pending_zone: str | None = None
    pending_zone_since: float = 0.0
    pending_code: str | None = None
    pending_code_since: float = 0.0
    in_order: bool = True          # the sightings are in time order (absorbing another track's may break it)
    rest: tuple[float, float] | None = None   # where it was last reported lying (moves_within_zone)
    pending_rest: tuple[float, float] | None = None
    pending_rest_since: float = 0.0
    still_since: float = -math.inf  # since when every reading of it lay where the one before did (sure_looks)

    def recent(self, now: float, window: float) -> list[_Sighting]:
        """The sightings of the last ``window`` seconds, in the order kept. In time order (a tracker's
        frame times never go back) the walk stops at the first older one: a settled card keeps 240
        sightings and is asked for its last 0.6 s on every frame."""
        return self.since(now - window)

    def since(self, moment: float) -> list[_Sighting]:
        """The sightings from ``moment`` on, in the order kept (walked back from the newest, as :meth:`recent`)."""
        cutoff = moment - 1e-9
        if not self.in_order:
            return [s for s in self.sightings if s[_TIME] >= cutoff]
        found = []
        for sighting in reversed(self.sightings):
            if sighting[_TIME] < cutoff:
                break
            found.append(sighting)
        found.reverse()
        return found

    def codes_seen(self) -> list[str]:
        """The code of each sighting kept, oldest first."""
        return [s[_CODE] for s in self.sightings]


class Tracker:
    """Feed it ``update(time, observations)`` once per frame; it returns the settled events."""

    def __init__(self, zone_of: ZoneOf | None = None, config: TrackerConfig | None = None) -> None:
        self.config = config or TrackerConfig()
        self.zone_of: ZoneOf = zone_of or (lambda position: "table")
        self.tracks: list[Track] = []
        self._next_id = 1
        self._last_time: float | None = None
        self._frame_times: deque = deque(maxlen=600)
        self._look_times: deque = deque(maxlen=600)   # the frames read anew (see _LOOK)
        self._hand_now = False                        # a hand over the table in the frame being read
        # The time of the last real frame once the input has ended and its last frame is being held
        # (so late cards can settle): from then on only readings steady before it may settle.
        self.held_since: float | None = None

    def __setstate__(self, state: dict) -> None:
        # a tracker saved before the evidence rule (TablePipeline.saved) resumes without its hand record
        state.setdefault("_hand_now", False)
        self.__dict__.update(state)

    # ------------------------------------------------------------------ public

    @property
    def cards(self) -> list[Track]:
        """The settled cards on the table."""
        return [t for t in self.tracks if t.settled]

    def snapshot(self) -> list[dict]:
        return [{"track": t.id, "card": t.code, "zone": t.zone, "position": [round(v, 1) for v in t.position],
                 **({"face": t.face} if t.face else {})} for t in self.cards]

    def update(self, time: float, observations: Iterable[Observation], occluded: bool = False,
               held: bool = False, repeated: bool = False) -> list[TableEvent]:
        """One frame's readings; ``held`` says the frame is the input's last one, held after its end;
        ``repeated`` that the readings are the last frame's handed back unread (nothing changed)."""
        cfg = self.config
        if self._last_time is not None and time < self._last_time:
            raise ValueError(f"frame time went backwards: {time} after {self._last_time}")
        if held and self.held_since is None:
            self.held_since = self._last_time if self._last_time is not None else time
        elif not held:
            self.held_since = None
        dt = 0.0 if self._last_time is None else time - self._last_time
        self._last_time = time
        self._frame_times.append(time)
        look = not repeated
        self._hand_now = occluded
        if look:
            self._look_times.append(time)

        observations = _one_per_card([o for o in observations if o.confidence >= cfg.min_confidence], cfg.match_distance / 2)
        matches, unmatched = self._associate(observations)
        events: list[TableEvent] = []

        for track, obs in matches:
            gap = time - track.last_seen
            if gap > 0:
                # a carried card keeps moving: remember its velocity to find it in the next frame
                track.velocity = ((obs.position[0] - track.position[0]) / gap, (obs.position[1] - track.position[1]) / gap)
            if math.dist(track.position, obs.position) > cfg.match_distance * cfg.still_fraction:
                track.still_since = time
            track.position = obs.position
            track.last_seen = time
            track.sightings.append((time, obs.code, obs.confidence, look))
        for obs in unmatched:
            track = Track(self._next_id, obs.position, time, time, still_since=time)
            track.sightings.append((time, obs.code, obs.confidence, look))
            self._next_id += 1
            self.tracks.append(track)

        settled = [t for t in self.tracks if t.settled]
        seen_settled = sum(1 for t in settled if t.last_seen == time)
        crowd_hidden = len(settled) >= cfg.occlusion_min_cards and seen_settled < cfg.occlusion_visible_fraction * len(settled)
        clear = not occluded and not crowd_hidden

        for track in list(self.tracks):
            if track.settled:
                events.extend(self._update_settled(track, time, dt, clear))
            else:
                events.extend(self._update_candidate(track, time))
        # The cards gone go last: one carried off and laid down elsewhere, its new place settling in this
        # very frame, has moved (the candidate above took it over), not gone and come anew. A slow reader
        # (a phone at 0.5 s a frame) first sees the new place in the frame that also ends the old one's
        # absence: the Chosen's chosen and its chips carried to the vault came as three removals and four
        # placements.
        for track in [t for t in self.tracks if self._gone(t)]:
            self.tracks.remove(track)
            events.append(TableEvent("removed", track.code, track.zone, time, track.id, track.position, face=track.face))
        return events

    def _gone(self, track: Track) -> bool:
        """Whether a settled card has been absent long enough, on clear frames, to be removed."""
        cfg = self.config
        return track.settled and track.last_seen < self._last_time and \
            track.missing >= cfg.remove_after_seconds - 1e-9 and track.missed_frames >= cfg.remove_after_frames

    # ------------------------------------------------------------------ association

    def _associate(self, observations: list[Observation]):
        gate = self.config.match_distance
        pairs = []
        now = self._last_time
        expected_at, gates = [], []
        for track in self.tracks:
            ahead = min(now - track.last_seen, 0.5)
            expected_at.append((track.position[0] + track.velocity[0] * ahead, track.position[1] + track.velocity[1] * ahead))
            # a card unseen for a while is found again only where it lay; elsewhere it may be
            # one of several look-alikes that moved together, which _missing_twin sorts out
            gates.append(gate if now - track.last_seen <= self.config.forget_candidate_seconds / 2 else gate * 0.3)
        for ti, oi in _within_reach(self.tracks, expected_at, gates, observations):
            track, obs, expected, track_gate = self.tracks[ti], observations[oi], expected_at[ti], gates[ti]
            d = min(math.dist(expected, obs.position), math.dist(track.position, obs.position))
            # a card read from one index whose facing was misread: its other centre is where the card lies
            flipped = (track.settled and obs.other_position is not None and obs.code == track.code
                       and math.dist(track.position, obs.other_position) < d)
            if flipped:
                d = math.dist(track.position, obs.other_position)
            if d <= track_gate:
                # same visible code first, then distance: a card and its neighbour never swap
                same = obs.code == (track.code or _majority(track.sightings))
                pairs.append((0 if same else 1, d, ti, oi, flipped))
        pairs.sort()
        used_t, used_o, matches = set(), set(), []
        for _, _, ti, oi, flipped in pairs:
            if ti in used_t or oi in used_o:
                continue
            used_t.add(ti)
            used_o.add(oi)
            obs = observations[oi]
            if flipped:
                obs = Observation(obs.code, obs.confidence, obs.other_position, obs.position)
            matches.append((self.tracks[ti], obs))
        unmatched = [o for i, o in enumerate(observations) if i not in used_o]
        return matches, unmatched

    # ------------------------------------------------------------------ candidates

    def _update_candidate(self, track: Track, time: float) -> list[TableEvent]:
        cfg = self.config
        if time - track.last_seen > cfg.forget_candidate_seconds and self._frames_since(track.last_seen) >= 2:
            self.tracks.remove(track)
            return []
        if track.last_seen < time:
            return []   # not in this frame: a card settles only while it is seen
        sure = self._read_surely(track, time, track.first_seen)
        if sure is not None:
            code, confidence = sure
        else:
            if time - track.first_seen < cfg.settle_seconds - 1e-9:
                return []   # too new
            # steadiness and the vote are over the frames read anew: a reading handed back unread is the same look
            span = max(cfg.settle_seconds, min(cfg.steady_seconds, time - track.first_seen))
            window = [s for s in track.recent(time, span) if s[_LOOK]]
            looks = self._looks_since(time - span)
            if not window or len(window) < cfg.steady_fraction * looks:
                return []
            if sum(1 for s in track.sightings if s[_LOOK]) < cfg.settle_looks:
                return []
            code, confidence = _vote(window)
            if code is None:
                return []
        if self.held_since is not None and not self._steady_before_hold(track, code):
            return []   # seen steadily only because the last frame is held: a misread there is no card
        zone = self.zone_of(track.position)
        if confidence < cfg.sure_for(code):
            return self._ask(track, time, "unsure", Message("is the card at this spot %(code)s? the camera is only %(confidence)s sure",
                                                            code=CardName(code), confidence=format(confidence, '.0%')),
                             {"guess": code, "confidence": round(confidence, 3)}, zone)
        if code == "BACK" and confidence < cfg.sure_look_confidence and self._overlaps_settled_backs(track):
            # the detector's box across the edges of face-down cards that lie side by side; weak: less
            # sure than a card settled at once must be (the chips' own backs read 0.82-0.89, their edges
            # together 0.47-0.60, and two looks at 0.50 and 0.60 vote 0.60)
            return []
        # where a settled card lies, a second reading is that card misread (cards do not stack)
        occupant = self._settled_near(track.position, exclude=track)
        if occupant is not None and occupant.code != code:
            read_as_itself = max((s[_TIME] for s in occupant.sightings if s[_CODE] == occupant.code), default=-math.inf)
            if "BACK" in (code, occupant.code) and read_as_itself <= track.first_seen:
                # nothing has read the card that lay here as itself since this reading began: it is that
                # card turned over, which its own track tells (keeping its face), not a second card. The
                # frame the reading began may still show the face: a card half turned by the hand shows
                # both (a learned deck's lower back threshold finds its back then; the Chosen recording
                # drawn with the held-out tigullio deck read its 5H chip as 5H and as a back at 1.75 s)
                self._absorb(occupant, track)
                return []
            return self._ask(track, time, "overlap", Message("the card here reads as %(code)s and as %(code2)s: which is it?",
                                                             code=CardName(occupant.code), code2=CardName(code)),
                             {"guess": code, "settled": occupant.code}, zone)
        # a card that vanished from elsewhere and shows up here has moved
        source = self._missing_twin(code, exclude=track)
        if source is not None:
            self.tracks.remove(track)
            previous = source.zone
            source.position, source.last_seen, source.missing = track.position, track.last_seen, 0.0
            source.sightings, source.in_order = track.sightings, track.in_order
            if zone is None:
                return self._ask(source, time, "nozone", Message('%(code)s lies outside every zone of the mat', code=CardName(code)), {}, None)
            source.zone = zone
            source.pending_zone = None
            moved_aside = cfg.moves_within_zone and source.rest is not None and \
                math.dist(source.rest, track.position) > cfg.match_distance * cfg.within_zone_move_distances
            source.rest = track.position
            if zone == previous and not moved_aside:
                return []
            return [TableEvent("moved", code, zone, time, source.id, source.position, face=source.face,
                               previous_zone=previous)]
        if code != "BACK":
            copies = sum(1 for t in self.tracks if t.settled and (t.code == code or t.face == code))
            if copies >= cfg.copies:
                return self._ask(track, time, "duplicate", Message("a second %(code)s appeared, but the game has %(copies)s of it: which one "
                                                                   "is real?",
                                                                   code=CardName(code), copies=cfg.copies), {"guess": code}, zone)
        if zone is None:
            return self._ask(track, time, "nozone", Message("%(code)s lies outside every zone of the mat",
                                                            code=CardName(code)), {"guess": code}, None)
        track.settled, track.code, track.zone, track.rest = True, code, zone, track.position
        return [TableEvent("placed", code, zone, time, track.id, track.position)]

    def _seen_still(self, track: Track, time: float, since: float) -> list[_Sighting] | None:
        """The track's readings in the last ``sure_looks`` frames read anew, when it was read in every one
        of them, lying still, all since ``since``, and there is no hand over the table now (else None).
        Never while the last frame is held."""
        k = self.config.sure_looks
        # and no hand over the table now: what a hand holds or half hides is read surely now and then (a
        # Kingdoms seed: a 4H twice under the hand where a 10D was being laid, gone in the next look). A
        # frame unchanged since the looks, with the hand gone, is that frame: nothing moved since
        if not k or self.held_since is not None or track.last_seen < time or self._hand_now or len(self._look_times) < k:
            return None
        first = self._look_times[-k]
        if first < since - 1e-9 or first < track.still_since - 1e-9:
            return None
        looks = [s for s in track.recent(time, time - first) if s[_LOOK]]
        return looks if len(looks) >= k else None

    def _read_surely(self, track: Track, time: float, since: float, turned_from: str | None = None) -> tuple[str, float] | None:
        """(code, median confidence) when the track was read as ``code``, surely (every look at least
        ``sure_look_confidence``), in each of the last ``sure_looks`` frames read anew, lying still, and
        as nothing else in any look since ``since``; else None. While a settled card of the same code is
        unseen (this may be it, carried here) it waits as before, unless it is the one face of its code
        gone long enough to have moved here (``_missing_twin``): look-alikes carried together (the
        Chosen's chips) are told apart by the move they share once all of them are seen. ``turned_from``: only
        a reading of the card's other side counts (a settled card asks whether it was turned over, on every frame)."""
        cfg = self.config
        looks = self._seen_still(track, time, since)
        if looks is None:
            return None
        code = looks[-1][_CODE]
        if turned_from is not None and (code == turned_from or "BACK" not in (code, turned_from)):
            return None
        if any(s[_CODE] != code or s[_CONFIDENCE] < cfg.sure_look_confidence for s in looks):
            return None
        # since ``since``: read in every frame read anew (one seen now and then is no steady card), as
        # nothing else (one read otherwise now and then flickers), and never doubtfully (below the sure
        # level a settled reading must reach: a real webcam's QD read at 0.4 for 3 s, then twice at 0.82)
        since_looks = [s for s in track.since(since) if s[_LOOK]]
        if len(since_looks) < self._looks_since(since):
            return None
        if any(s[_CODE] != code or s[_CONFIDENCE] < cfg.sure_for(code) for s in since_looks):
            return None
        unseen = [t for t in self.tracks if t.settled and t is not track and (t.code == code or t.face == code) and t.last_seen < time]
        if unseen and (code == "BACK" or len(unseen) > 1 or self._missing_twin(code, exclude=track) is not unseen[0]):
            return None
        confidences = sorted(s[_CONFIDENCE] for s in looks)
        return code, confidences[len(confidences) // 2]

    def _looks_since(self, moment: float) -> int:
        """How many frames were read anew from ``moment`` on, counted back from the newest (frame times never go
        back): every frame asks it for each settled card, and the tracker keeps 600 look times."""
        cutoff, count = moment - 1e-9, 0
        for look_time in reversed(self._look_times):
            if look_time < cutoff:
                break
            count += 1
        return count

    def _steady_before_hold(self, track: Track, code: str) -> bool:
        """Whether ``code`` was read steadily at ``track`` in the real frames before the input ended.

        The held last frame repeats whatever it shows, so its readings prove nothing more. Before
        the end the reading must have been seen in at least two real frames, in a steady share of
        the real frames since it appeared (at most ``settle_seconds`` back), and won their vote.
        """
        end, cfg = self.held_since, self.config
        since = max(track.first_seen, end - cfg.settle_seconds) - 1e-9
        real = [s for s in track.sightings if since <= s[_TIME] <= end + 1e-9]
        frames = sum(1 for t in self._frame_times if since <= t <= end + 1e-9)
        return len(real) >= 2 and len(real) >= cfg.steady_fraction * frames and _vote(real)[0] == code

    def _absorb(self, settled: Track, candidate: Track) -> None:
        """The candidate's sightings become the settled card's: the same card, seen anew."""
        self.tracks.remove(candidate)
        settled.position, settled.last_seen, settled.velocity = candidate.position, candidate.last_seen, (0.0, 0.0)
        settled.in_order = settled.in_order and candidate.in_order and (
            not settled.sightings or not candidate.sightings or candidate.sightings[0][_TIME] >= settled.sightings[-1][_TIME])
        settled.sightings.extend(candidate.sightings)

    def _overlaps_settled_backs(self, track: Track) -> bool:
        """Whether a back (a weak one: the caller asks) lies over two settled face-down cards, or over one by more than half.

        Two chips laid side by side are read, now and then, as a third, weak back across their edges
        (the Chosen, a new seed: 0.47-0.50 between two chips 60 mm apart, 27 and 33 mm from each; it
        settled, and its removal 2 s later cost the game a turn). A back really laid lies clear of the
        others: at least a card's width from each."""
        reach = self.config.match_distance * BACK_OVERLAP_DISTANCES
        over_one = self.config.match_distance * ONE_BACK_OVERLAP_DISTANCES
        near = [t for t in self.tracks if t.settled and t is not track and t.code == "BACK" and not self._gone(t)
                and math.dist(t.position, track.position) < reach]
        return len(near) >= 2 or any(math.dist(t.position, track.position) < over_one for t in near)

    def _settled_near(self, position: tuple[float, float], exclude: Track) -> Track | None:
        """The settled card lying where ``position`` is (closer than half the match distance), if any."""
        near = [t for t in self.tracks if t.settled and t is not exclude and not self._gone(t)
                and math.dist(t.position, position) < self.config.match_distance / 2]
        return min(near, key=lambda t: math.dist(t.position, position), default=None)

    def _frames_since(self, moment: float) -> int:
        return sum(1 for t in self._frame_times if t > moment + 1e-9)

    def _missing_twin(self, code: str, exclude: Track) -> Track | None:
        """The settled card with this code that vanished and now shows up as ``exclude``, if any.

        Look-alike cards (backs, or copies from several decks) carried together are told apart by the
        move they share: of all pairings of the vanished cards with the newly seen ones, the one whose
        displacements agree best (a hand moves a group rigidly) wins, shorter moves breaking ties.
        """
        now = self._last_time
        # a card is never in two places at once: one still read where it lay after the new reading began
        # (a second reading of it, or a card whose reading jumps between two places) has not moved there
        # (a real webcam's AD, held still, "moved" that way)
        gone = [t for t in self.tracks if t.settled and t is not exclude and t.code == code
                and now - t.last_seen > self.config.forget_candidate_seconds / 2
                and _seen_since(t, exclude.first_seen) <= TWIN_OVERLAP_FRAMES]
        if len(gone) <= 1:
            return gone[0] if gone else None
        arrivals = [exclude] + [t for t in self.tracks if not t.settled and t is not exclude
                                and _majority(t.sightings) == code and now - t.first_seen >= self.config.settle_seconds / 2]
        arrivals = arrivals[:5]
        best, best_cost = None, math.inf
        for chosen in itertools.permutations(gone, min(len(gone), len(arrivals))):
            pairs = list(zip(arrivals, chosen))
            moves = [(a.position[0] - g.position[0], a.position[1] - g.position[1]) for a, g in pairs]
            mean = (sum(m[0] for m in moves) / len(moves), sum(m[1] for m in moves) / len(moves))
            spread = sum(math.dist(m, mean) for m in moves)
            cost = spread + 0.1 * sum(math.hypot(*m) for m in moves)
            if cost < best_cost:
                best, best_cost = chosen, cost
        return best[0] if best else None

    def _ask(self, track: Track, time: float, kind: str, text: Message, details: dict, zone) -> list[TableEvent]:
        if kind in track.asked:
            return []
        track.asked.add(kind)
        card = details.get("guess", track.code or _majority(track.sightings) or "BACK")
        return [TableEvent("question", card, zone, time, track.id, track.position, question=text,
                           details={"kind": kind, **details})]

    # ------------------------------------------------------------------ settled cards

    def _update_settled(self, track: Track, time: float, dt: float, clear: bool) -> list[TableEvent]:
        cfg = self.config
        if track.last_seen < time:
            if clear:
                track.missing += dt
                # a frame handed back unread shows the card as missing as the last look did, no more
                track.missed_frames += int(self._look_times[-1] == time) if self._look_times else 1
            return []   # removed, if gone, once the frame's new cards have settled (update)
        track.missing, track.missed_frames = 0.0, 0
        events: list[TableEvent] = []
        window = track.recent(time, cfg.settle_seconds)
        code, confidence = _vote(window)
        changed = False
        # a change first steady in the held last frame is only that frame's misread, repeated
        fresh_in_hold = self.held_since is not None and track.pending_code != code
        sure = self._read_surely(track, time, self._look_times[-cfg.sure_looks], turned_from=track.code) \
            if cfg.sure_looks and len(self._look_times) >= cfg.sure_looks else None
        if sure is not None:
            # turned: read surely as the other side in the last looks, and not as itself in any of them,
            # at once. A face read as another face waits (the hysteresis above): the still real tables'
            # flickers are such misreads, and a card swapped for another is rare in play
            code, confidence = sure
            if track.pending_code != code:
                track.pending_code, track.pending_code_since = code, self._look_times[-cfg.sure_looks]
            changed = self._outweighs(track, code, time - track.pending_code_since)
        elif code is not None and code != track.code and _share(window, code) >= cfg.steady_fraction and not fresh_in_hold:
            if track.pending_code != code:
                track.pending_code, track.pending_code_since = code, time
            changed = time - track.pending_code_since >= cfg.settle_seconds - 1e-9 and \
                self._outweighs(track, code, time - track.pending_code_since)
        else:
            track.pending_code = None
        if changed:
            track.pending_code = None
            if confidence < cfg.sure_for_change(track.code, code):
                asked = Message("did %(code)s become %(code2)s? the camera is only %(confidence)s sure", code=CardName(track.code),
                                code2=CardName(code), confidence=format(confidence, '.0%'))
                events += self._ask(track, time, f"unsure:{code}", asked,
                                    {"guess": code, "confidence": round(confidence, 3)}, track.zone)
            elif code == "BACK" or track.code == "BACK":
                previous = track.code
                if code == "BACK":
                    track.face = previous
                else:
                    if track.face and track.face != code:
                        events += self._ask(track, time, f"face:{code}", Message("%(code)s turned up where %(face)s had been turned down: "
                                                                                 "was the card swapped?",
                                                                                 code=CardName(code), face=CardName(track.face)),
                                            {"guess": code, "remembered": track.face},
                                            track.zone)
                    track.face = None
                track.code = code
                events.append(TableEvent("turned", code, track.zone, time, track.id, track.position,
                                         face=track.face, previous_card=previous))
            else:
                # a different face where a card lay: the old one went, a new one came
                events.append(TableEvent("removed", track.code, track.zone, time, track.id, track.position, face=track.face))
                track.code, track.face = code, None
                self._next_id += 1
                track.id = self._next_id - 1
                events.append(TableEvent("placed", code, track.zone, time, track.id, track.position))
        zone = self.zone_of(track.position)
        if zone != track.zone:
            if track.pending_zone != zone:
                track.pending_zone, track.pending_zone_since = zone, time
            if time - track.pending_zone_since >= cfg.settle_seconds - 1e-9 or \
                    self._seen_still(track, time, track.pending_zone_since) is not None:
                if zone is None:
                    events += self._ask(track, time, "nozone-moved", Message('%(code)s was moved outside every zone', code=CardName(track.code)),
                                        {"guess": track.code}, None)
                else:
                    previous, track.zone, track.pending_zone = track.zone, zone, None
                    track.asked.discard("nozone-moved")
                    events.append(TableEvent("moved", track.code, zone, time, track.id, track.position,
                                             face=track.face, previous_zone=previous))
        else:
            track.pending_zone = None
            if cfg.moves_within_zone:
                events += self._moved_within_zone(track, time)
        return events

    def _outweighs(self, track: Track, code: str, seconds: float) -> bool:
        """Whether ``code`` has been read, over the last ``seconds``, as steadily as a new card must be (in
        ``steady_fraction`` of the frames read anew, and ``settle_looks`` of them at least), and there
        outweighs the card's own readings ``change_margin`` times (confidence-weighted). A card seen now
        and then, read one way one time and another the next, changes nothing."""
        cfg = self.config
        weight: Counter = Counter()
        looks = 0
        for sighting in track.recent(self._last_time, seconds):
            if sighting[_LOOK]:
                weight[sighting[_CODE]] += sighting[_CONFIDENCE]
                looks += sighting[_CODE] == code
        frames = self._looks_since(self._last_time - seconds)
        return looks >= max(cfg.settle_looks, cfg.steady_fraction * frames) and \
            weight[code] >= cfg.change_margin * weight[track.code]

    def _moved_within_zone(self, track: Track, time: float) -> list[TableEvent]:
        """A settled card come to rest farther than the match distance from where it was last reported,
        for ``settle_seconds``: moved, though its zone is the same."""
        cfg = self.config
        if track.rest is None or math.dist(track.position, track.rest) <= cfg.match_distance * cfg.within_zone_move_distances:
            track.pending_rest = None
            return []
        if track.pending_rest is None or math.dist(track.position, track.pending_rest) > cfg.match_distance / 4:
            track.pending_rest, track.pending_rest_since = track.position, time   # still on its way
            return []
        if time - track.pending_rest_since < cfg.settle_seconds - 1e-9:
            return []
        track.rest, track.pending_rest = track.position, None
        return [TableEvent("moved", track.code, track.zone, time, track.id, track.position, face=track.face,
                           previous_zone=track.zone)]


def _within_reach(tracks: list[Track], expected_at: list[tuple[float, float]], gates: list[float],
                  observations: list[Observation]) -> list[tuple[int, int]]:
    """Every (track, observation) whose observation lies within the track's gate of where the track is
    expected or lies, or whose other centre does, a hair wider (the exact test follows, in _associate):
    all the pairs that can match, found at once for the whole table (on a 30-card mat each frame weighs
    30 x 30 pairs, and one by one that was a third of the tracker's time)."""
    if not tracks or not observations:
        return []
    at = np.array([o.position for o in observations], np.float64)
    other = np.array([o.other_position if o.other_position is not None else (np.nan, np.nan) for o in observations], np.float64)
    lies = np.array([t.position for t in tracks], np.float64)[:, None, :]
    expected = np.array(expected_at, np.float64)[:, None, :]
    nearest = np.fmin(np.fmin(np.hypot(*(at - expected).transpose(2, 0, 1)), np.hypot(*(at - lies).transpose(2, 0, 1))),
                      np.hypot(*(other - lies).transpose(2, 0, 1)))
    reach = np.array(gates, np.float64)[:, None] * (1 + 1e-9) + 1e-9
    return [(int(ti), int(oi)) for ti, oi in zip(*np.nonzero(nearest <= reach))]


def _one_per_card(observations: list[Observation], apart: float) -> list[Observation]:
    """One reading per face where a frame reads the same face twice closer than ``apart``: cards do not
    stack, so that is one card whose two indices were grouped as two (a Chosen seed: a 9D read at two
    centres 16 mm apart became a card and a "second 9D?" question, and its turn a new chip). The surer
    reading stays. Backs are left as they are: look-alikes, told apart by the tracker itself."""
    faces = sorted((o for o in observations if o.code != "BACK"), key=lambda o: -o.confidence)
    kept: dict[str, list[Observation]] = {}
    for obs in faces:
        same_face = kept.setdefault(obs.code, [])
        if not any(math.dist(k.position, obs.position) < apart for k in same_face):
            same_face.append(obs)
    if sum(map(len, kept.values())) == len(faces):
        return observations
    return [o for o in observations if o.code == "BACK" or any(o is k for k in kept[o.code])]


def _seen_since(track: Track, moment: float) -> int:
    """In how many frames from ``moment`` on the track was read."""
    return sum(1 for s in track.sightings if s[_TIME] >= moment - 1e-9)


def _majority(sightings) -> str | None:
    counts = Counter(s[_CODE] for s in sightings)
    return counts.most_common(1)[0][0] if counts else None


def _vote(window: list[_Sighting]) -> tuple[str | None, float]:
    """The code most sightings agree on (confidence-weighted) and its median confidence."""
    if not window:
        return None, 0.0
    weight: Counter = Counter()
    for s in window:
        weight[s[_CODE]] += s[_CONFIDENCE]
    code = weight.most_common(1)[0][0]
    confidences = sorted(s[_CONFIDENCE] for s in window if s[_CODE] == code)
    return code, confidences[len(confidences) // 2]


def _share(window: list[_Sighting], code: str) -> float:
    return sum(1 for s in window if s[_CODE] == code) / len(window) if window else 0.0
