"""The plain mode (`lanmatch play --plain`, or `TERM=dumb`): sentences and
numbered choices, played to the end at every table through a pipe."""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import subprocess
import sys
import time

import pytest
from _console import NEED_TMUX, Tmux
from _net import start_host

from lanmatch.console.plain import PlainGame, sentence, unshaped
from lanmatch.rules import GAMES, new_game

PROMPTS = [
    re.compile(r"Your move, 1 to (\d+): $"),
    re.compile(r"Your move, (1): $"),
    re.compile(r"Your choice, 1 to (\d+), or Enter to let it go: $"),
    re.compile(r"Play again\? 1: yes, a new deal\. 2: no, leave\. Choose 1 or 2: $"),
]
EVERY_TABLE = [(g, t) for g in GAMES for t in GAMES[g].tables]


class Piped:
    """`lanmatch play --plain` in a subprocess with stdin and stdout pipes:
    read to each prompt (a line that ends without a newline), answer it."""

    def __init__(self, *args: str, env: dict[str, str] | None = None):
        self.proc = subprocess.Popen([sys.executable, "-m", "lanmatch", "play", "--fast", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=env)
        self.text = ""

    def prompt(self, timeout: float = 60.0) -> str:
        """The next prompt (the unfinished last line); '' when the program ended."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while True:
            last = self.text.rsplit("\n", 1)[-1]
            if last.endswith(": "):
                return last
            if time.monotonic() > deadline:
                raise AssertionError(f"no prompt within {timeout} s; the end of the output:\n{self.text[-2000:]}")
            chunk = os.read(fd, 65536)
            if not chunk:
                return ""
            self.text += chunk.decode()

    def answer(self, line: str) -> None:
        self.text += "\n"  # the next prompt is after this one
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def close(self) -> tuple[int, str]:
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.close()
        rest = self.proc.stdout.read().decode()
        self.text += rest
        err = self.proc.stderr.read().decode()
        return self.proc.wait(timeout=30), err


def play_through_a_pipe(args: list[str], seed: int, env: dict[str, str] | None = None,
                        max_prompts: int = 6000) -> str:
    """Answer every prompt with a choice drawn from `seed` (the first one
    half of the time), until the game ends; then leave."""
    rng = random.Random(seed)
    p = Piped(*args, env=env)
    try:
        for _ in range(max_prompts):
            prompt = p.prompt()
            if not prompt:
                break
            match = next((m for m in (r.search(prompt) for r in PROMPTS) if m), None)
            assert match is not None, f"a prompt that is not numbered: {prompt!r}"
            if prompt.startswith("Play again"):
                p.answer("2")
                continue
            n = int(match.group(1))
            p.answer("1" if rng.random() < 0.5 else str(rng.randint(1, n)))
        else:
            raise AssertionError("the game did not end")
    finally:
        code, err = p.close()
    assert code == 0, err
    assert "Traceback" not in p.text + err
    return p.text


def check_choices_are_numbered(text: str) -> None:
    lines = text.splitlines()
    blocks = 0
    for i, line in enumerate(lines):
        m = re.fullmatch(r"Your choices, (\d+):", line)
        if m:
            blocks += 1
            n = int(m.group(1))
            assert [x.split(":")[0] for x in lines[i + 1:i + 1 + n]] == [str(k) for k in range(1, n + 1)], \
                lines[i:i + n + 2]
    assert blocks > 3


@pytest.mark.parametrize("game, table", EVERY_TABLE)
def test_the_plain_mode_plays_to_the_end_at_every_table_through_a_pipe(game, table):
    args = ["--plain", "--game", game, "--seed", "4", "--seats", "3", "--bots", "easy"]
    if GAMES[game].named_tables:
        args += ["--table", table]
    text = play_through_a_pipe(args, seed=7)
    check_choices_are_numbered(text)
    result = [x for x in text.splitlines() if re.match(r"(Game|Match) over", x)]
    assert len(result) == 1, text[-3000:]
    assert re.search(r"(You won!|won\.|Shared win: .*\.|it is a draw\.) Points: .*\.$", result[0]), result[0]
    assert "Thanks for playing." in text
    assert "\x1b" not in text  # no colors, no cursor movement
    assert not re.search(r"[●◆▲■★]", text), "a shape a screen reader would spell"


@NEED_TMUX
def test_term_dumb_is_the_plain_mode_by_itself(tmp_path):
    """`TERM=dumb lanmatch play` in a real terminal: sentences and numbered
    choices, no full screen; q leaves."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path), "LANG": "C.UTF-8"}
    cmd = f"env TERM=dumb {sys.executable} -m lanmatch play --game dominoes --seed 5 --seats 2 --bots easy --fast"
    with Tmux(cmd, env, width=100, height=30) as t:
        screen = t.wait_for(lambda s: "Your choices, " in s and re.search(r"Your move, 1( to \d+)?:", s))
        assert "Your rack, " in screen and "1: " in screen
        t.keys("1", "Enter")
        t.wait_for(lambda s: s.count("Your move, 1") >= 2 or "Match over" in s)
        t.keys("q", "Enter")
        t.wait_for_exit_line("You left the table. Bye!")


def test_the_first_choice_every_time_ends_too():
    """The brief's own driver: always 1 (it names red every time, which can
    take a while: the bots go out in the end)."""
    text = play_through_a_pipe(["--plain", "--table", "cards", "--seed", "2", "--seats", "2", "--bots", "easy"],
                               seed=0, max_prompts=6000)
    assert re.search(r"^Game over", text, re.M)


# ------------------------------------------------------------------ every decision, in-process


class Chooser:
    """The asker of an in-process PlainGame: checks that the choices listed
    just before a prompt are exactly the referee's legal actions, numbered,
    then picks one at random (letting windows go now and then)."""

    def __init__(self, out: io.StringIO, seed: int):
        self.out = out
        self.rng = random.Random(seed)
        self.game: PlainGame | None = None
        self.chosen: list[dict] = []
        self.prompts = 0

    def ask(self, message, options, check):
        assert any(r.search(message) for r in PROMPTS), message
        self.prompts += 1
        if message.startswith("Play again"):
            return "2"
        legal = self.game.referee.legal(0)
        told = self.out.getvalue().rsplit("Your choices, ", 1)[1].splitlines()
        assert told[0] == f"{len(legal)}:"
        assert [x.split(":")[0] for x in told[1:1 + len(legal)]] == [str(i) for i in range(1, len(legal) + 1)]
        if "let it go" in message and self.rng.random() < 0.3:
            return ""
        i = self.rng.randrange(len(legal))
        self.chosen.append(legal[i])
        return str(i + 1)


def _play(game: str, table: str | None, seats: int, seed: int, options: dict | None = None) -> list[dict]:
    out = io.StringIO()
    chooser = Chooser(out, seed)
    q = PlainGame(game, table, seats, "easy", seed, out=out, asker=chooser, pause=0)
    if options:
        q.g = new_game(game, table=table, players=seats, seed=seed, options=options)
    chooser.game = q
    outcome = q.play()
    q.tell_outcome(outcome)
    assert re.search(r"(Game|Match) over", out.getvalue().splitlines()[-1])
    return chooser.chosen


def _kinds(chosen: list[dict]) -> set[str]:
    kinds = {a["type"] for a in chosen}
    kinds |= {"color" for a in chosen if "color" in a}
    kinds |= {"swap" for a in chosen if "swap_with" in a}
    kinds |= {"end" for a in chosen if "end" in a}
    return kinds


@pytest.mark.parametrize("game, table, seats, options, need", [
    ("colormatch", "classic", 3, None, {"play", "draw", "keep", "color"}),
    ("colormatch", "standard", 3, {"seven_o": True}, {"play", "draw", "pass", "color", "call", "accept",
                                                      "challenge", "swap"}),
    ("colormatch", "toll", 3, None, {"play", "draw", "color", "accept", "challenge"}),
    ("colormatch", "daynight", 3, None, {"play", "draw", "color"}),
    ("colormatch", "siege", 3, None, {"play", "draw", "color"}),
    ("colormatch", "cards", 3, None, {"play", "draw", "color", "call", "catch"}),
    ("dominoes", None, 2, None, {"play", "draw", "end"}),
])
def test_every_decision_of_a_table_is_a_numbered_choice(game, table, seats, options, need):
    """Seeded games with random choices: every prompt lists exactly the
    engine's legal actions, numbered, and the decisions of the table
    (colours, calls, catches, challenges, swaps, ends, draw, keep, pass)
    are all taken through them."""
    kinds: set[str] = set()
    for seed in range(1, 9):
        kinds |= _kinds(_play(game, table, seats, seed, options))
        if need <= kinds:
            break
    assert need <= kinds, need - kinds


def test_sentences_leave_the_shapes_out_and_end_with_a_stop():
    assert unshaped("play red ● 5, name blue ■") == "play red 5, name blue"
    assert sentence("Turn: Ann · play goes clockwise ↻ · next: Bob") == "Turn: Ann; play goes clockwise; next: Bob."
    assert sentence("*** ONE CARD: Ann ***") == "ONE CARD: Ann."
    assert sentence("Bot 1 has one card left!") == "Bot 1 has one card left!"


# ------------------------------------------------------------------ at a host: `lanmatch join --plain`


JOIN_PROMPT = re.compile(
    r"^(?:Your move(?: \(\d+ seconds\))?, 1(?: to (\d+))?"
    r"|Your choice(?: \(\d+ seconds\))?, 1(?: to (\d+))?(?:, or Enter to let it go)?"
    r"|Which game, 1 to (\d+)|Which table, 1 to (\d+)|How many seats, 1 to (\d+)): ", re.M)


async def _join_plain(port: int, env: dict[str, str], pick) -> str:
    """`lanmatch join --plain` in a subprocess with pipes. Every prompt
    printed (each one is read as one line, in turn) is answered by
    `pick(prompt, n, text so far)`; every line that ends in ': ' must be one
    of the numbered prompts."""
    import trio

    proc = await trio.lowlevel.open_process(
        [sys.executable, "-m", "lanmatch", "join", "--plain", "--name", "Ann", f"127.0.0.1:{port}"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    text = ""
    answered = 0
    try:
        with trio.fail_after(120):
            while True:
                chunk = await proc.stdout.receive_some(65536)
                if not chunk:
                    break
                text += chunk.decode()
                prompts = list(JOIN_PROMPT.finditer(text))
                for m in prompts[answered:]:
                    n = int(next((g for g in m.groups() if g), "1"))
                    line = pick(m.group(0), n, text[:m.end()])
                    answered += 1
                    try:
                        await proc.stdin.send_all((line + "\n").encode())
                    except trio.BrokenResourceError:
                        break
            await proc.wait()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 0, text[-2000:]
    for line in text.splitlines():
        if line.rstrip(" 0123456789").endswith(":") and not line.startswith(("Your choices, ", "At the table")) \
                and line.endswith(": "):
            assert JOIN_PROMPT.match(line), f"a prompt that is not numbered: {line!r}"
    return text


@pytest.mark.parametrize("game, table", [("colormatch", "cards"), ("dominoes", None), ("dominoes", "double-nine")])
async def test_plain_join_makes_a_room_plays_it_to_the_end_and_leaves(nursery, tmp_path, game, table):
    """A host on loopback; the plain client makes its own room (the game, the
    table and 2 seats chosen by number), deals, plays every decision by
    number (random choices), hears the result and leaves."""
    games = GAMES
    host = await start_host(nursery)
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    rng = random.Random(5)
    games_list = list(games)
    state = {"over": False}

    def pick(prompt: str, n: int, text: str) -> str:
        if prompt.startswith("Which game"):
            return str(games_list.index(game) + 1)
        if prompt.startswith("Which table"):
            return str(list(games[game].tables).index(table or games[game].default_table) + 1)
        if prompt.startswith("How many seats"):
            return "1"  # 2 seats: you and a bot
        last = text.rstrip("\n").splitlines()
        if re.search(r"^(Game|Match) over", "\n".join(last[-4:]), re.M):
            state["over"] = True
            return "2"  # leave
        if "make a room of your own" in "\n".join(last[-4:]) and prompt.startswith("Your choice"):
            return str(n - 1)  # make a room (the choice before "leave")
        if "deal now" in "\n".join(last[-3:]):
            return "1"
        return "1" if rng.random() < 0.5 else str(rng.randint(1, n))

    text = await _join_plain(host.port, env, pick)
    assert state["over"], text[-2000:]
    if game == "dominoes":  # the set chosen is the set dealt (the plain client offered none but double-six)
        assert f"dealt: {games[game].table(table).hands[2]} tiles each" in text, text[:3000]
    assert re.search(r"^(Game|Match) over.*(won|draw).*Points: ", text, re.M), text[-2000:]
    assert "Your choices, " in text and "Bye!" in text and "Traceback" not in text


def test_plain_flags_are_checked_in_one_line(capsys):
    from lanmatch.cli import main

    with pytest.raises(SystemExit) as e:
        main(["join", "--plain"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "give its HOST:PORT" in err and err.count("\n") == 1
    with pytest.raises(SystemExit) as e:
        main(["play", "--plain", "--lan"])
    assert e.value.code == 2
    assert "--lan needs the full-screen console" in capsys.readouterr().err


def test_plain_join_at_nobody_is_one_sentence_and_status_1(tmp_path):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path)}
    r = subprocess.run([sys.executable, "-m", "lanmatch", "join", "--plain", f"127.0.0.1:{port}"], input="",
                       capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 1
    assert "Cannot reach 127.0.0.1:" in r.stdout and "Traceback" not in r.stdout + r.stderr


async def test_plain_join_takes_a_seat_in_a_listed_room_and_deals_it(nursery, tmp_path):
    """A room the host made (its first seated peer directs it): the plain
    client joins it by number from the list, deals, plays to the end, leaves."""
    host = await start_host(nursery)
    host.create_room("Kitchen", game="colormatch", table="siege", seats=2, bot_level="easy", first_directs=True,
                     seed=3)
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    rng = random.Random(2)
    said = []

    def pick(prompt: str, n: int, text: str) -> str:
        last = "\n".join(text.rstrip("\n").splitlines()[-4:])
        if re.search(r"^(Game|Match) over", last, re.M):
            return "2"
        if "join Kitchen: Color Match · Siege, 1 free seat of 2" in last:
            return "1"
        if "deal now" in last:
            return "1"
        if prompt.startswith("Your move") and not said:  # a word to the room first ("say ..." at any prompt)
            said.append(1)
            return "say good luck, bot"
        return str(rng.randint(1, n))

    text = await _join_plain(host.port, env, pick)
    assert "You sit at seat 0 of Kitchen." in text
    assert "You say: good luck, bot." in text  # the host relayed it back, told as a sentence
    assert re.search(r"^Game over.*Points: ", text, re.M), text[-2000:]


async def test_plain_join_at_a_host_with_a_store_makes_its_profile_there_and_says_so(nursery, tmp_path):
    """First use at a host that keeps profiles: the client registers the
    profile. A play-test read "No profile: practice rooms only." and "There is
    no profile 'Lou' on this host yet" while the host made it."""
    from lanmatch.store import Store

    store = Store.open_dir(tmp_path / "data")
    try:
        host = await start_host(nursery, store=store)
        env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_CACHE_HOME": str(tmp_path / "cache")}

        def pick(prompt: str, n: int, text: str) -> str:
            return str(n)  # the last choice: leave

        text = await _join_plain(host.port, env, pick)
        assert "Your profile Ann is made at this host: 1000 coins." in text, text[:600]
        assert "No profile" not in text and "There is no profile" not in text
        text = await _join_plain(host.port, env, pick)  # the second time: recognised at once
        assert "Playing as Ann, 1000 coins." in text and "is made at this host" not in text
    finally:
        store.close()
