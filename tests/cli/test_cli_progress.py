"""The progress line while a model works: `trinho condense` and `trinho chat` run for real in a
subprocess, against a fake model server that takes 6 s to answer, their stderr on a
pseudo-terminal. The line is there while the call computes, its seconds tick, it fits the
terminal, and it is gone before the report or the reply; on a pipe or with --json, nothing."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.condense_weeks import VI_MEMORY
from support.fake_model_server import FakeServer, Reply, openai_reply
from support.pty_run import PtyRun
from trinho.cli import main

WIDTH = 60
SLOW = 6.0
"""Seconds the fake model takes for the first answer: a small local model's time."""
REWRITE = VI_MEMORY + "- 2026-11-29: Mai được chọn vào đội bơi của trường\n"


@pytest.fixture
def week(
    cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Path:
    """A file workspace with a note this week and a MEMORY.md, a minute after the note."""
    for var in ("OLLAMA_HOST", "OPENAI_API_KEY", "OPENAI_BASE_URL", "TRINHO_MODEL"):
        monkeypatch.delenv(var, raising=False)
    assert main(["init", "--tz", "Asia/Ho_Chi_Minh"]) == 0
    assert main(["note", "Mai được chọn vào đội bơi của trường"]) == 0
    monkeypatch.setenv("TRINHO_NOW", "2026-11-29T14:06:00+07:00")
    home = Path(cli_env["TRINHO_HOME"])
    (home / "MEMORY.md").write_text(VI_MEMORY, encoding="utf-8")
    capsys.readouterr()
    return home


@pytest.fixture
def slow_model() -> Iterator[FakeServer]:
    """The rewrite (or the chat turn) takes `SLOW` seconds; the screening answers at once."""
    first = Reply(openai_reply(REWRITE, prompt=300, completion=40), delay=SLOW)
    with FakeServer(first, Reply(openai_reply("1. NHẬN", prompt=200, completion=5))) as server:
        yield server


def env_for(server: FakeServer) -> dict[str, str]:
    return os.environ | {"TRINHO_MODEL": "ollama:qwen3:8b", "OLLAMA_HOST": server.url}


def redraws(terminal: str) -> list[str]:
    """Each drawing of the line: the text between carriage returns and newlines."""
    return [part for part in re.split(r"[\r\n]", terminal) if part.strip()]


def ticked(pattern: str, text: str) -> bool:
    """The line matching `pattern` was drawn with two different numbers of seconds."""
    return len(set(re.findall(pattern, text))) >= 2


def test_condense_shows_its_step_calls_and_seconds_while_the_model_computes(
    week: Path, slow_model: FakeServer
) -> None:
    run = PtyRun(["condense"], env_for(slow_model), WIDTH)
    # there while the server computes the answer (redrawn twice a second meanwhile)
    assert run.wait_for(lambda text: "rewriting MEMORY.md" in text and slow_model.busy)
    assert len(slow_model.posts) == 1
    # the seconds tick while the call blocks the command
    assert run.wait_for(lambda text: ticked(r"MEMORY.md · (\d+) s · 1 call waiting", text))
    assert slow_model.busy
    code, out, terminal = run.finish()
    assert code == 0, terminal
    lines = redraws(terminal)
    drawn = [line for line in lines if " s" in line and "·" in line]
    assert re.match(r"reading the week · \d+ s", drawn[0])
    assert any(
        re.match(r"rewriting MEMORY.md · \d+ s · 1 call waiting\s*$", line) for line in drawn
    )
    assert any(
        re.match(r"screening the new lines · \d+ s · 1 call done, 1 wai", line) for line in drawn
    )
    assert all(len(line.rstrip()) < WIDTH for line in drawn)
    # wiped at the end: the last thing on the terminal is an empty line, the report on stdout
    assert terminal.rstrip(" ").endswith("\r") and "2026-W48" in out
    assert "\r" not in out and "rewriting" not in out


@pytest.mark.parametrize("how", ["pipe", "json"])
def test_condense_draws_nothing_on_a_pipe_or_with_json(
    week: Path, slow_model: FakeServer, how: str
) -> None:
    args = ["condense", "--json"] if how == "json" else ["condense"]
    run = PtyRun(args, env_for(slow_model), WIDTH if how == "json" else None)
    code, out, err = run.finish()
    assert code == 0, err
    assert "\r" not in err.replace("\r\n", "\n")
    assert "rewriting" not in err and " waiting" not in err
    if how == "json":
        assert json.loads(out)["outcome"] == "done"


def test_chat_thinks_in_the_owners_language_then_the_reply_replaces_it(
    week: Path, slow_model: FakeServer
) -> None:
    config = week / ".trinho" / "config.toml"
    config.write_text(config.read_text().replace('locale = "en"', 'locale = "vi"'))
    run = PtyRun(["chat", "-m", "Chào bạn"], env_for(slow_model), WIDTH)
    assert run.wait_for(lambda text: "đang suy nghĩ" in text and slow_model.busy)
    assert run.wait_for(lambda text: ticked(r"suy nghĩ · (\d+) giây · 1 lần gọi đang chờ", text))
    assert slow_model.busy
    code, out, terminal = run.finish()
    assert code == 0, terminal
    assert out == REWRITE  # the reply, as without a terminal
    assert terminal.rstrip(" ").endswith("\r")
    assert all(len(line.rstrip()) < WIDTH for line in redraws(terminal))


def test_chat_with_json_draws_nothing(week: Path, slow_model: FakeServer) -> None:
    run = PtyRun(["chat", "-m", "Chào bạn", "--json"], env_for(slow_model), WIDTH)
    code, out, terminal = run.finish()
    assert code == 0, terminal
    assert json.loads(out)["turns"][0]["reply"] == REWRITE.strip()
    assert "thinking" not in terminal and "\r" not in terminal.replace("\r\n", "\n")
