"""Shared fixtures: a temporary workspace, a fixed clock, a guard that forbids the internet, and
the fixtures of tests/support/: PostgreSQL's and the two backends'."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import settings

from trinho import durable
from trinho.workspace import Workspace, init_workspace

OFFLINE = Path(__file__).parent / "offline"
pytest_plugins = ["support.pg_fixtures", "support.backends"]
"""The PostgreSQL fixtures (a server starts only for a test that asks for one) and the backend
fixture that runs a feature test on the file workspace and on PostgreSQL."""


def _guard_this_process_and_its_children() -> None:
    """No test reaches the internet: this process is guarded now, Python subprocesses at start."""
    spec = importlib.util.spec_from_file_location("offline_guard", OFFLINE / "sitecustomize.py")
    assert spec is not None and spec.loader is not None
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    inherited = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(OFFLINE), *([inherited] if inherited else [])])


_guard_this_process_and_its_children()


def _compile_stale_catalogs() -> None:
    """The tests read the catalogs as the .po files say now: a .po edited since the last
    build is compiled again, by the build's own hook (hatch_build.py)."""
    root = Path(__file__).parent.parent
    spec = importlib.util.spec_from_file_location("hatch_build", root / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    hook.compile_catalogs(root, only_stale=True)


_compile_stale_catalogs()

# No per-example deadline: on a loaded CI machine a slow example is not a failing one.
settings.register_profile("trinho", deadline=None)
settings.load_profile("trinho")


@pytest.fixture(autouse=True)
def _default_data_folder_of_its_own(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test's default workspace ($XDG_DATA_HOME/trinho/workspace) is a folder of its own:
    a test that runs trinho without TRINHO_HOME never reads or leaves the machine's one (a
    Vietnamese workspace left there once turned other tests' messages Vietnamese)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data")))


@pytest.fixture(autouse=True)
def _no_fsync_unless_durability(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fsync waits on the disk: real only in the tests marked `durability` (crash and write
    tests), a no-op elsewhere, so the suite spends its time on the CPU; the Python processes a
    test starts skip it too (offline/sitecustomize.py)."""
    if request.node.get_closest_marker("durability") is None:
        monkeypatch.setattr(durable, "fsync", lambda fd: None)
        monkeypatch.setenv("TRINHO_TEST_FSYNC", "off")  # read by offline/sitecustomize.py


@pytest.fixture(autouse=True)
def _no_openclaw_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """trinho follows OpenClaw's `userTimezone` from OpenClaw's config: in tests, none exists
    unless a test writes one there, so a developer's own ~/.openclaw is never read."""
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", str(tmp_path / "openclaw-config" / "openclaw.json"))


@pytest.fixture(autouse=True)
def _no_index_kept_across_tests() -> Iterator[None]:
    """A process keeps its workspaces' indexes open (`search.kept_index`); each test starts
    and ends with none, so no test's index, embedder or open file reaches the next."""
    yield
    service = sys.modules.get("trinho.search.service")  # never imported here for the first time
    if service is not None:
        service.close_kept()


START = datetime.fromisoformat("2026-11-29T14:05:00+07:00")
TZ = "Asia/Ho_Chi_Minh"


class FixedClock:
    """A clock that stands still until a test moves it."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now

    def set(self, iso: str) -> datetime:
        self.now = datetime.fromisoformat(iso)
        return self.now


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under root with its bytes (None for folders): to prove nothing changed.

    Empty lock files under .trinho/locks are left out: taking a lock is not writing content.
    """
    return {
        rel: (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
        if not (rel := p.relative_to(root).as_posix()).startswith(".trinho/locks")
    }


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def workspace(tmp_path: Path, clock: FixedClock) -> Workspace:
    """An initialised workspace in Asia/Ho_Chi_Minh whose clock is `clock`."""
    return init_workspace(tmp_path / "ws", timezone=TZ, clock=clock).workspace


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Environment for CLI subprocess or CliRunner tests: a workspace path and a fixed clock."""
    env = {"TRINHO_HOME": str(tmp_path / "ws"), "TRINHO_NOW": START.isoformat()}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env
