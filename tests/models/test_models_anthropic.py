"""The Anthropic adapter, through the real `anthropic` SDK over real HTTP to 127.0.0.1."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import anthropic
import pytest

from support.fake_model_server import (
    FakeServer,
    Reply,
    anthropic_problem,
    anthropic_reply,
    error_body,
)
from trinho.config import config_from
from trinho.models import ChatModel, ChatRequest, ModelError, ToolSpec, system, tool_result, user
from trinho.models.anthropic import AnthropicModel
from trinho.models.base import ToolCall
from trinho.models.config import ModelSettings, resolve_model

NOTE = ToolSpec(
    "memory_save",
    "Save a note",
    {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
)


def settings_for(
    url: str, timeout: float = 5.0, attempts: int = 5, cap: int = 4096
) -> ModelSettings:
    """Settings for the fake at `url`, with the hosted API's policy (the fake being on
    loopback would otherwise give it a local server's)."""
    model = {"timeout": timeout, "attempts": attempts, "backoff": 0.01, "max_output_tokens": cap}
    config = config_from({"model": model})
    env = {
        "TRINHO_MODEL": "anthropic:claude-test",
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "ANTHROPIC_BASE_URL": url,
    }
    settings = resolve_model(config, env)
    assert not settings.policy.retry_timeouts
    return replace(settings, base_url=url, policy=replace(settings.policy, retry_timeouts=True))


def test_text_reply_with_system_prompt_and_usage() -> None:
    with FakeServer(Reply(anthropic_reply([{"type": "text", "text": "Dạ, em nhớ rồi."}]))) as srv:
        model = AnthropicModel(settings_for(srv.url))
        response = model.chat(
            ChatRequest(
                (system("Bạn là trợ lý."), system("Be brief."), user("Nhớ: họp lúc 9h")),
                max_tokens=50,
                temperature=0.0,
            )
        )
    assert isinstance(model, ChatModel)
    assert response.text == "Dạ, em nhớ rồi."
    assert (response.usage.input_tokens, response.usage.output_tokens) == (21, 5)
    assert response.model == "claude-served"
    assert response.stop_reason == "end_turn"
    (seen,) = srv.requests
    assert seen.path == "/v1/messages"
    credentials = seen.headers.get("x-api-key", "") + seen.headers.get("authorization", "")
    assert "sk-ant-test" in credentials
    assert seen.body["model"] == "claude-test"
    assert seen.body["max_tokens"] == 50
    assert "temperature" not in seen.body
    assert seen.body["system"] == "Bạn là trợ lý.\n\nBe brief."
    assert seen.body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Nhớ: họp lúc 9h"}]}
    ]


def test_tool_use_comes_back_and_tool_results_go_out_in_a_user_turn() -> None:
    use = {"type": "tool_use", "id": "toolu_1", "name": "memory_save", "input": {"text": "mẹ"}}
    with FakeServer(
        Reply(anthropic_reply([{"type": "text", "text": "Saving."}, use], stop="tool_use")),
        Reply(anthropic_reply([{"type": "text", "text": "Done."}])),
    ) as srv:
        model = AnthropicModel(settings_for(srv.url))
        first = model.chat(ChatRequest((user("Nhớ: mẹ"),), tools=(NOTE,)))
        second = model.chat(
            ChatRequest(
                (
                    user("Nhớ: mẹ"),
                    first.as_message(),
                    tool_result(first.tool_calls[0], "saved"),
                    user("Thanks"),
                ),
                tools=(NOTE,),
            )
        )
    assert first.text == "Saving."
    assert first.tool_calls == (ToolCall("toolu_1", "memory_save", {"text": "mẹ"}),)
    assert first.stop_reason == "tool_use"
    assert second.text == "Done."
    assert srv.requests[0].body["tools"] == [
        {"name": "memory_save", "description": "Save a note", "input_schema": dict(NOTE.parameters)}
    ]
    turns = srv.requests[1].body["messages"]
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    assert turns[1]["content"] == [{"type": "text", "text": "Saving."}, use]
    assert turns[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "saved"},
        {"type": "text", "text": "Thanks"},
    ]


def test_429_then_200_is_retried() -> None:
    with FakeServer(
        Reply(error_body("rate"), status=429),
        Reply(anthropic_reply([{"type": "text", "text": "ok"}])),
    ) as srv:
        response = AnthropicModel(settings_for(srv.url)).chat(ChatRequest((user("hi"),)))
    assert response.text == "ok"
    assert len(srv.requests) == 2


def test_500_five_times_gives_a_clear_error() -> None:
    with (
        FakeServer(Reply(error_body("overloaded"), status=500)) as srv,
        pytest.raises(ModelError) as info,
    ):
        AnthropicModel(settings_for(srv.url)).chat(ChatRequest((user("hi"),)))
    assert len(srv.requests) == 5
    assert info.value.kind == "server_error"
    message = str(info.value)
    assert "anthropic:claude-test" in message
    assert "500" in message and "overloaded" in message and "5 attempts" in message


def test_a_timeout_gives_a_clear_error() -> None:
    reply = Reply(anthropic_reply([{"type": "text", "text": "late"}]), delay=3.0)
    with FakeServer(reply) as srv:
        model = AnthropicModel(settings_for(srv.url, timeout=0.2, attempts=2))
        with pytest.raises(ModelError) as info:
            model.chat(ChatRequest((user("hi"),)))
    assert info.value.kind == "timeout"
    assert "no answer from" in str(info.value) and "2 attempts" in str(info.value)
    assert len(srv.requests) == 2


def test_unknown_model_is_named() -> None:
    with (
        FakeServer(Reply(error_body("model: claude-test"), status=404)) as srv,
        pytest.raises(ModelError) as info,
    ):
        AnthropicModel(settings_for(srv.url)).chat(ChatRequest((user("hi"),)))
    assert info.value.kind == "unknown_model"
    assert "unknown model 'claude-test'" in str(info.value)
    assert len(srv.requests) == 1


def test_a_cached_prefix_marks_the_system_block_and_nothing_else() -> None:
    with FakeServer(Reply(anthropic_reply([{"type": "text", "text": "ok"}]))) as srv:
        model = AnthropicModel(settings_for(srv.url))
        prompt = (system("Rules."), system("MEMORY.md"), user("The week"))
        model.chat(ChatRequest(prompt, cache_prefix=True))
        model.chat(ChatRequest(prompt))
        model.chat(ChatRequest((user("no system"),), cache_prefix=True))
    marked, plain, bare = (seen.body for seen in srv.requests)
    assert marked["system"] == [
        {"type": "text", "text": "Rules.\n\nMEMORY.md", "cache_control": {"type": "ephemeral"}}
    ]
    assert plain["system"] == "Rules.\n\nMEMORY.md"
    assert "system" not in bare
    assert {k: v for k, v in marked.items() if k != "system"} == {
        k: v for k, v in plain.items() if k != "system"
    }
    assert "cache_control" not in str(marked["messages"])


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({}, (21, 5, 0)),
        ({"cache_creation_input_tokens": None, "cache_read_input_tokens": None}, (21, 5, 0)),
        ({"cache_creation_input_tokens": 1500, "cache_read_input_tokens": 0}, (1521, 5, 0)),
        ({"cache_creation_input_tokens": 0, "cache_read_input_tokens": 1500}, (1521, 5, 1500)),
        ({"cache_creation_input_tokens": 40, "cache_read_input_tokens": 900}, (961, 5, 900)),
    ],
)
def test_cached_tokens_count_in_the_input_and_reads_are_the_cached_part(
    usage: dict[str, int | None], expected: tuple[int, int, int]
) -> None:
    body = anthropic_reply([{"type": "text", "text": "ok"}], usage=usage)
    with FakeServer(Reply(body)) as srv:
        got = AnthropicModel(settings_for(srv.url)).chat(ChatRequest((user("hi"),))).usage
    assert (got.input_tokens, got.output_tokens, got.cached_input_tokens) == expected


def test_max_tokens_never_exceeds_the_configured_cap() -> None:
    with FakeServer(Reply(anthropic_reply([{"type": "text", "text": "ok"}]))) as srv:
        model = AnthropicModel(settings_for(srv.url, cap=300))
        for asked in (50, 300, 301, 100_000):
            model.chat(ChatRequest((user("hi"),), max_tokens=asked))
    assert [seen.body["max_tokens"] for seen in srv.requests] == [50, 300, 300, 300]


TEXT = {"type": "text", "text": "Rules."}
USER = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"system": [{**TEXT, "cache": True}]}, "text.cache: Extra inputs"),
        ({"system": [{**TEXT, "cache_control": {"type": "persistent"}}]}, "cache_control"),
        ({"system": [{**TEXT, "cache_control": {"type": "ephemeral", "ttl": "1d"}}]}, "ttl"),
        ({"system": [{"type": "image", "source": {}}]}, "only text blocks"),
        ({"system": [{"type": "text", "text": ""}]}, "non-empty"),
        ({"system": [{**TEXT, "cache_control": {"type": "ephemeral"}}] * 5}, "maximum of 4"),
        ({"temperature_": 1}, "temperature_: Extra inputs"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"messages": []}, "at least one message"),
        ({"messages": [{"role": "system", "content": "x"}]}, "invalid message"),
        ({"messages": [{"role": "user", "content": [{**TEXT, "id": 1}]}]}, "text.id: Extra"),
    ],
)
def test_the_fake_refuses_what_the_messages_api_refuses(body: dict[str, Any], words: str) -> None:
    base: dict[str, Any] = {"model": "c", "max_tokens": 10, "messages": USER}
    assert anthropic_problem(base) is None
    ephemeral = {**TEXT, "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    assert anthropic_problem({**base, "system": [ephemeral]}) is None
    problem = anthropic_problem({**base, **body})
    assert problem is not None and words in problem


def test_a_refused_body_is_a_400_through_the_sdk() -> None:
    blocks: Any = [{"type": "text", "text": "x", "cache": True}]
    with FakeServer(Reply(anthropic_reply([{"type": "text", "text": "never"}]))) as srv:
        client = anthropic.Anthropic(base_url=srv.url, api_key="k", max_retries=0)
        with pytest.raises(anthropic.BadRequestError) as info:
            client.messages.create(
                model="c",
                max_tokens=10,
                messages=[{"role": "user", "content": "hi"}],
                system=blocks,
            )
    assert "system" in str(srv.requests[0].body) and "Extra inputs" in str(info.value)
