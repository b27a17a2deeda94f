"""Shared set-up for the whole suite.

A `lanmatch host` keeps its store in `default_data_dir()` when it is not
given `--data` (docs/store.md): the suite points `XDG_DATA_HOME` at a
private temporary directory before any test (or subprocess) starts, so that
no test ever writes to, or resumes a match from, the real user's data
directory. Tests that start hosts still give each its own `--data` (or
`--no-store`): hosts sharing this directory would share one store.
`XDG_CONFIG_HOME` (the player's profile file) gets its own temporary
directory the same way.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

_DATA_HOME = tempfile.mkdtemp(prefix="lanmatch-tests-data-")
os.environ["XDG_DATA_HOME"] = _DATA_HOME
atexit.register(shutil.rmtree, _DATA_HOME, ignore_errors=True)

# The player's profile file (`$XDG_CONFIG_HOME/lanmatch/profile.json`, written by
# `lanmatch join`) goes to a private temporary directory too, never the real one.
_CONFIG_HOME = tempfile.mkdtemp(prefix="lanmatch-tests-config-")
os.environ["XDG_CONFIG_HOME"] = _CONFIG_HOME
atexit.register(shutil.rmtree, _CONFIG_HOME, ignore_errors=True)
