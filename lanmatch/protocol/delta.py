"""View deltas (docs/protocol.md, "Deltas"), sans-I/O: the host's side
(`DeltaSender`, one per peer that asked for them in its `hello`) and the
peer's (`apply_delta`).

How this works. A peer that says `"deltas": true` in its `hello` gets its
first view of a room in full, as every peer does, and then `delta` messages:
only what changed since the last view it was sent (the view's changed and
removed keys, the events appended and how many old ones fell off, and
`legal`, `timers`, `autopilot` when they changed). Every `view`, `delta` and
snapshot view sent to such a peer carries `vn`, a number one more than the
previous one on this connection; a delta applies to the view numbered
`vn - 1` only, so a peer that finds a gap sends `resync` and the host's
`snapshot` (a full view, numbered) starts it afresh. The sender keeps the
last message it sent (not copied: views are built fresh for each state and
never changed after).

What a delta costs the host. Comparing two views key by key, four seats an
action, was a good part of the host's work; the game knows better what
changed. The referee's `view_changes` (from the engine's optional
`shared_view_changes`, docs/adding-a-game.md) names, for a seat's views of
two successive states, the keys every seat sees alike that changed, with
their new values (found once a state for every seat), and the keys that are
the seat's own: only those are compared. Where it cannot say (another
game, states skipped, a rematch), every key is compared, the values an
engine kept from the state before (the same objects) at once by identity.
"""

from __future__ import annotations

from typing import Any

# the view message's fields besides `view` that a delta carries when they changed
TOP = ("legal", "timers", "autopilot")
# ... and those a view message has only sometimes (`paused`: true while the clocks are paused);
# a delta says `false` when one went away
FLAGS = ("paused",)
_NONE = object()  # (a key a view does not have)


def _events(old: list[dict[str, Any]], new: list[dict[str, Any]],
            same_game: bool = False) -> tuple[int, list[dict[str, Any]]] | None:
    """(drop, add) such that new == old[drop:] + add, with `add` the events
    numbered after old's last one; None when `new` is not so made.

    `same_game`: both are one seat's views of one game, whose events are
    each shown the same way every time (an engine never changes an event
    once emitted): the events both hold are then the same by their numbers,
    and only the first of them is compared, by its number."""
    if not old:
        return 0, new
    last = old[-1].get("n")
    if type(last) is not int:
        return None
    j = len(new)
    while j and type(n := new[j - 1].get("n")) is int and n > last:
        j -= 1
    if j > len(old):
        return None
    if j and (old[len(old) - j].get("n") != new[0].get("n") if same_game else old[len(old) - j:] != new[:j]):
        return None
    return len(old) - j, new[j:]


Changes = tuple[dict[str, Any], tuple[str, ...]]


def make_delta(old: dict[str, Any], new: dict[str, Any], *, same_game: bool = False,
               changes: Changes | None = None) -> dict[str, Any]:
    """The `delta` message (without `vn` and `seq`) that turns the view
    message `old` into `new` (both as sent: `view_to_wire`'s form).
    `same_game`: both are one seat's views of one game (see `_events`).
    `changes`: what the game knows differs between the two views besides
    their events (`Referee.view_changes`): the keys that changed with their
    new values, and the only other keys that may differ; None: any may."""
    ov, nv = old["view"], new["view"]
    d: dict[str, Any] = {"type": "delta", "room": new["room"], "state_id": new["state_id"]}
    if changes is None:
        # a value the same object in both is unchanged (an engine may keep what did
        # not change between two states, and views are never changed once built)
        changed = {k: v for k, v in nv.items() if (o := ov.get(k, _NONE)) is not v and k != "events" and o != v}
        gone = [k for k in ov if k not in nv] if ov.keys() != nv.keys() else None
    else:
        changed, gone = changes[0].copy(), []
        for k in changes[1]:
            v = nv.get(k, _NONE)
            if v is _NONE:
                if k in ov:
                    gone.append(k)
            elif (o := ov.get(k, _NONE)) is not v and o != v:
                changed[k] = v
    if gone:
        d["unset"] = gone
    if "events" in nv:
        oe, ne = ov.get("events"), nv["events"]
        if type(oe) is list and type(ne) is list:
            found = _events(oe, ne, same_game)
            if found is None:
                changed["events"] = ne
            else:
                drop, add = found
                if drop:
                    d["drop"] = drop
                if add:
                    d["events"] = add
        elif oe != ne or "events" not in ov:
            changed["events"] = ne
    if changed:
        d["set"] = changed
    for k in TOP:
        if old[k] != new[k]:
            d[k] = new[k]
    for k in FLAGS:
        if bool(old.get(k)) != bool(new.get(k)):
            d[k] = bool(new.get(k))
    return d


def apply_delta(held: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """The view message (wire form, `type` "view", the delta's `vn`) that
    `delta` makes of `held`, the view message it applies to. `held` is not
    changed.

    Raises:
        ValueError: the delta does not fit the held view (`drop` beyond its events).
    """
    hv = held["view"]
    view = dict(hv)
    for k in delta.get("unset", ()):
        view.pop(k, None)
    changed = delta.get("set")
    if changed:
        view.update(changed)
    if ("drop" in delta or "events" in delta) and not (changed and "events" in changed):
        old = hv.get("events")
        old = old if type(old) is list else []
        drop = delta.get("drop", 0)
        if type(drop) is not int or not 0 <= drop <= len(old):
            raise ValueError(f"a delta drops {drop!r} of {len(old)} events")
        view["events"] = old[drop:] + list(delta.get("events", ()))
    out = {"type": "view", "room": delta["room"], "state_id": delta["state_id"], "view": view}
    for k in TOP:
        out[k] = delta[k] if k in delta else held[k]
    for k in FLAGS:
        if delta.get(k, held.get(k)):
            out[k] = True
    out["vn"] = delta["vn"]
    return out


class DeltaSender:
    """The host's side for one peer that asked for deltas: numbers what it
    sends, remembers the last view, and makes each next one a delta when it
    can (same room, same seat)."""

    __slots__ = ("vn", "last", "game", "sent_full", "sent_deltas")

    def __init__(self) -> None:
        self.vn = 0  # the number of the last view sent on this connection
        self.last: dict[str, Any] | None = None  # the last view message sent (None: the next is in full)
        self.game: Any = None  # the game `last` showed, as the caller named it (None: not known)
        self.sent_full = 0
        self.sent_deltas = 0

    def reset(self) -> None:
        """The peer holds no view now (it left, its seat is gone): the next is in full."""
        self.last = self.game = None

    def full(self, msg: dict[str, Any], game: Any = None) -> dict[str, Any]:
        """`msg` (a view message, or a snapshot's view) numbered, to send in full."""
        self.vn += 1
        out = {**msg, "vn": self.vn}
        self.last, self.game = out, game
        self.sent_full += 1
        return out

    def next(self, msg: dict[str, Any], game: Any = None) -> dict[str, Any]:
        """What to send for the view message `msg`: a numbered `delta`, or `msg`
        in full. `game`: the game `msg` shows (the host passes its referee):
        two views of one seat in the same game hold their common events alike,
        so they are compared by number only (`_events`); and where `game`
        has `view_changes(old_view, new_view)` (the referee), only what it
        names is compared (`make_delta`'s `changes`)."""
        last = self.last
        if last is None or last["room"] != msg["room"] or last["view"].get("seat") != msg["view"].get("seat"):
            return self.full(msg, game)
        same = game is not None and game is self.game
        known = getattr(game, "view_changes", None) if same else None
        d = make_delta(last, msg, same_game=same, changes=known and known(last["view"], msg["view"]))
        self.vn += 1
        d["vn"] = self.vn
        self.last, self.game = {**msg, "vn": self.vn}, game
        self.sent_deltas += 1
        return d


class DeltaHolder:
    """The peer's side: the view it holds (wire form), fed every `view`,
    `delta` and snapshot view; `receive` says whether the delta applied."""

    __slots__ = ("held", "broken")

    def __init__(self) -> None:
        self.held: dict[str, Any] | None = None
        self.broken = False  # a gap was found: deltas are passed over until a full view comes

    def full(self, msg: dict[str, Any]) -> None:
        self.held, self.broken = msg, False

    def reset(self) -> None:
        self.held, self.broken = None, False

    def delta(self, d: dict[str, Any]) -> dict[str, Any] | None:
        """The new view message, or None: a gap (the caller asks `resync`
        unless already `broken`; see `gap`)."""
        held = self.held
        if (held is None or self.broken or held.get("vn") is None or d["vn"] != held["vn"] + 1
                or d["room"] != held["room"]):
            return None
        try:
            self.held = apply_delta(held, d)
        except (ValueError, TypeError, AttributeError):
            return None
        return self.held


__all__ = ["DeltaHolder", "DeltaSender", "apply_delta", "make_delta"]
