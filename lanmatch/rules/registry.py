"""Every game and table lanmatch plays, declared once (the game registry).

How this works. A game is a `Game`: its name on the wire, its title for
people, the seats it plays, the seats a guest's room may have, its tables
(each a declaration object, the first one the default), its constructor and,
optionally, where its bots live. `register(game)` adds one; `GAMES` maps
every name to its declaration, in the order they were registered.

Every table declaration, whatever its game, carries the fields the rest of
lanmatch reads (the "table protocol"):

* `name`, `title`: its wire name and its name for people;
* `default_clock`: the host's move clock in seconds when a room names none;
* `timed_keep`: the host times a drawn card's PLAY/KEEP decision (it feeds
  `expire` when the keep window closes);
* `timed_calls`: the host times last-card windows (it feeds `expire` when a
  call or catch window closes);
* `palette`: the name of the palette in `cards.PALETTES` its cards are
  written with (or `None`: the game writes its own pieces);
* `brief`: its own rules in two sentences (the console's help adds them to
  the game's `brief`).

Color Match's `Table` (`colormatch.py`) declares many more; a simpler game
uses `TableInfo`. Nothing outside `rules/` tests a game or a table by its
name: the CLI's choices, the protocol's checks, the referee's timers, the
room's clock, the store, the reports, the console's titles and `sim` all read
these declarations (docs/adding-a-table.md, docs/adding-a-game.md).

Raises (everywhere here): `ValueError` for an unknown game or table, with a
sentence naming what is known.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from lanmatch.rules import colormatch as _cm
from lanmatch.rules import dominoes as _dom


@dataclass(frozen=True)
class TableInfo:
    """A table declaration for a game whose tables differ in nothing else."""

    name: str
    title: str
    default_clock: int = 30
    timed_keep: bool = False
    timed_calls: bool = False
    palette: str | None = None
    brief: str = ""  # the table's own rules in two sentences (the console's help)
    max_target: int = 500  # the largest match target a room may set (docs/protocol.md, "Limits and abuse")


@dataclass(frozen=True)
class Game:
    """What one game declares. See the module docstring.

    `make(table, players, seed, options, deck, first_seat)` deals a game at
    the table named `table` (a key of `tables`); it raises `ValueError` for a
    player count, option or deck it refuses. `bots` is "module:function" of a
    factory `(level, table, seat, seed) -> Bot` (the bots package imports it
    when a bot is first made); `None` gives the generic bots of
    `lanmatch.bots.generic`. `named_tables` is False for a game whose default
    table the wire and the room leave unnamed (`table: null`); its other
    tables, if any (Dominoes' bigger sets), travel by name. `pieces`
    names how the console draws the game ("cards": Color Match's cards in
    their table's palette; "tiles": dominoes); `None` or a kind the console
    does not know gets its plain rendering (the hand and the legal actions
    listed with their labels).
    """

    name: str
    title: str
    min_players: int
    max_players: int
    guest_max_players: int
    tables: dict[str, Any]
    make: Callable[..., Any]
    bots: str | None = None
    named_tables: bool = True
    brief: tuple[str, ...] = field(default=())  # the game's rules in a few sentences (the console's help)
    pieces: str | None = None  # how the console draws it: "cards", "tiles" (None: plainly)
    default_mode: str = "single"  # what a game counts as without a `mode` option: "match" if always to a target
    # the house options its tables may accept, in words (the console's form and waiting room); an
    # option not named here is shown by its name
    option_titles: dict[str, str] = field(default_factory=dict)
    # the page of docs/rules/ with every rule of its tables (None: each table has its own, by its name)
    rules_page: str | None = None

    @property
    def default_table(self) -> str:
        return next(iter(self.tables))

    def table(self, name: str | None = None) -> Any:
        """The declaration of table `name` (`None`: the default one).

        Raises:
            ValueError: this game has no such table.
        """
        if name is None:
            return self.tables[self.default_table]
        spec = self.tables.get(name)
        if spec is None:
            raise ValueError(f"{self.title} has no table {name!r}; expected one of {', '.join(self.tables)}")
        return spec

    def table_name(self, name: str | None) -> str | None:
        """The table's name as rooms and the wire carry it: `None` where the
        game leaves its only table unnamed, else the table's name (the default
        one for `None`).

        Raises:
            ValueError: this game has no such table.
        """
        spec = self.table(name)
        if self.named_tables or spec.name != self.default_table:
            return spec.name
        return None  # the unnamed default table travels as null

    def seats_ok(self, players: int, table: str | None = None) -> bool:
        """Does the game seat `players` at `table` (`None`: the default table)?
        A table that declares its own `min_players`/`max_players` (the domino
        sets) narrows the game's range."""
        spec = self.tables.get(table or self.default_table)
        low = getattr(spec, "min_players", self.min_players)
        high = getattr(spec, "max_players", self.max_players)
        return max(low, self.min_players) <= players <= min(high, self.max_players)

    def seat_range(self, table: str | None = None) -> tuple[int, int]:
        """The fewest and most players `table` (`None`: the default) seats."""
        spec = self.tables.get(table or self.default_table)
        return (max(getattr(spec, "min_players", self.min_players), self.min_players),
                min(getattr(spec, "max_players", self.max_players), self.max_players))

    @property
    def picks_tables(self) -> bool:
        """May a room name one of this game's tables (`--table`)? Yes where
        tables are named, or where a game with an unnamed default declares others."""
        return self.named_tables or len(self.tables) > 1

    def rules_doc(self, table: str | None) -> str:
        """Where every rule of `table` (`None`: the default) is written: "docs/rules/classic.md"."""
        return f"docs/rules/{self.rules_page or self.table(table).name}.md"

    def title_of(self, table: str | None) -> str:
        """How people name a table of this game: "Color Match · Classic", "Dominoes"."""
        if not self.named_tables and (table is None or table == self.default_table):
            return self.title
        spec = self.tables.get(table or self.default_table)
        return f"{self.title} · {spec.title if spec is not None else table}"


GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    """Add `game` to the registry (or replace the declaration of that name)."""
    if not game.tables:
        raise ValueError(f"game {game.name!r} declares no table")
    GAMES[game.name] = game
    return game


def unregister(name: str) -> None:
    """Remove a game (tests that register their own use this to clean up)."""
    GAMES.pop(name, None)


def get_game(name: str) -> Game:
    """The declaration of game `name`.

    Raises:
        ValueError: no such game.
    """
    game = GAMES.get(name)
    if game is None:
        raise ValueError(f"unknown game {name!r}; expected one of {', '.join(GAMES)}")
    return game


def register_table(game: str, table: Any) -> Any:
    """Add a table declaration to a registered game (keyed by its `name`)."""
    get_game(game).tables[table.name] = table
    return table


def unregister_table(game: str, name: str) -> None:
    get_game(game).tables.pop(name, None)


class _TableNames:
    """Every table name of every game (or, `named_only`, of the games that name
    theirs: the command line's `--table`), read live (a table registered later
    is in it): `name in TABLE_NAMES`, `list(TABLE_NAMES)`."""

    def __init__(self, named_only: bool = False):
        self.named_only = named_only

    def _games(self) -> list[Game]:
        return [g for g in GAMES.values() if g.picks_tables or not self.named_only]

    def __contains__(self, name: object) -> bool:
        return any(name in g.tables for g in self._games())

    def __iter__(self) -> Iterator[str]:
        seen: dict[str, None] = {}
        for g in self._games():
            seen.update(dict.fromkeys(g.tables))
        return iter(seen)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"TABLE_NAMES({', '.join(self)})"


TABLE_NAMES = _TableNames()
NAMED_TABLES = _TableNames(named_only=True)


def find_table(game: str, table: str | None) -> Any:
    """The declaration of `game`'s table `table` (`None`: its default, or its
    only one where the game leaves it unnamed); None for an unknown game or table."""
    g = GAMES.get(game)
    if g is None:
        return None
    if g.named_tables or table in g.tables:
        return g.tables.get(table or g.default_table)
    return g.table()


def mode_of(game: str, options: dict[str, Any] | None) -> str:
    """What a game of `game` with these options counts as: "single", "match"
    (first to N points) or "daily": its `mode` option, else the game's
    `default_mode` (Dominoes is always a match; "single" for a game not
    registered); a `target` makes a match."""
    options = options or {}
    g = GAMES.get(game)
    mode = options.get("mode") or (g.default_mode if g is not None else "single")
    if mode == "single" and options.get("target"):
        return "match"
    return mode


def title_of(game: str, table: str | None) -> str:
    """How people name a game's table; an unknown game is named as it is."""
    g = GAMES.get(game)
    return g.title_of(table) if g is not None else game


def game_title(game: str) -> str:
    """A game's title for people; an unknown game is named as it is."""
    g = GAMES.get(game)
    return g.title if g is not None else game


def _make_colormatch(table, players, seed, options, deck, first_seat):
    return _cm.ColorMatch(table=table, players=players, seed=seed, options=options, deck=deck,
                          first_seat=first_seat)


def _make_dominoes(table, players, seed, options, deck, first_seat):
    return _dom.Dominoes(players=players, seed=seed, options=options, deck=deck, table=table)


register(Game(
    name="colormatch",
    title="Color Match",
    min_players=2,
    max_players=6,
    guest_max_players=4,
    tables=_cm.TABLES,  # the live dict: a table added there is a table of the game
    make=_make_colormatch,
    bots="lanmatch.bots.colormatch:make",
    brief=(
        "Match the top card by color (the word and the shape) or by symbol, or play a Wild.",
        "The first to shed every card wins the round.",
    ),
    pieces="cards",
    option_titles={
        "stacking": "Stacking (+2 on +2)",
        "jump_in": "Jump-in (the same card)",
        "seven_o": "7-0 (7 swaps, 0 passes)",
        "strict_wild4": "Strict +4 (no match held)",
    },
))

register(Game(
    name="dominoes",
    title="Dominoes",
    min_players=2,
    max_players=6,  # each set's table narrows it: double-six seats 2-4, the bigger sets 2-6
    guest_max_players=4,
    tables=_dom.TABLES,  # the live dict: "dominoes" (double-six, unnamed on the wire), "double-nine", "double-twelve"
    make=_make_dominoes,
    bots="lanmatch.bots.dominoes:make",
    brief=(
        "Play a tile whose pips match an open end of the line; draw from the boneyard when none fits.",
        "Empty your rack to win the round and score the pips left in the other racks; first to 100 wins.",
    ),
    named_tables=False,  # the default (double-six) table travels as null; the bigger sets by name
    pieces="tiles",
    default_mode="match",  # every game is a match to 100 points
    rules_page="dominoes",  # one page for every set
))
