"""The `lanmatch` command line: the only place event loops start.

Every subcommand has `--help`; a bad flag prints one clear line (no usage dump,
no traceback) and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys

from lanmatch import __version__
from lanmatch.protocol.messages import DEFAULT_PORT
from lanmatch.rules import GAMES, NAMED_TABLES, get_game

LEVELS = ("easy", "medium", "hard")


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def _games_help() -> str:
    first, *rest = GAMES
    return f"{first} (default)" + "".join(f", {g}" for g in rest)


def _table_is_for(game) -> str:
    named = " and ".join(g.title for g in GAMES.values() if g.picks_tables)
    return f"--table is for {named}; {game.title} has one table"


def _tables_help(what: str) -> str:
    """`--table`'s help: each game's tables from the registry, and that the
    table names its game."""
    games = "; ".join(f"{g.title}: {', '.join(g.tables)} (default {g.default_table})"
                      for g in GAMES.values() if g.picks_tables)
    return f"{what}: {games}. A table implies its game (--game)"


def _clocks_help() -> str:
    """Each table's default move clock, from the registry: "30 s; 90 s at
    Toll, Dominoes" (the commonest first, then the others by clock; a game
    whose tables share one is named once)."""
    from collections import Counter

    clocks: dict[str, int] = {}
    for g in GAMES.values():
        own = {t: spec.default_clock for t, spec in g.tables.items()}
        if len(set(own.values())) == 1:  # one clock for the whole game: named once
            clocks[g.title] = next(iter(own.values()))
        else:
            clocks.update({(g.table(t).title or t): c for t, c in own.items()})
    common = Counter(clocks.values()).most_common(1)[0][0]
    others: dict[int, list[str]] = {}
    for title, c in clocks.items():
        if c != common:
            others.setdefault(c, []).append(title)
    return f"{common} s" + "".join(f"; {c} s at {', '.join(t)}" for c, t in sorted(others.items()))


def _options_help() -> str:
    """Which tables take house options, from the registry: "standard:
    stacking, jump_in, ...; cards: ..." (partners, every table's, aside)."""
    parts = [f"{t}: {', '.join(o for o in spec.options if o != 'teams')}"
             for g in GAMES.values() for t, spec in g.tables.items() if set(spec.options) - {"teams"}]
    return "; ".join(parts) + "; teams at every table"


def _game_of(args: argparse.Namespace) -> str:
    """`--game` as given, else the game whose table `--table` names (a
    Dominoes set means Dominoes), else the first game."""
    if args.game is None:
        owners = [name for name, g in GAMES.items() if g.picks_tables and args.table in g.tables]
        args.game = owners[0] if len(owners) == 1 else next(iter(GAMES))
    return args.game


def _check_table(parser: argparse.ArgumentParser, cmd: str, args: argparse.Namespace, seats: str = "seats") -> None:
    """Check --game, --table and the seat count against the game's declaration;
    `args.game` is settled (`_game_of`) and `args.table` becomes the table's
    name as rooms carry it."""
    game = get_game(_game_of(args))
    if args.table is not None and not game.picks_tables:
        parser.exit(2, f"lanmatch {cmd}: {_table_is_for(game)} (see --help)\n")
    try:
        args.table = game.table_name(args.table)
    except ValueError as exc:
        parser.exit(2, f"lanmatch {cmd}: {exc} (see --help)\n")
    n = getattr(args, seats)
    if not game.seats_ok(n, args.table):
        low, high = game.seat_range(args.table)
        parser.exit(2, f"lanmatch {cmd}: {game.title_of(args.table)} seats {low} to {high} players, "
                       f"not {n} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="lanmatch",
        description="Color Match and Dominoes on your local network: host, join, play, bots.",
    )
    p.add_argument("--version", action="version", version=f"lanmatch {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    log_file = _log_path()
    play = sub.add_parser(
        "play",
        help="quick play: a table against bots in one command",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Quick play: sit down at a table against bots in one command. A host runs\n"
            "inside this process on a free loopback port (--lan: on every interface,\n"
            "advertised so friends can join from `lanmatch join`); you take seat 0 and\n"
            "bots fill the other seats. The full-screen console shows your hand as\n"
            "cards (color words with their shapes); Left/Right or a number choose a\n"
            "card, Enter plays it, d draws, Tab lists every move, ? shows all keys, q\n"
            "leaves. Default: a 3-seat Classic table, you + 2 Medium bots, 30 s a move.\n"
            "Without a terminal (or with --lines) it plays line by line, with no clock.\n"
            "--plain (or TERM=dumb) is for screen readers and simple terminals: every\n"
            "change one sentence, every choice numbered, no full screen, no clock."
        ),
        epilog=(
            "examples:\n"
            "  lanmatch play                         Classic, you + 2 Medium bots\n"
            "  lanmatch play --table cards           Color Cards\n"
            "  lanmatch play --game dominoes         Dominoes to 100\n"
            "  lanmatch play --seats 5 --bots hard   a bigger, harder table\n"
            "  lanmatch play --lan                   friends may join from their machines\n"
            "  lanmatch play --seed 7 --fast         a given deal, bots without pauses\n"
            f"\nErrors never show as a traceback: they are written to {log_file}"
        ),
    )
    play.add_argument("--game", choices=GAMES, default=None, help=_games_help())
    play.add_argument("--table", choices=NAMED_TABLES, default=None, help=_tables_help("the table; see docs/rules/"))
    play.add_argument(
        "--seats",
        type=int,
        default=3,
        metavar="N",
        help="seats, you included: 2-6, Dominoes 2-4 (2-6 at double-nine and double-twelve) (default 3)",
    )
    play.add_argument("--bots", choices=LEVELS, default="medium", help="level of the bots (default medium)")
    play.add_argument(
        "--clock",
        type=int,
        default=None,
        metavar="SECONDS",
        help="seconds per move: 15, 20, 30, 45, 60, 90 or 600 (default: the table's own, " + _clocks_help() + ")",
    )
    play.add_argument("--lan", action="store_true", help="serve on every interface and advertise the room over mDNS")
    play.add_argument("--bind", default=None, metavar="ADDR", help="with --lan: serve and advertise on this address only")
    play.add_argument("--port", type=int, default=None, metavar="N",
                      help="with --lan: serve on this port, so friends find the same address every evening "
                           "(default: a free one)")
    play.add_argument("--name", default=None, help="your name at the table (default: your login name)")
    play.add_argument("--seed", type=int, default=None, metavar="N", help="deal from this seed: same seed, same deal (default random)")
    play.add_argument("--fast", action="store_true", help="no pause before the bots' moves")
    play.add_argument("--lines", action="store_true", help="the line-by-line console (the host's referee in-process, no clock, no network)")
    play.add_argument("--plain", action="store_true",
                      help="for screen readers and simple terminals: every change one sentence, numbered choices, "
                           "no full screen, no clock (also when TERM=dumb)")
    play.add_argument("--quiet", action="store_true",
                      help="no turn bell: no terminal bell (BEL) and no desktop notification when your turn comes")

    host = sub.add_parser(
        "host",
        help="run a host node (advertised over mDNS)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Run a host node: serves rooms over TCP and advertises itself over mDNS\n"
            "until Ctrl-C, then unregisters. Logs go to stderr; the first line on\n"
            "stdout is 'listening ADDR:PORT'.\n"
            "\n"
            "The host keeps profiles, play coins, stats and every match in an sqlite\n"
            "store in its data directory, and resumes the games left unfinished\n"
            "there when it starts again (after a crash, a kill or Ctrl-C): restart it\n"
            "with the same --data and --port and peers reconnect to their seats.\n"
            "`lanmatch stats` and `lanmatch history` read the same store."
        ),
        epilog=(
            "examples:\n"
            '  lanmatch host --name "Kitchen"\n'
            "  lanmatch host --bind 127.0.0.1 --port 7070 --room R --table siege --seats 4 --start-after 30\n"
            "  lanmatch host --data ~/lanmatch-data --port 7070 --room Coins --stake 50 --start-after 10"
        ),
    )
    host.add_argument("--name", default=None, help="the name peers see (default: this machine's name)")
    host.add_argument("--port", type=_port, default=None, metavar="N",
                      help=f"TCP port (default: {DEFAULT_PORT}, or any free port when it is taken; 0: any free port)")
    host.add_argument(
        "--bind", default=None, metavar="ADDR", help="serve and advertise on this address only (default: every interface)"
    )
    host.add_argument(
        "--data", default=None, metavar="DIR",
        help="the store's directory: profiles, coins, stats, every match "
             "(default: $XDG_DATA_HOME/lanmatch, else ~/.local/share/lanmatch)",
    )
    host.add_argument(
        "--no-store", action="store_true",
        help="keep nothing: no profiles, no coin rooms, no resuming after a restart",
    )
    host.add_argument(
        "--no-practice-ratings", action="store_true",
        help="practice rooms (no stake) leave the players' ratings alone; coin rooms always count",
    )
    host.add_argument("--no-mdns", action="store_true", help="do not advertise (HOST:PORT only)")
    host.add_argument("--room", default=None, metavar="NAME", help="pre-create a room for headless matches")
    host.add_argument("--game", choices=GAMES, default=None, help="the --room's game: " + _games_help())
    host.add_argument("--table", choices=NAMED_TABLES, default=None, help=_tables_help("the --room's table"))
    host.add_argument("--seats", type=int, default=4, metavar="N", help="the --room's seats (default 4)")
    host.add_argument("--clock", type=_seconds, default=None, metavar="S", help="the --room's move clock in seconds")
    host.add_argument("--bots", choices=LEVELS, default="medium", help="level of the bots in empty seats")
    host.add_argument(
        "--start-after", type=_seconds, default=None, metavar="S",
        help="start the --room S seconds after the first person sits, bots in the empty seats (default: when full)",
    )
    host.add_argument(
        "--rematch-after", type=_seconds, default=None, metavar="S",
        help="the --room's pause between games (default 2 s; at least 10 s while a person sits there)",
    )
    host.add_argument(
        "--stake", type=int, default=0, metavar="COINS",
        help="make the --room a coin room: every seat posts COINS, the winner takes the pot (default: practice)",
    )
    host.add_argument(
        "--tournament", type=int, default=None, metavar="N",
        help="the --room's games are an evening's tournament of N matches (1-99): standings by placement, kept",
    )
    host.add_argument(
        "--tournament-rooms", type=int, default=1, metavar="K",
        help="with --tournament: K rooms like --room (NAME, NAME-2, ...; 1-8) whose games all count (default 1)",
    )
    host.add_argument("--bot-delay", type=float, default=0.0, metavar="S", help="pause before each room bot's move")
    host.add_argument(
        "--new-profiles", type=int, default=None, metavar="N",
        help="new profiles an hour from one address (default 5; 0: none)",
    )
    host.add_argument(
        "--max-connections", type=int, default=None, metavar="N",
        help="connections in total (default: the open-file limit less 64, at most 4096)",
    )
    host.add_argument(
        "--max-per-address", type=int, default=None, metavar="N", help="connections from one IP address (default 64)",
    )
    host.add_argument("--verbose", action="store_true", help="debug logging")

    join = sub.add_parser(
        "join",
        help="the lobby: find hosts and rooms, take a seat",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "The lobby, full screen. Without an address it lists the lanmatch hosts\n"
            "found on your network (mDNS) as they appear: their rooms, games, free\n"
            "seats and passwords; Tab types an address instead. At a host, pick a room\n"
            "and a seat, or create a room (game, table, options, seats, clock, mode,\n"
            "stake, bots, password). The room's creator starts the game and deals rematches.\n"
            "Your profile (name and key, for coin rooms) is made on first use and kept\n"
            "in $XDG_CONFIG_HOME/lanmatch/profile.json (default ~/.config/lanmatch).\n"
            "--plain HOST:PORT (or TERM=dumb) tells the rooms and the table in sentences\n"
            "with numbered choices, for screen readers and simple terminals."
        ),
        epilog=(
            "examples:\n"
            "  lanmatch join                         browse the network\n"
            "  lanmatch join 192.168.1.20:7070       go straight to a host\n"
            f"\nErrors never show as a traceback: they are written to {log_file}"
        ),
    )
    join.add_argument("--name", default=None,
                      help="your name at the table and your profile's (default: the saved profile's, else your login name)")
    join.add_argument("--bind", default=None, metavar="ADDR", help="browse mDNS on this address only")
    join.add_argument("--plain", action="store_true",
                      help="for screen readers and simple terminals (also when TERM=dumb): the rooms and the table "
                           "in sentences, numbered choices; needs HOST:PORT")
    join.add_argument("--quiet", action="store_true",
                      help="no turn bell: no terminal bell (BEL) and no desktop notification when your turn comes")
    join.add_argument("address", nargs="?", metavar="HOST:PORT", help="the host (default: browse mDNS)")

    bot = sub.add_parser(
        "bot",
        help="a headless bot node that joins a host",
        description=(
            "A headless bot node: finds a host (over mDNS, or at HOST:PORT), takes a seat\n"
            "and plays through the protocol like any peer. It reconnects by itself with\n"
            "its seat token and exits 0 when the match ends (--stay: plays on)."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    bot.add_argument("--level", choices=LEVELS, default="medium", help="easy, medium (default) or hard")
    bot.add_argument("--room", default=None, metavar="NAME", help="sit in this room (default: the first with a free seat)")
    bot.add_argument("--stay", action="store_true", help="stay for the next match instead of exiting")
    bot.add_argument("--name", default=None, help="the name shown at the table")
    bot.add_argument(
        "--profile", default=None, metavar="NAME",
        help="play as the profile NAME (coin rooms need one): its file is bot-NAME.json beside a person's profile.json, "
             "made on first use",
    )
    bot.add_argument("--bind", default=None, metavar="ADDR", help="browse mDNS on this address only")
    bot.add_argument("--browse-timeout", type=_seconds, default=10.0, metavar="S", help="give up browsing after S seconds")
    bot.add_argument(
        "--retry-for", type=_seconds, default=None, metavar="S",
        help="give up when the host is unreachable this long (default 60 s; with --stay: never)",
    )
    bot.add_argument("--verbose", action="store_true", help="debug logging")
    bot.add_argument("address", nargs="?", metavar="HOST:PORT", help="the host (default: browse mDNS)")

    sim = sub.add_parser(
        "sim",
        help="bot-vs-bot simulation through the host's referee, on a virtual clock",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Bot-vs-bot simulation (no network): plays N games, each one the host's\n"
            "referee with a bot in every seat on a virtual clock, and prints, per seat,\n"
            "the bot level, wins, win share with a 95% Wilson interval, average score\n"
            "and average turns, plus the average game length in steps. A shared win\n"
            "counts 1/k for each of its k winners.\n"
            "Game i is a function of --seed and i, so results are the same for any\n"
            "--jobs. The first seat is drawn from each game's seed."
        ),
        epilog=(
            "examples:\n"
            "  lanmatch sim --table classic --players 4 --bots hard,medium,medium,medium --games 2000 --jobs 2\n"
            "  lanmatch sim --table cards --players 2 --bots hard,medium --games 500 --json\n"
            "  lanmatch sim --game dominoes --players 3 --bots medium --games 200"
        ),
    )
    sim.add_argument("--game", choices=GAMES, default=None, help=_games_help())
    sim.add_argument("--table", choices=NAMED_TABLES, default=None, help=_tables_help("the game's table"))
    sim.add_argument("--players", type=int, default=4, metavar="N", help="seats: 2-6, Dominoes 2-4 (2-6 at double-nine and double-twelve) (default 4)")
    sim.add_argument(
        "--bots",
        default="medium",
        metavar="LEVELS",
        help="one level per seat, comma-separated (hard,medium,medium,medium), or one level for every seat (default medium)",
    )
    sim.add_argument("--games", type=int, default=100, metavar="N", help="games to play (default 100)")
    sim.add_argument("--seed", type=int, default=1, metavar="N", help="seed of the run (default 1)")
    sim.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    sim.add_argument(
        "--options",
        default="",
        metavar="LIST",
        help="table options to switch on, comma-separated, e.g. stacking,jump_in (" + _options_help() + ")",
    )
    sim.add_argument("--json", action="store_true", help="print one JSON object instead of the table (no progress bar)")

    _add_store_commands(sub)
    return p


def _add_store_commands(sub) -> None:
    """`lanmatch stats` and `lanmatch history`: what a host's store holds
    (the text is made in lanmatch/report.py)."""
    data_help = "the host's data directory (default: $XDG_DATA_HOME/lanmatch, else ~/.local/share/lanmatch)"
    stats = sub.add_parser(
        "stats",
        help="wins, losses and coins held by the host's store",
        description=(
            "Wins, losses and play coins held by a host's store: every profile in one\n"
            "table, or one profile in detail (by table, by the bots' level, by the number\n"
            "of opponents, daily bests). A first-to-N match counts once, at its end."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    stats.add_argument("--data", default=None, metavar="DIR", help=data_help)
    stats.add_argument("--profile", default=None, metavar="NAME", help="one profile in detail")
    history = sub.add_parser(
        "history",
        help="past matches and their replays",
        description=(
            "The matches a host's store holds, newest first. --replay ID opens one of\n"
            "them full screen, every hand shown: Left/Right step back and forth, PgUp/\n"
            "PgDn 10 steps, Home/End, a number then Enter goes to that step, q quits;\n"
            "when stdin is not a terminal every step is printed. --export ID writes\n"
            "the match as a JSON file (docs/store.md \"Match files\") that\n"
            "--replay FILE plays back on any machine. A replay deals the game again\n"
            "from its seed and applies every action, and checks the recorded outcome."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  lanmatch history --limit 50\n  lanmatch history --replay 12 --seat 0\n"
               "  lanmatch history --export 12 > match12.json\n  lanmatch history --replay match12.json",
    )
    history.add_argument("--data", default=None, metavar="DIR", help=data_help)
    history.add_argument("--limit", type=int, default=20, metavar="N", help="how many matches to list (default 20)")
    history.add_argument("--profile", default=None, metavar="NAME", help="only the matches of this profile")
    history.add_argument("--replay", default=None, metavar="ID|FILE",
                         help="step through match ID of the store, or a match file written by --export")
    history.add_argument("--export", type=int, default=None, metavar="ID",
                         help="write match ID as JSON (to stdout, or to --out FILE)")
    history.add_argument("--out", default=None, metavar="FILE", help="with --export: the file to write")
    history.add_argument("--seat", type=int, default=None, metavar="N",
                         help="with --replay, not in a terminal: show only seat N's view")
    hosts = sub.add_parser(
        "hosts",
        help="the hosts this machine has played at, and their pinned certificates",
        description=(
            "The hosts this machine has reached (kept in $XDG_CONFIG_HOME/lanmatch/hosts.json):\n"
            "name, last address, the fingerprint of the certificate pinned at the first\n"
            "connection, and when. A host whose certificate changes is refused; --forget\n"
            "NAME drops its pin after that host was really reinstalled (compare the\n"
            "fingerprint `lanmatch host` prints on its machine first)."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    hosts.add_argument("--forget", default=None, metavar="NAME", help="forget this host and its pinned certificate")


def _log_path() -> str:
    from lanmatch.console.logfile import log_path

    return str(log_path())


def _tty() -> bool:
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _dumb() -> bool:
    """A terminal that cannot draw a screen (`TERM=dumb`, stdin and stdout a
    terminal): the plain mode by itself. (Without a terminal TERM says nothing
    of the output: the line mode, as before.)"""
    import os

    return os.environ.get("TERM") == "dumb" and _tty()


def _play(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """`lanmatch play`: check the flags, then hand over to the console."""
    from lanmatch.protocol import CLOCKS

    _check_table(parser, "play", args)
    if args.clock is not None and args.clock not in CLOCKS:
        clocks = ", ".join(map(str, CLOCKS[:-1])) + f" or {CLOCKS[-1]}"
        parser.exit(2, f"lanmatch play: --clock is {clocks} seconds, not {args.clock} (see --help)\n")
    if args.bind and not args.lan:
        parser.exit(2, "lanmatch play: --bind goes with --lan (see --help)\n")
    if args.port is not None and not args.lan:
        parser.exit(2, "lanmatch play: --port goes with --lan (see --help)\n")
    if args.port is not None and not 1 <= args.port <= 65535:
        parser.exit(2, f"lanmatch play: --port is 1 to 65535, not {args.port} (see --help)\n")
    if args.name is not None and not 1 <= len(args.name.strip()) <= 32:
        parser.exit(2, "lanmatch play: --name takes 1 to 32 characters (see --help)\n")
    mode = "plain" if args.plain or (_dumb() and not args.lines) else "line" if args.lines or not _tty() else None
    if mode is not None:  # no full screen: what needs it is refused or said
        if args.lan:  # friends would join a table nobody here can see: refuse, do not play something else
            how = ("in plain mode, host with `lanmatch host` and take a seat with `lanmatch join --plain HOST:PORT`"
                   if mode == "plain" else "run it in a terminal, or host with `lanmatch host`")
            parser.exit(2, f"lanmatch play: --lan needs the full-screen console (a terminal); {how} (see --help)\n")
        if args.clock is not None:
            print(f"lanmatch play: --clock needs the full-screen console (a terminal); the {mode} mode plays "
                  "without it.", file=sys.stderr)
        if mode == "plain":
            from lanmatch.console.plain import main_play as main_plain

            return main_plain(args)
        from lanmatch.console.quick import main_play

        return main_play(args)
    from lanmatch.console.app import main_play as main_console

    return main_console(args)


def _join(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """`lanmatch join`: check the address, then open the lobby."""
    if args.address:
        from lanmatch.net.client import parse_address

        try:
            parse_address(args.address)
        except ValueError as e:
            parser.exit(2, f"lanmatch join: {e} (see --help)\n")
    if args.name is not None and not 1 <= len(args.name.strip()) <= 32:
        parser.exit(2, "lanmatch join: --name takes 1 to 32 characters (see --help)\n")
    plain = args.plain or _dumb()
    if plain and args.address:
        from lanmatch.console.plain import main_join as main_plain_join

        return main_plain_join(args)
    if plain:
        parser.exit(2, "lanmatch join: the plain mode goes straight to a host: give its HOST:PORT "
                       "(browsing the network is the full screen's; see --help)\n")
    if not _tty():
        parser.exit(2, "lanmatch join: the lobby needs a terminal (stdin and stdout), or --plain; see --help\n")
    from lanmatch.console.app import main_join

    return main_join(args)


def _sim(args: argparse.Namespace) -> int:
    """`lanmatch sim`: bot-only games through the referee, a progress bar, a table (or JSON)."""
    import json

    from lanmatch import sim

    def fail(message: str) -> int:
        print(f"lanmatch sim: {message} (see --help)", file=sys.stderr)
        return 2

    try:
        game = get_game(_game_of(args))
        if args.table is not None and not game.picks_tables:
            raise ValueError(_table_is_for(game))
        args.table = game.table_name(args.table)
        bots = sim.parse_bots(args.bots, args.players)
        options = {name.strip(): True for name in args.options.split(",") if name.strip()}
        config = sim.SimConfig(
            game=args.game, table=args.table, players=args.players, bots=bots,
            games=args.games, seed=args.seed, options=options,
        )
        config.check()
        if args.jobs < 1:
            raise ValueError(f"--jobs must be at least 1, not {args.jobs}")
        from lanmatch.rules import new_game

        new_game(args.game, table=args.table, players=args.players, options=options or None)
    except ValueError as exc:
        return fail(str(exc))
    show_bar = not args.json and sys.stdout.isatty()
    try:
        with sim.Runner(config, args.jobs) as runner:
            if show_bar:
                from prompt_toolkit.shortcuts import ProgressBar

                title = f"{config.games} games, {get_game(config.game).title_of(config.table)}, {config.players} players"
                with ProgressBar(title=title) as bar:
                    counter = bar(label="games", total=config.games)
                    for now in runner.progress():
                        counter.items_completed = now
                        bar.invalidate()
                    counter.done = True
            else:
                runner.run()
    except KeyboardInterrupt:
        print("lanmatch sim: interrupted", file=sys.stderr)
        return 130
    summary = sim.summarize(config, runner.tally)
    if args.json:
        print(json.dumps(summary))
    else:
        print(sim.format_table(summary))
    return 0


def _match_json(record) -> dict:
    """A stored match as the match file's dict (docs/store.md "Match files"):
    no seat tokens, no profile ids, no room settings."""
    from lanmatch.console.replay import FORMAT, VERSION

    return {
        "format": FORMAT, "version": VERSION, "id": record.id, "room": record.room, "game": record.game,
        "table": record.table, "players": record.players, "options": record.options, "seed": record.seed,
        "first_seat": record.first_seat, "kind": record.kind, "stake": record.stake, "status": record.status,
        "started": record.started, "ended": record.ended,
        "seats": [{"seat": s.seat, "name": s.name, "kind": s.kind, "bot_level": s.bot_level} for s in record.seats],
        "actions": [{"seat": a.seat, "action": a.action, "by": a.by} for a in record.actions],
        "outcome": record.outcome,
    }


def _history_replay(args: argparse.Namespace) -> int:
    """`lanmatch history --export ID` and `--replay ID|FILE`: 0, 1 when the
    store or the file refuses (one line), 2 for contradicting flags."""
    from lanmatch.console.replay import (
        MatchFileError,
        ReplayModel,
        dump_match,
        load_match_file,
        match_from_json,
        replay_steps,
        run_viewer,
        step_texts,
    )
    from lanmatch.store import Store, StoreError, db_path, default_data_dir

    def fail(message: str, code: int = 1) -> int:
        print(f"lanmatch history: {message}", file=sys.stderr)
        return code

    if args.export is not None and args.replay is not None:
        return fail("--export and --replay are one at a time (see --help)", 2)
    if args.out is not None and args.export is None:
        return fail("--out goes with --export (see --help)", 2)
    by_id = args.export if args.export is not None else (int(args.replay) if args.replay.isdigit() else None)
    try:
        if by_id is not None:
            try:
                with Store.open(db_path(args.data or default_data_dir()), create=False) as store:
                    match = match_from_json(_match_json(store.match(by_id)))
            except StoreError as e:
                return fail(str(e))
        else:
            match = load_match_file(args.replay)
        if args.export is not None:
            replay_steps(match)  # a file that would not replay is not written
            text = dump_match({k: v for k, v in match.items() if k != "names"})
            if args.out is None:
                sys.stdout.write(text)
            else:
                try:
                    with open(args.out, "w", encoding="utf-8") as f:
                        f.write(text)
                except OSError as e:
                    return fail(f"cannot write {args.out}: {e.strerror or e}")
                print(f"lanmatch history: match {by_id} written to {args.out} ({len(match['actions'])} actions)")
            return 0
        model = ReplayModel(match, replay_steps(match))
        if by_id is not None and not _tty():  # a pipe: the store's line-by-line replay, every seat's view
            from lanmatch.report import main_report

            args.replay = by_id
            return main_report(args)
        if args.seat is not None and not 0 <= args.seat < match["players"]:
            return fail(f"this match has seats 0-{match['players'] - 1}, not {args.seat} (see --help)", 2)
        if _tty():
            return run_viewer(model)
        for text in step_texts(model):
            sys.stdout.write(text + "\n\n")
        return 0
    except MatchFileError as e:
        return fail(str(e))
    except BrokenPipeError:
        return 0


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a number from 0 to 65535, not {text!r}")
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of seconds, not {text!r}") from None
    if not 0 < value < 86400:
        raise argparse.ArgumentTypeError(f"a positive number of seconds, not {text!r}")
    return value


def _host(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """`lanmatch host`: check the flags, then run the host node."""
    if args.room is None and (args.table or args.start_after or args.stake or args.rematch_after):
        parser.exit(2, "lanmatch host: --table, --start-after, --rematch-after and --stake shape a --room; "
                       "give --room NAME too (see --help)\n")
    if not 0 <= args.stake <= 1_000_000:
        parser.exit(2, f"lanmatch host: --stake is 0 to 1000000 coins, not {args.stake} (see --help)\n")
    if args.stake and args.no_store:
        parser.exit(2, "lanmatch host: a --stake needs the store; drop --no-store (see --help)\n")
    if args.data and args.no_store:
        parser.exit(2, "lanmatch host: --data and --no-store contradict each other (see --help)\n")
    if args.tournament is not None:
        from lanmatch.table.tournament import MAX_MATCHES, MAX_ROOMS

        if args.room is None:
            parser.exit(2, "lanmatch host: --tournament plays the games of a --room; give --room NAME too (see --help)\n")
        if not 1 <= args.tournament <= MAX_MATCHES:
            parser.exit(2, f"lanmatch host: a tournament plays 1 to {MAX_MATCHES} matches, not {args.tournament} "
                           "(see --help)\n")
        if not 1 <= args.tournament_rooms <= MAX_ROOMS:
            parser.exit(2, f"lanmatch host: --tournament-rooms is 1 to {MAX_ROOMS}, not {args.tournament_rooms} "
                           "(see --help)\n")
    elif args.tournament_rooms != 1:
        parser.exit(2, "lanmatch host: --tournament-rooms goes with --tournament (see --help)\n")
    _check_table(parser, "host", args)
    from lanmatch.net.nodes import run_host

    return run_host(args)


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _hosts(args: argparse.Namespace) -> int:
    """`lanmatch hosts`: the known hosts, or `--forget NAME`."""
    import datetime

    from lanmatch.net.hostbook import HostBook
    from lanmatch.net.tls import short_fingerprint

    book = HostBook()
    if args.forget is not None:
        if not book.forget(args.forget):
            print(f"lanmatch hosts: no known host is called {args.forget!r} (see lanmatch hosts)", file=sys.stderr)
            return 1
        print(f"Forgot {args.forget!r}: the next connection pins the certificate it shows.")
        return 0
    known = book.load()
    if not known:
        print("No hosts yet: the hosts you play at are kept here, with their certificates' fingerprints.")
        return 0
    width = max(len(h.name) for h in known)
    for h in known:
        when = datetime.datetime.fromtimestamp(h.seen).strftime("%Y-%m-%d %H:%M")
        print(f"{h.name:<{width}}  {h.address}:{h.port:<5}  {short_fingerprint(h.fingerprint)}  {when}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # named by the subcommand they were given to: "lanmatch play: unrecognized ..."
        sub = _subparsers(parser).get(args.command, parser)
        sub.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command is None:
        parser.print_help()
        return 0
    if args.command == "play":
        return _play(parser, args)
    if args.command == "sim":
        return _sim(args)
    if args.command == "host":
        return _host(parser, args)
    if args.command == "join":
        return _join(parser, args)
    if args.command == "bot":
        from lanmatch.net.nodes import run_bot

        return run_bot(args)
    if args.command == "hosts":
        return _hosts(args)
    if args.command == "history" and (args.export is not None or args.replay is not None):
        return _history_replay(args)
    if args.command in ("stats", "history"):
        from lanmatch.report import main_report

        return main_report(args)
    print(
        f"lanmatch {args.command}: not built yet in this version "
        "(see README.md for what works today).",
        file=sys.stderr,
    )
    return 1
