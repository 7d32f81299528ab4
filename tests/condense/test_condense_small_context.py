"""A realistic week condensed on a strict fake llama.cpp server with a 2,048-token context
(issue 44): the compact instructions, the week in chunks, MEMORY.md in windows; every request
fits the server's context with its answer, and the gate keeps every line of the old file."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import FixedClock
from support.fake_model_server import FakeServer, Reply, fake_prompt_tokens, openai_reply
from trinho.channels import ConsoleChannel
from trinho.condense import run_condensation
from trinho.condense.rules.rewrite import MEMORY_BEGIN, MEMORY_END
from trinho.condense.rules.window import GAP
from trinho.memory.format import Entry, parse_line
from trinho.notes.store import save_note
from trinho.workspace import Workspace, open_workspace

WEEK = json.loads(
    (Path(__file__).parent.parent / "data" / "weeks" / "small_context.json").read_text("utf-8")
)
CONTEXT = 2048


def small_week(ws: Workspace, clock: FixedClock, context: int, locale: str = "en") -> Workspace:
    """The fixture's MEMORY.md and notes, a context of `context` tokens, the clock at its run."""
    config = ws.internal / "config.toml"
    text = config.read_text().replace('locale = "en"', f'locale = "{locale}"', 1)
    config.write_text(text + f"\n[condense]\ncontext_tokens = {context}\n")
    ws = open_workspace(ws.root, clock)
    ws.memory_file.write_text(WEEK["memory"], encoding="utf-8")
    for at, text in WEEK["notes"]:
        clock.set(at)
        save_note(ws, text)
    clock.set(WEEK["now"])
    return ws


def shown_lines(system: str) -> dict[int, str]:
    """The numbered MEMORY.md lines a rewrite request shows, by their number."""
    body = system.split(MEMORY_BEGIN + "\n", 1)[1].split("\n" + MEMORY_END, 1)[0]
    return {int(m[1]): m[2] for m in re.finditer(r"^\[(\d+)\] ?(.*)$", body, re.MULTILINE)}


def model(body: dict[str, Any]) -> dict[str, Any]:
    """A model that reads its request: for a rewrite, an entry added under the last heading it
    was shown for the chunk's first note, the first entry shown confirmed, and an edit and a
    removal of lines it was not shown (a model inventing numbers); for a screening, ACCEPT."""
    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    if not system.startswith("You update MEMORY.md"):
        count = len(re.findall(r"^\d+\. ", user, re.MULTILINE))
        return openai_reply("\n".join(f"{n}. ACCEPT" for n in range(1, count + 1)))
    shown = shown_lines(system)
    headings = [n for n, line in shown.items() if line.startswith("#")]
    entries = [n for n, line in shown.items() if isinstance(parse_line(line, n), Entry)]
    day = re.findall(r"^### (\S+)$", user, re.MULTILINE)[0]
    note = re.findall(r"^- \d\d:\d\d \[note\] (.*)$", user, re.MULTILINE)[0]
    unseen = [n for n in range(1, 40) if n not in shown]
    ops = [f"ADD [{headings[-1]}] - {day}: {note}", f"DATE [{entries[0]}] {day}"]
    ops += [f"EDIT [{unseen[1]}] - {day}: Không phải vậy", f"REMOVE [{unseen[2]}] cũ rồi"]
    return openai_reply("\n".join(ops))


@pytest.fixture
def llama(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OLLAMA_HOST", "OPENAI_API_KEY", "OPENAI_BASE_URL", "TRINHO_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TRINHO_MODEL", "llamacpp:m")


@pytest.mark.usefixtures("llama")
@pytest.mark.parametrize("locale", ["en", "vi"])
def test_a_realistic_week_condenses_at_2048_tokens_every_request_fitting(
    workspace: Workspace, clock: FixedClock, monkeypatch: pytest.MonkeyPatch, locale: str
) -> None:
    ws = small_week(workspace, clock, CONTEXT, locale)
    assert ws.locale == locale
    old = WEEK["memory"]
    with FakeServer(Reply(model), context_tokens=CONTEXT, llamacpp=True) as srv:
        monkeypatch.setenv("TRINHO_BASE_URL", f"{srv.url}/v1")
        report = run_condensation(ws, channel=ConsoleChannel(ws.locale, io.StringIO()))
    bodies = [s.body for s in srv.posts if s.path.endswith("/chat/completions")]
    rewrites = [b for b in bodies if b["messages"][0]["content"].startswith("You update")]

    assert report.outcome == "done", report.message
    assert report.prompts[0] == "rewrite_small.v1"  # the compact instructions
    assert report.chunks == len(rewrites) >= 2  # the week in chunks...
    notes = "\n".join(b["messages"][-1]["content"] for b in rewrites)
    assert all(text in notes for _, text in WEEK["notes"])  # ...every note read once
    assert sum(notes.count(text) for _, text in WEEK["notes"]) == len(WEEK["notes"])
    for body in bodies:  # no request refused, no answer cut by the context
        assert fake_prompt_tokens(body) + int(body["max_tokens"]) <= CONTEXT
    windows = [shown_lines(b["messages"][0]["content"]) for b in rewrites]
    lines = old.rstrip("\n").split("\n")
    assert all(
        len(w) < len(lines) and GAP in b["messages"][0]["content"]
        for w, b in zip(windows, rewrites, strict=True)
    )  # MEMORY.md shown in windows
    assert all(lines[n - 1] == line for w in windows for n, line in w.items())

    new = ws.memory_file.read_text(encoding="utf-8")
    held = [c.change.old for c in report.changes if c.change.held and c.change.old]
    for line in lines:  # the gate's invariant: every old line kept, re-dated, or held
        dated = parse_line(line, 2)
        kept = line in new.split("\n") or line in held
        if isinstance(dated, Entry):
            kept = kept or f": {dated.text}" in new
        assert kept, line
    assert "Không phải vậy" not in new and "cũ rồi" not in json.dumps(
        [c.change.why for c in report.changes]
    )  # what named a line the model was not shown was set aside
    first_notes = {
        re.findall(r"^- \d\d:\d\d \[note\] (.*)$", b["messages"][-1]["content"], re.MULTILINE)[0]
        for b in rewrites
    }
    assert all(f": {text}" in new for text in first_notes)  # the additions applied


@pytest.mark.usefixtures("llama")
def test_the_whole_numbered_file_and_full_instructions_at_a_large_context(
    workspace: Workspace, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = small_week(workspace, clock, 32768)
    with FakeServer(Reply(openai_reply("NONE")), llamacpp=True) as srv:
        monkeypatch.setenv("TRINHO_BASE_URL", f"{srv.url}/v1")
        report = run_condensation(ws, channel=ConsoleChannel(ws.locale, io.StringIO()))
    (body,) = [s.body for s in srv.posts if s.path.endswith("/chat/completions")]
    assert report.prompts[0] == "rewrite.v2" and report.chunks == 1
    assert body["messages"][0]["content"].startswith("You maintain MEMORY.md")
    assert len(shown_lines(body["messages"][0]["content"])) == WEEK["memory"].count("\n")
    assert ws.memory_file.read_text(encoding="utf-8") == WEEK["memory"]
