"""A Color Match table declared by the tests alone (`testtable`), as a
pytest fixture: Classic with `cards`' timed last-card windows. It is
registered for the test and unregistered after it; where the bots cannot
play a table they were not written for, the test is skipped, loudly."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lanmatch.bots import make_bot
from lanmatch.rules import register_table, unregister_table
from lanmatch.rules.colormatch import TABLES


@pytest.fixture
def testtable():
    spec = register_table("colormatch", replace(
        TABLES["classic"], name="testtable", title="Test", call="cards",
        brief="Classic piles, with last-card calls timed as at Color Cards.",
    ))
    try:
        make_bot("easy", table="testtable")
    except ValueError as e:
        unregister_table("colormatch", "testtable")
        pytest.skip(f"THE BOTS DO NOT READ DECLARED TABLES YET ({e}); the test did not run")
    yield spec
    unregister_table("colormatch", "testtable")
