"""The OpenAI-compatible adapter, through the real `openai` SDK over real HTTP to 127.0.0.1."""

from __future__ import annotations

import socket
from dataclasses import replace
from typing import Any

import openai
import pytest

from fake_model_server import FakeServer, Reply, error_body, openai_problem, openai_reply
from trinho.models import (
    ChatModel,
    ChatRequest,
    ModelError,
    ToolSpec,
    assistant,
    system,
    tool_result,
    user,
)
from trinho.models.base import ToolCall
from trinho.models.config import ModelSettings, resolve_model
from trinho.models.openai_compat import OpenAICompatModel
from trinho.workspace import Config

WEATHER = ToolSpec(
    "weather",
    "The weather in a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def settings_for(
    url: str,
    name: str = "openai:gpt-test",
    timeout: float = 5.0,
    env: dict[str, str] | None = None,
    cap: int = 4096,
) -> ModelSettings:
    model = {"base_url": url, "timeout": timeout, "attempts": 5, "backoff": 0.01}
    config = Config(raw={"model": {**model, "max_output_tokens": cap}})
    return resolve_model(config, {"TRINHO_MODEL": name, "OPENAI_API_KEY": "sk-test", **(env or {})})


def model_at(server: FakeServer, **kwargs: object) -> OpenAICompatModel:
    return OpenAICompatModel(settings_for(server.url + "/v1", **kwargs))  # type: ignore[arg-type]


def test_text_reply_and_usage_come_back_and_the_request_is_right() -> None:
    with FakeServer(Reply(openai_reply("Chào anh, đã ghi nhớ.", prompt=40, completion=9))) as srv:
        model = model_at(srv)
        response = model.chat(
            ChatRequest(
                (system("Be brief."), user("Nhớ giúp: mẹ thích hoa lan")),
                max_tokens=99,
                temperature=0.2,
            )
        )
    assert isinstance(model, ChatModel)
    assert model.name == "openai:gpt-test"
    assert response.text == "Chào anh, đã ghi nhớ."
    assert response.tool_calls == ()
    assert (response.usage.input_tokens, response.usage.output_tokens) == (40, 9)
    assert response.model == "served-model"
    assert response.stop_reason == "stop"
    (seen,) = srv.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == "Bearer sk-test"
    assert seen.body["model"] == "gpt-test"
    assert seen.body["max_completion_tokens"] == 99
    assert seen.body["temperature"] == 0.2
    assert seen.body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Nhớ giúp: mẹ thích hoa lan"},
    ]
    assert "tools" not in seen.body


def test_tool_calls_come_back_parsed_and_go_out_in_the_wire_shape() -> None:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "weather", "arguments": '{"city": "Đà Nẵng"}'},
    }
    with FakeServer(Reply(openai_reply(None, [call])), Reply(openai_reply("Trời nắng."))) as srv:
        model = model_at(srv)
        first = model.chat(ChatRequest((user("Thời tiết Đà Nẵng?"),), tools=(WEATHER,)))
        second = model.chat(
            ChatRequest(
                (
                    user("Thời tiết Đà Nẵng?"),
                    first.as_message(),
                    tool_result(first.tool_calls[0], "nắng, 31°C"),
                ),
                tools=(WEATHER,),
            )
        )
    assert first.text == ""
    assert first.tool_calls == (ToolCall("call_1", "weather", {"city": "Đà Nẵng"}),)
    assert first.stop_reason == "tool_calls"
    assert second.text == "Trời nắng."
    sent_tools = srv.requests[0].body["tools"]
    assert sent_tools == [
        {
            "type": "function",
            "function": {
                "name": "weather",
                "description": "The weather in a city",
                "parameters": dict(WEATHER.parameters),
            },
        }
    ]
    messages = srv.requests[1].body["messages"]
    assert messages[1]["role"] == "assistant"
    assert messages[1]["tool_calls"][0]["id"] == "call_1"
    assert messages[1]["tool_calls"][0]["function"]["name"] == "weather"
    assert '"Đà Nẵng"' in messages[1]["tool_calls"][0]["function"]["arguments"]
    assert messages[2] == {"role": "tool", "tool_call_id": "call_1", "content": "nắng, 31°C"}


def test_broken_tool_arguments_become_an_error_on_the_call_not_a_crash() -> None:
    call = {"id": "c", "type": "function", "function": {"name": "weather", "arguments": "{city"}}
    with FakeServer(Reply(openai_reply(None, [call]))) as srv:
        response = model_at(srv).chat(ChatRequest((user("?"),), tools=(WEATHER,)))
    (got,) = response.tool_calls
    assert got.arguments == {}
    assert got.error is not None and "not valid JSON" in got.error


def test_429_then_200_is_retried() -> None:
    with FakeServer(
        Reply(error_body("slow down"), status=429, headers={"retry-after": "0"}),
        Reply(openai_reply("ok")),
    ) as srv:
        response = model_at(srv).chat(ChatRequest((user("hi"),)))
    assert response.text == "ok"
    assert len(srv.requests) == 2


def test_500_five_times_gives_a_clear_error_after_five_attempts() -> None:
    with (
        FakeServer(Reply(error_body("boom"), status=500)) as srv,
        pytest.raises(ModelError) as info,
    ):
        model_at(srv).chat(ChatRequest((user("hi"),)))
    assert len(srv.requests) == 5
    assert info.value.kind == "server_error"
    message = str(info.value)
    assert "openai:gpt-test" in message
    assert "500" in message and "boom" in message and "5 attempts" in message


def test_a_timeout_gives_a_clear_error() -> None:
    with FakeServer(Reply(openai_reply("late"), delay=3.0)) as srv:
        settings = settings_for(srv.url + "/v1", timeout=0.2)
        settings = replace(settings, policy=replace(settings.policy, attempts=2))
        with pytest.raises(ModelError) as info:
            OpenAICompatModel(settings).chat(ChatRequest((user("hi"),)))
    assert info.value.kind == "timeout"
    assert "no answer from" in str(info.value) and "0.2 s" in str(info.value)
    assert len(srv.requests) == 2


def test_a_server_that_is_not_there_is_named_unreachable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = settings_for(f"http://127.0.0.1:{port}/v1")
    settings = replace(settings, policy=replace(settings.policy, attempts=2))
    with pytest.raises(ModelError) as info:
        OpenAICompatModel(settings).chat(ChatRequest((user("hi"),)))
    assert info.value.kind == "unreachable"
    assert f"cannot reach http://127.0.0.1:{port}/v1" in str(info.value)


@pytest.mark.parametrize(
    ("status", "kind", "words"),
    [
        (404, "unknown_model", "unknown model 'gpt-test'"),
        (401, "auth", "OPENAI_API_KEY"),
        (400, "bad_request", "rejected the request"),
    ],
)
def test_client_errors_are_not_retried_and_say_what_is_wrong(
    status: int, kind: str, words: str
) -> None:
    with (
        FakeServer(Reply(error_body("nope"), status=status)) as srv,
        pytest.raises(ModelError) as info,
    ):
        model_at(srv).chat(ChatRequest((user("hi"),)))
    assert len(srv.requests) == 1
    assert info.value.kind == kind
    assert words in str(info.value) and "nope" in str(info.value)


def test_ollama_follows_ollama_host_and_sends_max_tokens() -> None:
    with FakeServer(Reply(openai_reply("ok"))) as srv:
        host = srv.url.removeprefix("http://")
        settings = resolve_model(Config(), {"TRINHO_MODEL": "ollama:qwen3:8b", "OLLAMA_HOST": host})
        response = OpenAICompatModel(settings).chat(ChatRequest((user("hi"),), max_tokens=5))
    assert response.text == "ok"
    (seen,) = srv.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.body["model"] == "qwen3:8b"
    assert seen.body["max_tokens"] == 5
    assert "max_completion_tokens" not in seen.body


def test_assistant_text_alongside_tool_calls_is_kept() -> None:
    with FakeServer(Reply(openai_reply("fine"))) as srv:
        call = ToolCall("c1", "weather", {"city": "Huế"})
        model_at(srv).chat(
            ChatRequest((user("q"), assistant("Let me look.", [call]), tool_result("c1", "mưa")))
        )
    sent = srv.requests[0].body["messages"]
    assert sent[1]["content"] == "Let me look."
    assert sent[2]["tool_call_id"] == "c1"


@pytest.mark.parametrize(
    ("usage", "cached"),
    [
        ({}, 0),
        ({"prompt_tokens_details": None}, 0),
        ({"prompt_tokens_details": {}}, 0),
        ({"prompt_tokens_details": {"cached_tokens": None}}, 0),
        ({"prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0}}, 0),
        ({"prompt_tokens_details": {"cached_tokens": 1024}}, 1024),
    ],
)
def test_cached_tokens_are_read_where_the_server_reports_them(
    usage: dict[str, Any], cached: int
) -> None:
    body = openai_reply("ok", prompt=1500, completion=9)
    body["usage"].update(usage)
    with FakeServer(Reply(body)) as srv:
        got = model_at(srv).chat(ChatRequest((user("hi"),))).usage
    assert (got.input_tokens, got.output_tokens, got.cached_input_tokens) == (1500, 9, cached)


def test_max_tokens_never_exceeds_the_configured_cap() -> None:
    with FakeServer(Reply(openai_reply("ok"))) as srv:
        hosted = model_at(srv, cap=512)
        local = model_at(srv, name="vllm:qwen", cap=512)
        for asked in (100, 512, 513, 10**6):
            hosted.chat(ChatRequest((user("hi"),), max_tokens=asked))
            local.chat(ChatRequest((user("hi"),), max_tokens=asked))
    limits = [s.body.get("max_completion_tokens", s.body.get("max_tokens")) for s in srv.requests]
    assert limits == [100, 100, 512, 512, 512, 512, 512, 512]
    assert [("max_tokens" in s.body) for s in srv.requests] == [False, True] * 4


def test_a_cached_prefix_changes_nothing_on_the_wire() -> None:
    with FakeServer(Reply(openai_reply("ok"))) as srv:
        model = model_at(srv)
        prompt = (system("Rules."), system("MEMORY.md"), user("The week"))
        model.chat(ChatRequest(prompt, cache_prefix=True))
        model.chat(ChatRequest(prompt))
    marked, plain = srv.requests
    assert marked.body == plain.body


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ({"role": "user", "content": None}, "not null"),
        ({"role": "assistant", "content": None}, "not null"),
        ({"role": "system"}, "not null"),
        ({"role": "tool", "content": "x"}, "tool_call_id"),
        ({"role": "robot", "content": "x"}, "invalid message"),
        ({"role": "user", "content": 5}, "invalid content"),
    ],
)
def test_the_fake_refuses_what_a_chat_completions_server_refuses(
    message: dict[str, Any], words: str
) -> None:
    calls = [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    good: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "c", "content": "done"},
    ]
    assert openai_problem({"model": "m", "messages": good}) is None
    problem = openai_problem({"model": "m", "messages": [*good, message]})
    assert problem is not None and words in problem
    for body, why in (
        ({"model": "m", "messages": good, "cache_prefix": True}, "Unrecognized"),
        ({"model": "m", "messages": good, "max_tokens": 1, "max_completion_tokens": 1}, "both"),
        ({"model": "m", "messages": []}, "non-empty"),
    ):
        assert why in (openai_problem(body) or "")


def test_a_refused_body_is_a_400_through_the_sdk() -> None:
    messages: Any = [{"role": "user", "content": None}]
    with FakeServer(Reply(openai_reply("never"))) as srv:
        client = openai.OpenAI(base_url=srv.url + "/v1", api_key="k", max_retries=0)
        with pytest.raises(openai.BadRequestError) as info:
            client.chat.completions.create(model="m", messages=messages)
    assert srv.requests[0].body["messages"] == messages
    assert "not null" in str(info.value)
