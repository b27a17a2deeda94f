"""The console: what a person sees and types.

Today it holds quick play (`lanmatch play`): one person against bots, the
engine played in-process, one prompt per decision (`quick.py`). Turning a
view into text is kept apart, in pure functions (`render.py`), so it can be
tested without a terminal; only `quick.py` touches prompt_toolkit and the
screen. The full-screen console with a host node comes later.
"""

from __future__ import annotations

from lanmatch.console.render import describe_events, render_outcome, render_table

__all__ = ["describe_events", "render_outcome", "render_table"]
