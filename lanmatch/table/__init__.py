"""The referee and the rooms, pure: seats, tokens, clocks as deadlines, bots.

    from lanmatch.table import Room, Referee, Rejected, RoomError

Time is an argument (`now`), randomness comes from the caller's `rng`; the
host's trio tasks (`lanmatch.net`) drive these objects.
"""

from lanmatch.table.referee import (
    AUTOPILOT_PACE,
    CALL_WINDOW,
    KEEP_WINDOW,
    MISSES_TO_AUTOPILOT,
    Due,
    Referee,
    Rejected,
)
from lanmatch.table.room import (
    GUEST_MAX_SEATS,
    SEAT_HOLD,
    Room,
    RoomError,
    Seat,
    default_clock,
    new_token,
)

__all__ = [
    "AUTOPILOT_PACE",
    "CALL_WINDOW",
    "Due",
    "GUEST_MAX_SEATS",
    "KEEP_WINDOW",
    "MISSES_TO_AUTOPILOT",
    "Referee",
    "Rejected",
    "Room",
    "SEAT_HOLD",
    "RoomError",
    "Seat",
    "default_clock",
    "new_token",
]
