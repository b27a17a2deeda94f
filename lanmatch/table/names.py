"""People's names on the host: normalised, and compared by their skeletons.

A name a peer sends (its `hello` `name`, its profile's name) is
NFKC-normalised, stripped and its inner runs of spaces made one
(`normal_name`). Two names look alike when their skeletons are equal
(`skeleton`): NFKC, casefold, then every confusable character mapped to its
prototype, after Unicode's confusables.txt (UTS #39). The mapping is a small
table committed here, of the Cyrillic and Greek letters confusables.txt maps
to a Latin letter, and a few Latin look-alikes ("rn" for "m", "0" for "o",
"1" for "l"); fullwidth forms are NFKC's. It is meant to stop a
stranger posing as a known player, not to be complete
(docs/protocol.md, "Limits and abuse").
"""

from __future__ import annotations

import unicodedata

# lowercase (after casefold) confusable -> its Latin prototype (confusables.txt)
_CONFUSABLES = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q",
    "ԝ": "w", "ӏ": "l", "ɡ": "g", "ү": "y", "ѵ": "v", "ӕ": "ae", "ԍ": "g", "ь": "b",
    # Greek
    "α": "a", "β": "b", "ε": "e", "ζ": "z", "η": "n", "ι": "i", "κ": "k", "μ": "u", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w", "ϲ": "c", "ϳ": "j",
    # Latin look-alikes
    "0": "o", "1": "l", "|": "l", "ı": "i", "ɩ": "i", "ℓ": "l",
}
_TABLE = str.maketrans(_CONFUSABLES)


def normal_name(name: str) -> str:
    """`name` NFKC-normalised, stripped, with single spaces inside."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


def skeleton(name: str) -> str:
    """What `name` looks like: equal skeletons are look-alikes ("Ann", "ANN",
    "Аnn" in Cyrillic and "ａnn" fullwidth share one; "Anna" has its own)."""
    s = unicodedata.normalize("NFKC", normal_name(name)).casefold()
    s = s.translate(_TABLE).replace("rn", "m")
    return "".join(s.split())


def look_alike(name: str, known: list[str]) -> str | None:
    """The first of `known` that `name` looks like, or None."""
    mine = skeleton(name)
    return next((k for k in known if skeleton(k) == mine), None)


__all__ = ["look_alike", "normal_name", "skeleton"]
