"""A new Color Match table declared in this file alone plays through everything (issue 12).

"Ladder" is Classic with Siege's ladder (+4 answers a +2 pile), hands of 5
cards and a clock of its own, declared here with `register_table` and nothing else in lanmatch
edited: the engine deals it, the referee plays it with bots of every level,
`lanmatch sim` runs it, the protocol's checks accept it in `create`, a real
host on 127.0.0.1 serves a room of it to bot nodes, the store records and
replays it, and the console renders it at 80x24 with its own title and help.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import trio
from _console import push, seated_ui, text
from _net import LOOPBACK, start_host

from lanmatch import sim
from lanmatch.console.screen import help_lines
from lanmatch.net.client import BotNode
from lanmatch.protocol import check_peer_message
from lanmatch.rules import new_game, register_table, unregister_table
from lanmatch.rules.colormatch import TABLES
from lanmatch.store import Store, rebuild_game
from lanmatch.table import Referee, Room, default_clock

BRIEF = "Classic with Siege's ladder, five cards each: a +4 answers a waiting +2 pile."


@pytest.fixture
def ladder():
    register_table("colormatch", replace(
        TABLES["classic"], name="ladder", title="Ladder", brief=BRIEF, default_clock=45, hand=5,
        ladder=(("+2", ("+2", "+4")), ("+4", ("+4",))),
    ))
    yield "ladder"
    unregister_table("colormatch", "ladder")


def test_the_engine_deals_it_and_its_ladder_holds(ladder):
    g = new_game("colormatch", table="ladder", players=3, seed=4)
    assert g.view(0)["table"] == "ladder" and [len(g.view(s)["hand"]) for s in range(3)] == [5, 5, 5]
    assert g.view(0)["draw_pile"] == 112 - 3 * 5 - 1  # (the deck's 112 less the hands and the starter)
    assert default_clock("colormatch", "ladder") == 45
    assert Room("r", game="colormatch", table="ladder", seats=3).clock == 45


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_the_referee_plays_it_with_bots_of_every_level(ladder, level):
    ref = Referee("colormatch", "ladder", 4, 9, now=0.0, bots={s: level for s in range(4)})
    now = 0.0
    for _ in range(3000):
        if ref.over:
            break
        now = max(now, ref.next_deadline())
        ref.tick(now)
    assert ref.over and ref.outcome["winners"]
    assert not ref.notes  # no bot ever chose an illegal action


def test_sim_runs_it(ladder):
    config = sim.SimConfig(table="ladder", players=3, bots=("hard", "medium", "easy"), games=6, seed=2)
    config.check()
    with sim.Runner(config, 1) as runner:
        runner.run()
    summary = sim.summarize(config, runner.tally)
    assert summary["table"] == "ladder" and summary["games"] == 6
    assert sum(s["wins"] for s in summary["seats"]) + summary["no_winner"] == pytest.approx(6)


def test_the_protocol_accepts_it_in_create(ladder):
    check_peer_message({"type": "create", "room": "r", "game": "colormatch", "table": "ladder"})


async def test_a_real_host_serves_it_to_bot_nodes_and_stores_it(ladder, tmp_path):
    store = Store.open_dir(tmp_path / "data", lock=True, durable=False)
    try:
        async with trio.open_nursery() as nursery:
            host = await start_host(nursery, store=store)
            host.create_room("L", game="colormatch", table="ladder", seats=3, auto_start=True, start_after=0.3)
            nodes = [BotNode(level, room="L", seed=i, name=f"bot{i}") for i, level in enumerate(("easy", "hard"))]
            with trio.fail_after(60):
                async with trio.open_nursery() as n:
                    for node in nodes:
                        n.start_soon(node.run, (LOOPBACK, host.port))
            nursery.cancel_scope.cancel()
        (m,) = store.history()
        assert (m.game, m.table, m.status) == ("colormatch", "ladder", "finished")
        record = store.match(m.id)
        assert json.dumps(rebuild_game(record).outcome, sort_keys=True) == json.dumps(record.outcome, sort_keys=True)
    finally:
        store.close()


def test_the_console_renders_it_at_80x24(ladder):
    g = new_game("colormatch", table="ladder", players=3, seed=5, first_seat=0)
    ui = seated_ui(g, table="ladder")
    push(ui, g)
    screen = text(ui)
    assert "Color Match · Ladder" in screen
    assert all(len(line) <= 80 for line in screen.splitlines()) and len(screen.splitlines()) <= 24
    ui.press("?")
    assert "Classic with Siege's ladder" in " ".join(help_lines(ui))
