"""The scripted model: replies in order or from a function, usage counted, same Protocol."""

from __future__ import annotations

import pytest

from trinho.context.budget import estimate_tokens
from trinho.models import ChatModel, ChatRequest, ChatResponse, ModelError, ScriptedModel, Usage
from trinho.models.base import ToolCall, user


def test_replies_come_in_order_and_usage_adds_up() -> None:
    canned = ChatResponse("", (ToolCall("c1", "memory_save", {"text": "x"}),), Usage(10, 3))
    model = ScriptedModel(["NHẬN", canned], name="scripted:demo")
    assert isinstance(model, ChatModel)
    first = model.chat(ChatRequest((user("a" * 30),), max_tokens=7))
    second = model.chat(ChatRequest((user("b"),)))
    assert first.text == "NHẬN"
    assert first.usage == Usage(10, estimate_tokens("NHẬN"))
    assert first.model == "scripted:demo"
    assert second is canned
    assert model.usage == first.usage + canned.usage
    assert [r.messages[0].text for r in model.requests] == ["a" * 30, "b"]
    assert model.remaining == 0


def test_running_out_of_replies_is_a_clear_error() -> None:
    model = ScriptedModel(["only one"])
    model.chat(ChatRequest((user("1"),)))
    with pytest.raises(ModelError) as info:
        model.chat(ChatRequest((user("2"),)))
    assert info.value.kind == "exhausted"
    assert "no scripted reply left for call 2" in str(info.value)


def test_replies_chosen_by_a_function_of_the_request() -> None:
    def screen(request: ChatRequest) -> str:
        line = request.messages[-1].text
        return "ACCEPT" if "mẹ" in line else "REJECT: chatter"

    model = ScriptedModel(screen)
    answers = [model.chat(ChatRequest((user(t),))).text for t in ("sinh nhật mẹ", "as an AI")]
    assert answers == ["ACCEPT", "REJECT: chatter"]
    assert len(model.requests) == 2
    assert model.usage.total_tokens > 0


def test_a_request_needs_a_message_and_a_positive_limit() -> None:
    with pytest.raises(ValueError):
        ChatRequest(())
    with pytest.raises(ValueError):
        ChatRequest((user("x"),), max_tokens=0)


def test_the_requests_are_kept_as_asked_so_tests_can_check_their_limits() -> None:
    model = ScriptedModel(["ok", "ok"])
    model.chat(ChatRequest((user("a"),), max_tokens=300, cache_prefix=True))
    model.chat(ChatRequest((user("b"),)))
    assert [(r.max_tokens, r.cache_prefix) for r in model.requests] == [(300, True), (1024, False)]


def test_cached_input_tokens_add_up() -> None:
    assert Usage(10, 2, 4) + Usage(5, 1) + Usage(3, 0, 3) == Usage(18, 3, 7)
    assert Usage(10, 2, 4).total_tokens == 12
