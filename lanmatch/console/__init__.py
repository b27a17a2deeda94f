"""The console: what a person sees and types.

The full-screen console (`lanmatch play`, `lanmatch join`) is four pure
modules and one impure one: `render.py` turns views into words (each game's
through the `Pieces` its declaration names), `keymap.py` declares every key
once, `model.py` holds the screen's state and runs the keys, `screen.py`
draws the screen as text fragments; `app.py` runs the prompt_toolkit
Application with trio as its guest (the client, and for quick play the host
itself).
`quick.py` is the line mode, for when there is no terminal; `plain.py`
the plain mode (sentences, numbered choices: screen readers); `replay.py`
the replay viewer of `lanmatch history`. See docs/console.md.
"""

from __future__ import annotations

from lanmatch.console.render import describe_events, render_outcome, render_table

__all__ = ["describe_events", "render_outcome", "render_table"]
