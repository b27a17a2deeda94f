"""The command line answers `--help` and turns a bad flag into one clear line
(SPEC section 1): exit status 2, a single line on stderr, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
COMMANDS = ("play", "host", "join", "bot", "sim", "stats", "history")


def lanmatch(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lanmatch", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_help_works():
    r = lanmatch("--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: lanmatch")
    for command in COMMANDS:
        assert command in r.stdout
    assert r.stderr == ""


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command):
    r = lanmatch(command, "--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"usage: lanmatch {command}")
    assert r.stderr == ""


@pytest.mark.parametrize(
    "args",
    [
        ("--bogus",),
        ("--bogus=1",),
        ("no-such-command",),
        ("play", "--bogus"),
        ("play", "--table", "no-such-table"),
        ("play", "--port", "7450"),  # --port goes with --lan
        ("play", "--lan", "--port", "70000"),
        ("sim", "--games", "many"),
        ("bot", "--level", "grandmaster"),
    ],
    ids=lambda a: " ".join(a),
)
def test_a_bad_flag_is_one_line_on_stderr_and_status_2(args):
    r = lanmatch(*args)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{r.stderr}"
    assert "Traceback" not in r.stderr
    assert lines[0].startswith("lanmatch")


@pytest.mark.parametrize("command", ["play", "join", "host", "bot", "sim", "stats", "history"])
def test_a_usage_error_names_its_subcommand(command):
    """Issue 14: `play --bogus` said `lanmatch: unrecognized arguments`."""
    r = lanmatch(command, "--bogus")
    assert r.returncode == 2
    assert r.stderr.startswith(f"lanmatch {command}: unrecognized arguments: --bogus"), r.stderr
    assert r.stderr.count("\n") == 1
