"""A token bucket: the host's rate limits and budgets (pure: `now` is an argument)."""

from __future__ import annotations


class TokenBucket:
    """Rate limit: `rate` messages a second on average, bursts up to `burst`."""

    def __init__(self, rate: float, burst: float, now: float):
        self.rate = rate
        self.burst = burst
        self.level = burst
        self.t = now

    def refund(self) -> None:
        """Give one back (an accepted action costs nothing: a peer cannot
        flood with actions the game accepts, each needs its turn)."""
        self.level = min(self.burst, self.level + 1.0)

    def wait(self, now: float) -> float:
        """Seconds until one can be taken (0.0: now), taking nothing."""
        self.level = min(self.burst, self.level + (now - self.t) * self.rate)
        self.t = now
        return 0.0 if self.level >= 1.0 else (1.0 - self.level) / self.rate

    def take(self, now: float) -> bool:
        self.level = min(self.burst, self.level + (now - self.t) * self.rate)
        self.t = now
        if self.level >= 1.0:
            self.level -= 1.0
            return True
        return False
