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

    play = sub.add_parser("play", help="quick play: a table against bots in one command")
    play.add_argument("--game", choices=GAMES, default="colormatch")
    play.add_argument("--table", choices=TABLES, default="classic")
    play.add_argument("--seats", type=int, default=3)
    play.add_argument("--bots", choices=LEVELS, default="medium")
    play.add_argument("--clock", type=int, default=None, help="seconds per move")
    play.add_argument("--lan", action="store_true", help="open the room to the network")

    host = sub.add_parser("host", help="run a host node (advertised over mDNS)")
    host.add_argument("--name", default=None)
    host.add_argument("--port", type=int, default=0)
    host.add_argument("--bind", default=None)
    host.add_argument("--data", default=None, metavar="DIR")

    join = sub.add_parser("join", help="the lobby: find hosts and rooms, take a seat")
    join.add_argument("address", nargs="?", metavar="HOST:PORT")

    bot = sub.add_parser("bot", help="a headless bot node that joins a host")
    bot.add_argument("--level", choices=LEVELS, default="medium")
    bot.add_argument("--room", default=None)
    bot.add_argument("--stay", action="store_true")
    bot.add_argument("address", nargs="?", metavar="HOST:PORT")

    sim = sub.add_parser("sim", help="bot-vs-bot simulation on the engine alone")
    sim.add_argument("--game", choices=GAMES, default="colormatch")
    sim.add_argument("--table", choices=TABLES, default="classic")
    sim.add_argument("--players", type=int, default=4)
    sim.add_argument("--games", type=int, default=100)
    sim.add_argument("--seed", type=int, default=1)

    sub.add_parser("stats", help="wins, losses and coins held by the host's store")
    sub.add_parser("history", help="past matches and their replays")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    print(
        f"lanmatch {args.command}: not built yet in this version "
        "(the rules engine is; see README.md).",
        file=sys.stderr,
    )
    return 1
