"""Color Match card notation (SPEC section 2): decks, card facts and palettes.

A card code is a color letter and a symbol (`R5`, `GS`, `B+2`, `YB`) or a wild
(`W`, `W+4`, `WC`, `WH`). Day colors are `R Y G B`; Day & Night's night faces
use `P T O V`. A two-faced Day & Night card is written `DAY/NIGHT`.

Symbols: `0`-`9`, `S` skip, `R` reverse, `+2`, `+1`, `+5`, `B` bomb,
`H` shield, `T` turnover, `A` all pass. Display names and shapes belong to the
table's palette (`PALETTES`), not to the engine.
"""

from __future__ import annotations

DAY_COLORS = "RYGB"
NIGHT_COLORS = "PTOV"
WILDS = ("W", "W+4", "WC", "WH")
NUMBERS = tuple(str(i) for i in range(10))
DRAW_AMOUNT = {"+2": 2, "+4": 4, "+1": 1, "+5": 5}

# symbol -> words, shared by every palette unless a palette overrides them
SYMBOL_NAMES = {
    "S": "Skip",
    "R": "Reverse",
    "+2": "+2",
    "+1": "+1",
    "+5": "+5",
    "B": "Bomb",
    "H": "Shield",
    "T": "Turnover",
    "A": "All Pass",
    "W": "Wild",
    "W+4": "+4 Wild",
    "WC": "Midnight Clock",
    "WH": "Color Hunt",
}

_DEFAULT = {
    "colors": {
        "R": ("red", "●"),
        "Y": ("yellow", "◆"),
        "G": ("green", "▲"),
        "B": ("blue", "■"),
        # Night colors take the hollow form of the day shape at the same
        # index, so a night card never shares a shape with a day card.
        "P": ("pink", "○"),
        "T": ("teal", "◇"),
        "O": ("orange", "△"),
        "V": ("violet", "□"),
    },
    "symbols": SYMBOL_NAMES,
}

PALETTES: dict[str, dict] = {
    "standard": _DEFAULT,
    "classic": _DEFAULT,
    "daynight": _DEFAULT,
    "siege": _DEFAULT,
    "toll": {
        "colors": {
            "R": ("rose", "●"),
            "Y": ("amber", "◆"),
            "G": ("teal", "▲"),
            "B": ("violet", "■"),
        },
        "symbols": {
            **SYMBOL_NAMES,
            "S": "Bypass",
            "R": "Flip",
            "+2": "Toll 2",
            "W": "Shift",
            "W+4": "Toll 4",
        },
    },
    "cards": {
        "colors": {
            "R": ("red", "●"),
            "Y": ("yellow", "▲"),
            "G": ("green", "■"),
            "B": ("blue", "★"),
        },
        "symbols": SYMBOL_NAMES,
    },
}


def is_wild(code: str) -> bool:
    return code[0] == "W"


def color_of(code: str) -> str | None:
    """The printed color letter of a face, None for a wild."""
    return None if code[0] == "W" else code[0]


def symbol_of(code: str) -> str:
    """The symbol of a face: `5`, `S`, `+2`, ... or the wild's own code."""
    return code if code[0] == "W" else code[1:]


def describe(code: str, palette: str | None = "classic") -> str:
    """A face in words with its shape, e.g. `red ● 5` or `Shift`, in the
    words of `palette` (a key of `PALETTES`: a table declares its own as
    `palette`; unknown or None: the default words)."""
    pal = PALETTES.get(palette, _DEFAULT)
    if is_wild(code):
        return pal["symbols"].get(code, code)
    name, shape = pal["colors"].get(code[0], _DEFAULT["colors"][code[0]])
    sym = symbol_of(code)
    return f"{name} {shape} {pal['symbols'].get(sym, sym)}"


def standard_deck() -> list[str]:
    """The 108-card deck of `standard`, `toll` and `cards`."""
    deck = []
    for c in DAY_COLORS:
        deck.append(c + "0")
        for sym in ("1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "+2"):
            deck += [c + sym, c + sym]
    deck += ["W"] * 4 + ["W+4"] * 4
    return deck


def classic_deck() -> list[str]:
    """112 cards: the standard deck plus one Bomb per color."""
    return standard_deck() + [c + "B" for c in DAY_COLORS]


def siege_deck() -> list[str]:
    """112 cards: the standard deck plus one Shield per color."""
    return standard_deck() + [c + "H" for c in DAY_COLORS]


def day_faces() -> list[str]:
    """The 112 day faces of Day & Night."""
    faces = []
    for c in DAY_COLORS:
        for sym in ("1", "2", "3", "4", "5", "6", "7", "8", "9", "+1", "S", "R", "T"):
            faces += [c + sym, c + sym]
    return faces + ["W"] * 4 + ["WC"] * 4


def night_faces() -> list[str]:
    """The 112 night faces of Day & Night."""
    faces = []
    for c in NIGHT_COLORS:
        for sym in ("1", "2", "3", "4", "5", "6", "7", "8", "9", "+5", "A", "R", "T"):
            faces += [c + sym, c + sym]
    return faces + ["W"] * 4 + ["WH"] * 4


def standard_points(code: str) -> int:
    """Numbers face value, colored action cards 20, wilds 50."""
    if code[0] == "W":
        return 50
    sym = code[1:]
    return int(sym) if sym in NUMBERS else 20


_DAYNIGHT_POINTS = {
    "W": 40,
    "WC": 50,
    "WH": 60,
    "+1": 10,
    "+5": 20,
    "S": 20,
    "R": 20,
    "T": 20,
    "A": 30,
}


def daynight_points(code: str) -> int:
    """Day & Night points of the active face (SPEC section 5)."""
    sym = symbol_of(code)
    return int(sym) if sym in NUMBERS else _DAYNIGHT_POINTS[sym]
