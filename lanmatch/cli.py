"""The `lanmatch` command line: the only place event loops start.

Every subcommand has `--help`; a bad flag prints one clear line (no usage dump,
no traceback) and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys

from lanmatch import __version__

TABLES = ("classic", "standard", "toll", "daynight", "siege", "cards")
GAMES = ("colormatch", "dominoes")
LEVELS = ("easy", "medium", "hard")


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="lanmatch",
        description="Color Match and Dominoes on your local network: host, join, play, bots.",
    )
    p.add_argument("--version", action="version", version=f"lanmatch {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    play = sub.add_parser(
        "play",
        help="quick play: a table against bots in one command",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Quick play: sit down at a table against bots in one command, no network\n"
            "needed. You take seat 0 and bots fill the other seats. On your turn the\n"
            "table is shown in words (every color with its shape) with your numbered\n"
            "moves: type a number and Enter (or Down/Up to list them), d to draw (or\n"
            "pass, or keep a drawn card), ? for help, q to leave.\n"
            "Default: a 3-seat Classic table, you + 2 Medium bots."
        ),
        epilog=(
            "examples:\n"
            "  lanmatch play                         Classic, you + 2 Medium bots\n"
            "  lanmatch play --table cards           Color Cards\n"
            "  lanmatch play --game dominoes         Dominoes to 100\n"
            "  lanmatch play --seats 5 --bots hard   a bigger, harder table\n"
            "  lanmatch play --seed 7 --fast         a given deal, bots without pauses"
        ),
    )
    play.add_argument("--game", choices=GAMES, default="colormatch", help="colormatch (default) or dominoes")
    play.add_argument(
        "--table",
        choices=TABLES,
        default=None,
        help="Color Match table (default classic); see docs/rules/",
    )
    play.add_argument(
        "--seats",
        type=int,
        default=3,
        metavar="N",
        help="seats, you included: 2-6, Dominoes 2-4 (default 3)",
    )
    play.add_argument("--bots", choices=LEVELS, default="medium", help="level of the bots (default medium)")
    play.add_argument("--seed", type=int, default=None, metavar="N", help="deal from this seed: same seed, same deal (default random)")
    play.add_argument("--fast", action="store_true", help="no pause between the bots' moves")
    play.add_argument(
        "--clock",
        type=int,
        default=None,
        metavar="SECONDS",
        help="seconds per move (needs the host node, not built yet: ignored for now)",
    )
    play.add_argument(
        "--lan",
        action="store_true",
        help="open the room to the network (needs the host node, not built yet: ignored for now)",
    )

    host = sub.add_parser(
        "host",
        help="run a host node (advertised over mDNS)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Run a host node: serves rooms over TCP and advertises itself over mDNS\n"
            "until Ctrl-C, then unregisters. Logs go to stderr; the first line on\n"
            "stdout is 'listening ADDR:PORT'."
        ),
        epilog=(
            "examples:\n"
            '  lanmatch host --name "Kitchen"\n'
            "  lanmatch host --bind 127.0.0.1 --port 7070 --room R --table siege --seats 4 --start-after 30"
        ),
    )
    host.add_argument("--name", default=None, help="the name peers see (default: this machine's name)")
    host.add_argument("--port", type=_port, default=0, metavar="N", help="TCP port (default: any free port)")
    host.add_argument(
        "--bind", default=None, metavar="ADDR", help="serve and advertise on this address only (default: every interface)"
    )
    host.add_argument("--data", default=None, metavar="DIR", help="data directory (the store is not built yet)")
    host.add_argument("--no-mdns", action="store_true", help="do not advertise (HOST:PORT only)")
    host.add_argument("--room", default=None, metavar="NAME", help="pre-create a room for headless matches")
    host.add_argument("--game", choices=GAMES, default="colormatch", help="the --room's game (default colormatch)")
    host.add_argument("--table", choices=TABLES, default=None, help="the --room's table (default classic)")
    host.add_argument("--seats", type=int, default=4, metavar="N", help="the --room's seats (default 4)")
    host.add_argument("--clock", type=_seconds, default=None, metavar="S", help="the --room's move clock in seconds")
    host.add_argument("--bots", choices=LEVELS, default="medium", help="level of the bots in empty seats")
    host.add_argument(
        "--start-after", type=_seconds, default=None, metavar="S",
        help="start the --room after S seconds with bots in the empty seats (default: when full)",
    )
    host.add_argument("--bot-delay", type=float, default=0.0, metavar="S", help="pause before each room bot's move")
    host.add_argument("--verbose", action="store_true", help="debug logging")

    join = sub.add_parser("join", help="the lobby: find hosts and rooms, take a seat")
    join.add_argument("address", nargs="?", metavar="HOST:PORT")

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
        help="bot-vs-bot simulation on the engine alone",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Bot-vs-bot simulation on the rules engine alone (no network): plays N\n"
            "games and prints, per seat, the bot level, wins, win share with a 95%\n"
            "Wilson interval, average score and average turns, plus the average game\n"
            "length in steps. A shared win counts 1/k for each of its k winners.\n"
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
    sim.add_argument("--game", choices=GAMES, default="colormatch", help="colormatch (default) or dominoes")
    sim.add_argument("--table", choices=TABLES, default="classic", help="Color Match table (default classic)")
    sim.add_argument("--players", type=int, default=4, metavar="N", help="seats: 2-6, Dominoes 2-4 (default 4)")
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
        help="table options to switch on, comma-separated, e.g. stacking,jump_in (standard, cards)",
    )
    sim.add_argument("--json", action="store_true", help="print one JSON object instead of the table (no progress bar)")

    sub.add_parser("stats", help="wins, losses and coins held by the host's store")
    sub.add_parser("history", help="past matches and their replays")
    return p


def _play(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """`lanmatch play`: check the flags, then hand over to the console."""
    if args.game == "dominoes":
        if args.table is not None:
            parser.exit(2, "lanmatch play: --table is for Color Match; Dominoes has one table (see --help)\n")
        low, high = 2, 4
    else:
        args.table = args.table or "classic"
        low, high = 2, 6
    if not low <= args.seats <= high:
        game = "Dominoes" if args.game == "dominoes" else "Color Match"
        parser.exit(2, f"lanmatch play: {game} seats {low} to {high} players, not {args.seats} (see --help)\n")
    if args.clock is not None and args.clock <= 0:
        parser.exit(2, f"lanmatch play: --clock takes a positive number of seconds, not {args.clock} (see --help)\n")
    for flag, given in (("--clock", args.clock is not None), ("--lan", args.lan)):
        if given:
            print(
                f"lanmatch play: {flag} needs the host node, which is not built yet; playing without it.",
                file=sys.stderr,
            )
    from lanmatch.console.quick import main_play

    return main_play(args)


def _sim(args: argparse.Namespace) -> int:
    """`lanmatch sim`: bot-only games on the engine, a progress bar, a table (or JSON)."""
    import json

    from lanmatch import sim

    def fail(message: str) -> int:
        print(f"lanmatch sim: {message} (see --help)", file=sys.stderr)
        return 2

    try:
        bots = sim.parse_bots(args.bots, args.players)
        options = {name.strip(): True for name in args.options.split(",") if name.strip()}
        config = sim.SimConfig(
            game=args.game, table=args.table, players=args.players, bots=bots,
            games=args.games, seed=args.seed, options=options,
        )
        config.check()
        if args.jobs < 1:
            raise ValueError(f"--jobs must be at least 1, not {args.jobs}")
        if args.game == "colormatch":
            from lanmatch.rules import new_game

            new_game("colormatch", table=args.table, players=args.players, options=options or None)
        elif options:
            raise ValueError("--options are for Color Match tables")
    except ValueError as exc:
        return fail(str(exc))
    show_bar = not args.json and sys.stdout.isatty()
    try:
        with sim.Runner(config, args.jobs) as runner:
            if show_bar:
                from prompt_toolkit.shortcuts import ProgressBar

                title = f"{config.games} games, {config.table if config.game == 'colormatch' else 'dominoes'}, {config.players} players"
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
    if args.room is None and (args.table or args.start_after):
        parser.exit(2, "lanmatch host: --table and --start-after shape a --room; give --room NAME too (see --help)\n")
    low, high = (2, 4) if args.game == "dominoes" else (2, 6)
    if not low <= args.seats <= high:
        parser.exit(2, f"lanmatch host: --seats must be {low} to {high}, not {args.seats} (see --help)\n")
    if args.game == "dominoes" and args.table:
        parser.exit(2, "lanmatch host: --table is for Color Match; Dominoes has one table (see --help)\n")
    from lanmatch.net.nodes import run_host

    return run_host(args)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    if args.command == "play":
        return _play(parser, args)
    if args.command == "sim":
        return _sim(args)
    if args.command == "host":
        return _host(parser, args)
    if args.command == "bot":
        from lanmatch.net.nodes import run_bot

        return run_bot(args)
    print(
        f"lanmatch {args.command}: not built yet in this version "
        "(see README.md for what works today).",
        file=sys.stderr,
    )
    return 1
