"""The chat agent against the scripted model: context, tool calls taking effect, transcript."""

from __future__ import annotations

import pytest

from trinho.conversations.agent import ChatSession, run_turn
from trinho.conversations.store import read_day
from trinho.models import ChatResponse, ModelError, ScriptedModel, ToolCall
from trinho.notes.store import read_notes
from trinho.tools.service import Actor
from trinho.workspace import Workspace


def save_call(text: str, call_id: str = "c1") -> ChatResponse:
    return ChatResponse("", (ToolCall(call_id, "memory_save", {"text": text}),))


def test_a_message_answered_with_memory_save_taking_effect(workspace: Workspace) -> None:
    (workspace.root / "MEMORY.md").write_text("- 2026-11-20: Chủ nhà thích trà sen\n", "utf-8")
    model = ScriptedModel([save_call("Mai đi Đà Lạt với mẹ"), "Đã ghi nhớ: mai đi Đà Lạt."])
    result = run_turn(workspace, model, "nhớ giùm: mai đi Đà Lạt với mẹ", actor=Actor("chat"))
    assert result.reply == "Đã ghi nhớ: mai đi Đà Lạt."
    assert [(u.name, u.is_error) for u in result.tool_uses] == [("memory_save", False)]
    entries = read_notes(workspace, workspace.today()).entries
    assert [(e.time, e.text) for e in entries] == [("14:05", "Mai đi Đà Lạt với mẹ")]
    first, second = model.requests
    assert first.messages[0].role == "system"
    assert "Chủ nhà thích trà sen" in first.messages[0].text
    assert first.messages[-1].text.endswith("nhớ giùm: mai đi Đà Lạt với mẹ")
    assert {t.name for t in first.tools} >= {"memory_save", "user_memory_save"}
    assert second.messages[-1].role == "tool"
    assert '"saved"' in second.messages[-1].text
    turns = [(s.turn.role, s.turn.text) for s in read_day(workspace, workspace.today())]
    assert turns == [
        ("user", "nhớ giùm: mai đi Đà Lạt với mẹ"),
        ("assistant", "Đã ghi nhớ: mai đi Đà Lạt."),
    ]


def test_todays_notes_come_before_the_opening_message(workspace: Workspace) -> None:
    model = ScriptedModel([save_call("Uống thuốc lúc 8 giờ"), "ok", "Bạn uống thuốc lúc 8 giờ."])
    session = ChatSession(workspace, model)
    session("nhớ: uống thuốc lúc 8 giờ")
    assert session("tôi uống thuốc lúc mấy giờ?") == "Bạn uống thuốc lúc 8 giờ."
    last = model.requests[-1]
    opening = last.messages[-1].text
    assert "Uống thuốc lúc 8 giờ" in opening
    assert opening.index("Uống thuốc lúc 8 giờ") < opening.index("tôi uống thuốc lúc mấy giờ?")
    history = [(m.role, m.text) for m in last.messages[1:-1]]
    assert history == [("user", "nhớ: uống thuốc lúc 8 giờ"), ("assistant", "ok")]


def test_tool_rounds_are_bounded(workspace: Workspace) -> None:
    model = ScriptedModel(lambda request: save_call("lặp") if request.tools else "Tôi dừng ở đây.")
    result = run_turn(workspace, model, "lặp đi", actor=Actor("chat"), max_rounds=3)
    assert result.reply == "Tôi dừng ở đây."
    assert result.model_calls == 4
    assert len(result.tool_uses) == 3
    assert model.requests[-1].tools == ()


def test_bad_tool_calls_go_back_to_the_model_as_errors(workspace: Workspace) -> None:
    broken = ChatResponse(
        "",
        (
            ToolCall("a", "memory_save", {}, error="arguments are not valid JSON"),
            ToolCall("b", "no_such_tool", {}),
            ToolCall("c", "memory_save", {"text": ""}),
        ),
    )
    model = ScriptedModel([broken, "xin lỗi"])
    result = run_turn(workspace, model, "x", actor=Actor("chat"))
    assert [u.is_error for u in result.tool_uses] == [True, True, True]
    assert "not valid JSON" in result.tool_uses[0].result
    assert "unknown tool" in result.tool_uses[1].result
    assert read_notes(workspace, workspace.today()).entries == []


def test_a_failing_model_keeps_the_owners_words(workspace: Workspace) -> None:
    model = ScriptedModel([])
    with pytest.raises(ModelError):
        ChatSession(workspace, model).ask("đừng quên điều này")
    turns = [(s.turn.role, s.turn.text) for s in read_day(workspace, workspace.today())]
    assert turns == [("user", "đừng quên điều này")]


def test_a_job_turn_is_not_recorded_as_conversation(workspace: Workspace) -> None:
    model = ScriptedModel(["không có gì mới"])
    run_turn(workspace, model, "job prompt", actor=Actor("job", "tidy"), record=False)
    assert read_day(workspace, workspace.today()) == []


def test_an_inference_in_chat_names_the_owners_message_it_quotes(workspace: Workspace) -> None:
    from trinho.facts import save_fact
    from trinho.proposals import store as proposals

    save_fact(workspace, "coffee", "black", basis="user", actor="chat")
    args = {
        "key": "coffee",
        "value": "flat white",
        "basis": "inferred",
        "why": "you ordered one",
        "quote": "Grabbed a flat white",
    }
    model = ScriptedModel([ChatResponse("", (ToolCall("c1", "user_memory_save", args),)), "ok"])
    run_turn(workspace, model, "Grabbed a flat white at the airport", actor=Actor("chat"))
    [p] = proposals.list_proposals(workspace).proposals
    assert p.origin == "agent:main" and p.why == "you ordered one"
    [source] = p.sources
    assert source.text == "Grabbed a flat white at the airport"
    assert source.ref == f"conversations/{workspace.today().isoformat()}.jsonl#1"
