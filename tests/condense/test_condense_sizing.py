"""Condensation sized for a real model: the part that does not fit is named, an edit script is
asked for in proportion to the notes, and a model that answered nothing usable is told once."""

from __future__ import annotations

import io

import pytest

from conftest import FixedClock
from support.condense_weeks import two_roles, vi_week
from trinho.channels import ConsoleChannel, Outbox
from trinho.condense import RunReport, run_condensation
from trinho.condense.rules.ops import OP_TOKENS, SCRIPT_SLACK_TOKENS, Script, unusable
from trinho.errors import TrinhoError
from trinho.models import ChatRequest, ScriptedModel
from trinho.notes.store import save_note
from trinho.workspace import Workspace, open_workspace


def with_config(ws: Workspace, clock: FixedClock, section: str) -> Workspace:
    config = ws.internal / "config.toml"
    config.write_text(config.read_text() + "\n" + section + "\n")
    return open_workspace(ws.root, clock)


def run(ws: Workspace, model: ScriptedModel, **kw: bool) -> RunReport:
    return run_condensation(ws, model=model, channel=ConsoleChannel(ws.locale, io.StringIO()), **kw)


def notices(ws: Workspace) -> list[str]:
    return sorted(e.notification.id for e in Outbox(ws).entries())


def test_a_context_the_instructions_fill_blames_the_instructions(
    workspace: Workspace, clock: FixedClock
) -> None:
    ws = with_config(workspace, clock, "[condense]\ncontext_tokens = 1024")
    vi_week(ws, clock)
    with pytest.raises(TrinhoError) as caught:
        run(ws, two_roles("NONE"))
    text = str(caught.value)
    assert caught.value.key == "condense.no_room_instructions"
    assert "the instructions take most of it" in text and "context_tokens = 1024" in text
    assert "(at most 921 used, 10% kept for the estimate's error)" in text
    params = caught.value.params
    assert params["instructions"] > params["memory"]  # type: ignore[operator]
    assert params["suggest"] > 1024  # type: ignore[operator]


def test_an_output_limit_too_small_for_any_script_names_the_limit_not_the_context(
    workspace: Workspace, clock: FixedClock
) -> None:
    ws = with_config(
        workspace, clock, "[condense]\ncontext_tokens = 8192\n[model]\nmax_output_tokens = 256"
    )
    vi_week(ws, clock)
    model = two_roles("NONE")
    with pytest.raises(TrinhoError) as caught:
        run(ws, model)
    text = str(caught.value)
    assert caught.value.key == "condense.no_room_output"
    assert "max_output_tokens = 256" in text and "context_tokens" not in text
    assert caught.value.params["needed"] > 256  # type: ignore[operator]
    assert not [r for r in model.requests if r.cache_prefix]  # refused before any call
    config = ws.internal / "config.toml"
    needed = caught.value.params["needed"]
    config.write_text(config.read_text().replace("= 256", f"= {needed}"))
    run(open_workspace(ws.root, clock), two_roles("NONE"))  # the limit it names is enough


def test_an_edit_script_is_asked_for_tens_of_tokens_a_note(
    workspace: Workspace, clock: FixedClock
) -> None:
    vi_week(workspace, clock)
    model = two_roles("NONE")
    run(workspace, model)
    (rewrite,) = [r for r in model.requests if r.cache_prefix]
    notes = rewrite.messages[-1].text.count("\n- ")
    assert rewrite.max_tokens <= SCRIPT_SLACK_TOKENS + OP_TOKENS * (notes + 1)
    assert rewrite.max_tokens < 1024


def test_unusable_scripts_are_told_apart_from_answers() -> None:
    assert unusable(Script(3)) == "empty"
    assert unusable(Script(3, chatter=2, samples=("Sure! Here is",))) == "chatter"
    assert unusable(Script(3, none=True)) is None
    assert unusable(Script(3, whole_file="# MEMORY\n")) is None
    assert unusable(None) is None


@pytest.mark.parametrize(("answer", "kind"), [("", "empty"), ("Tôi không hiểu.", "chatter")])
def test_a_run_the_model_answered_nothing_usable_tells_the_owner_once(
    workspace: Workspace, clock: FixedClock, answer: str, kind: str
) -> None:
    vi_week(workspace, clock)
    report = run(workspace, two_roles(answer))
    [notice] = [
        e for e in Outbox(workspace).entries() if e.notification.id.startswith("condense-unusable")
    ]
    assert notice.notification.id.endswith(f":{kind}")
    assert "trinho model check" in notice.notification.summary
    assert "scripted" in notice.notification.summary
    assert f"read {report.chunks} part of the week" in notice.notification.summary  # one chunk
    assert "trinho model check" in report.message
    # the next week fails the same way: nothing new is announced
    clock.set("2026-12-06T21:00:00+07:00")
    save_note(workspace, "Ghi chú tuần sau")
    run(workspace, two_roles(answer))
    assert len([n for n in notices(workspace) if n.startswith("condense-unusable")]) == 1


def test_a_vietnamese_owner_is_told_in_vietnamese(workspace: Workspace, clock: FixedClock) -> None:
    config = workspace.internal / "config.toml"
    config.write_text(config.read_text().replace('locale = "en"', 'locale = "vi"'))
    ws = open_workspace(workspace.root, clock)
    vi_week(ws, clock)
    run(ws, two_roles(""))
    [notice] = [
        e for e in Outbox(ws).entries() if e.notification.id.startswith("condense-unusable")
    ]
    assert "Hãy chạy `trinho model check`" in notice.notification.summary


def test_an_answer_with_an_operation_is_no_failure(workspace: Workspace, clock: FixedClock) -> None:
    vi_week(workspace, clock)

    def add(request: ChatRequest) -> str:
        return "ADD - 2026-11-29: Mai vào đội bơi của trường"

    run(workspace, two_roles(add))
    assert not [n for n in notices(workspace) if n.startswith("condense-unusable")]
