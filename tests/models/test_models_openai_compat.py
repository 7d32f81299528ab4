"""The OpenAI-compatible adapter, through the real `openai` SDK over real HTTP to 127.0.0.1."""

from __future__ import annotations

import socket
from dataclasses import replace
from typing import Any

import httpx2
import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.fake_model_server import (
    FakeServer,
    Reply,
    error_body,
    llamacpp_error,
    openai_problem,
    openai_refusal,
    openai_reply,
    prompt_tokens,
)
from trinho.config import config_from
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
from trinho.models.base import Message, ToolCall
from trinho.models.config import ModelSettings, resolve_model
from trinho.models.openai_compat import OpenAICompatModel, to_openai_request
from trinho.models.retry import RetryPolicy
from trinho.models.sdk_errors import (
    MAX_SAID_CHARS,
    classify,
    first_line,
    server_said,
    status_failure,
)
from trinho.workspace import CONFIG_PATH, Config

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
    config = config_from({"model": {**model, "max_output_tokens": cap}})
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
    assert len(srv.posts) == 2


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


def test_a_local_server_that_does_not_answer_in_time_is_not_asked_again() -> None:
    with FakeServer(Reply(openai_reply("late"), delay=3.0)) as srv:
        settings = settings_for(srv.url + "/v1", name="llamacpp:qwen", timeout=0.2)
        with pytest.raises(ModelError) as info:
            OpenAICompatModel(settings).chat(ChatRequest((user("hi"),)))
    assert info.value.kind == "timeout" and info.value.attempts == 1
    assert str(info.value) == (
        f"model llamacpp:qwen: no answer from {srv.url}/v1 within 0.2 s: "
        "raise [model] timeout in .trinho/config.toml"
    )
    assert info.value.localized("vi") == (
        f"mô hình llamacpp:qwen: {srv.url}/v1 không trả lời trong 0.2 giây: "
        "hãy tăng [model] timeout trong .trinho/config.toml"
    )
    assert len(srv.posts) == 1


def test_a_hosted_api_that_does_not_answer_in_time_is_asked_again() -> None:
    with FakeServer(Reply(openai_reply("late"), delay=3.0)) as srv:
        settings = settings_for(srv.url + "/v1", timeout=0.2)
        hosted = replace(settings.policy, attempts=2, retry_timeouts=True)
        with pytest.raises(ModelError) as info:
            OpenAICompatModel(replace(settings, policy=hosted)).chat(ChatRequest((user("hi"),)))
    assert info.value.kind == "timeout"
    assert "no answer from" in str(info.value) and "(after 2 attempts)" in str(info.value)
    assert len(srv.posts) == 2


def test_a_server_that_is_not_there_is_named_unreachable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = settings_for(f"http://127.0.0.1:{port}/v1")
    settings = replace(settings, policy=replace(settings.policy, attempts=2))
    with pytest.raises(ModelError) as info:
        OpenAICompatModel(settings).chat(ChatRequest((user("hi"),)))
    assert info.value.kind == "unreachable" and info.value.attempts == 2
    assert f"cannot reach http://127.0.0.1:{port}/v1: is the server running? " in str(info.value)
    assert f"([model] base_url ({CONFIG_PATH}) names this address)" in str(info.value)


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


CALL = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
GOOD: list[dict[str, Any]] = [
    {"role": "system", "content": "rules"},
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "", "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "c", "content": "done"},
    {"role": "assistant", "content": "ok"},
    {"role": "user", "content": [{"type": "text", "text": "parts"}]},
]


def calling(content: str | None = "", **call: object) -> dict[str, Any]:
    """An assistant turn with one tool call, `CALL` changed by `call`."""
    return {"role": "assistant", "content": content, "tool_calls": [{**CALL, **call}]}


@pytest.mark.parametrize(
    ("message", "status", "words"),
    [
        ({"role": "user", "content": None}, 500, "messages.6.content\n  Input should be a valid"),
        (calling(None, id="d"), 500, "messages.6.content\n  Input should be a valid string"),
        ({"role": "system"}, 500, "messages.6.content"),
        ({"role": "system", "content": [{"type": "text", "text": "x"}]}, 400, "valid string"),
        ({"role": "user", "content": 5}, 400, "valid string"),
        ({"role": "user", "content": [{"type": "image_url"}]}, 400, "valid string"),
        ({"role": "robot", "content": "x"}, 400, "messages.6.role"),
        ({"role": "tool", "content": "x"}, 400, "messages.6.tool_call_id"),
        ({"role": "tool", "tool_call_id": "c", "content": "x"}, 400, "must be a response"),
        ({"role": "assistant", "content": "", "tool_calls": []}, 400, "at least 1 item"),
        (calling(id=""), 400, "messages.6.tool_calls.0.id"),
        (calling(type="x"), 400, "messages.6.tool_calls.0.type"),
        (calling(function={"arguments": "{}"}), 400, ".0.function.name"),
        (calling(function={"name": "f", "arguments": {}}), 400, ".0.function.arguments"),
        (calling(function={"name": "f", "arguments": "[1]"}), 400, ".0.function.arguments"),
        (calling(id="e"), 400, "did not have response messages: e"),
    ],
)
def test_the_fake_refuses_what_llama_cpp_vllm_or_openai_refuse(
    message: dict[str, Any], status: int, words: str
) -> None:
    assert openai_refusal({"model": "m", "messages": GOOD}) is None
    refused = openai_refusal({"model": "m", "messages": [*GOOD, message]})
    assert refused is not None and refused.status == status and words in refused.message


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"model": "m", "messages": GOOD, "cache_prefix": True}, "Unrecognized"),
        ({"model": "m", "messages": GOOD, "max_tokens": 1, "max_completion_tokens": 1}, "both"),
        ({"model": "m", "messages": []}, "non-empty"),
        ({"model": "m", "messages": [*GOOD[:3], GOOD[1]]}, "did not have response messages: c"),
        ({"model": "m", "messages": GOOD, "tools": [{"type": "function", "function": {}}]}, "name"),
    ],
)
def test_the_fake_refuses_bodies_the_servers_refuse(body: dict[str, Any], words: str) -> None:
    assert words in (openai_problem(body) or "")


def test_the_fake_refuses_a_pattern_llama_cpp_cannot_turn_into_a_grammar() -> None:
    def body(pattern: str) -> dict[str, Any]:
        schema = {"type": "object", "properties": {"d": {"type": "string", "pattern": pattern}}}
        tool = {"type": "function", "function": {"name": "f", "parameters": schema}}
        return {"model": "m", "messages": GOOD[:2], "tools": [tool]}

    for fine in ("^[0-9]{4}$", "^a[.]b$", r"^a\.b$", r"^\(x\)$", r"\\", r"\n"):
        assert openai_refusal(body(fine)) is None, fine
    for bad, rest in ((r"^\d{4}$", r"\d{4}$"), (r"a\w", r"\w"), (r"a\sb", r"\sb"), ("a\\", "\\")):
        refused = openai_refusal(body(bad))
        assert refused is not None and refused.status == 500
        assert refused.message.endswith(f"unknown escape at {rest}")


def test_the_fake_refuses_a_prompt_that_does_not_fit_its_context() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "x" * 400}], "max_tokens": 50}
    assert prompt_tokens(body) == 104
    assert openai_refusal(body, context_tokens=154) is None
    refused = openai_refusal(body, context_tokens=153)
    assert refused is not None and refused.status == 400
    assert refused.message.startswith(
        "This model's maximum context length is 153 tokens. However, you requested 154 tokens "
        "(104 in the messages, 50 in the completion)."
    )


def test_a_refused_body_comes_through_the_sdk_with_the_servers_status_and_words() -> None:
    messages: Any = [{"role": "user", "content": None}]
    with FakeServer(Reply(openai_reply("never"))) as srv:
        client = openai.OpenAI(base_url=srv.url + "/v1", api_key="k", max_retries=0)
        with pytest.raises(openai.InternalServerError) as info:
            client.chat.completions.create(model="m", messages=messages)
    assert srv.requests[0].body["messages"] == messages
    assert info.value.status_code == 500
    assert "500 - 1 validation error for ChatCompletionRequest\nmessages.0.content\n" in str(
        info.value
    )


# ---- what we send is what the strictest servers accept -----------------------------------------

texts = st.text(max_size=40)
arguments = st.dictionaries(
    st.text(max_size=8), st.none() | st.booleans() | st.integers() | texts, max_size=3
)


@st.composite
def conversations(draw: st.DrawFn) -> tuple[Message, ...]:
    """A system prompt, then user turns each answered by text or by tool calls and results."""
    messages: list[Message] = [system(draw(texts))] if draw(st.booleans()) else []
    for turn in range(draw(st.integers(1, 4))):
        messages.append(user(draw(texts)))
        for round_ in range(draw(st.integers(0, 2))):
            calls = [
                ToolCall(f"call_{turn}_{round_}_{n}", draw(st.sampled_from(["a", "b"])), args)
                for n, args in enumerate(draw(st.lists(arguments, min_size=1, max_size=3)))
            ]
            messages.append(assistant(draw(texts), calls))
            messages += [tool_result(call, draw(texts)) for call in calls]
        messages.append(assistant(draw(texts)))
    return tuple(messages)


@given(conversations(), st.sampled_from(["openai:m", "llamacpp:m", "ollama:m"]))
def test_every_conversation_we_send_is_accepted_by_the_strict_fake(
    messages: tuple[Message, ...], name: str
) -> None:
    body = to_openai_request(
        ChatRequest(messages, tools=(WEATHER,)), settings_for("http://127.0.0.1:9/v1", name)
    )
    assert openai_refusal(body) is None
    assert all(isinstance(m["content"], str) for m in body["messages"])


def test_an_assistant_turn_of_tool_calls_only_goes_out_with_empty_text() -> None:
    call = ToolCall("c1", "weather", {"city": "Huế"})
    with FakeServer(Reply(openai_reply("Mưa."))) as srv:
        model_at(srv, name="llamacpp:qwen").chat(
            ChatRequest((user("q"), assistant("", [call]), tool_result(call, "mưa")))
        )
    sent = srv.requests[0].body["messages"][1]
    assert sent["content"] == "" and sent["tool_calls"][0]["id"] == "c1"


def test_a_server_that_names_no_call_ids_still_gets_each_call_answered() -> None:
    calls = [
        {"type": "function", "function": {"name": "weather", "arguments": {"city": "Huế"}}},
        {"id": "", "type": "function", "function": {"name": "weather", "arguments": "{}"}},
    ]
    with FakeServer(Reply(openai_reply(None, calls)), Reply(openai_reply("ok"))) as srv:
        model = model_at(srv, name="ollama:m")
        first = model.chat(ChatRequest((user("q"),), tools=(WEATHER,)))
        model.chat(
            ChatRequest(
                (user("q"), first.as_message(), *(tool_result(c, "x") for c in first.tool_calls))
            )
        )
    assert [(c.id, dict(c.arguments)) for c in first.tool_calls] == [
        ("call_1", {"city": "Huế"}),
        ("call_2", {}),
    ]
    assert [m.get("tool_call_id") for m in srv.requests[1].body["messages"]] == [
        None,
        None,
        "call_1",
        "call_2",
    ]


# ---- what a server says, in one line ------------------------------------------------------

PYDANTIC_DUMP = (
    "1 validation error for ChatCompletionRequest\n"
    "messages.1.content\n"
    "  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]\n"
    "    For further information visit https://errors.pydantic.dev/2.11/v/string_type"
)


def test_a_multi_line_validation_error_is_one_line_in_the_owners_locale_and_not_retried() -> None:
    with FakeServer(llamacpp_error(PYDANTIC_DUMP, 500)) as srv, pytest.raises(ModelError) as info:
        model_at(srv, name="llamacpp:qwen").chat(ChatRequest((user("hi"),)))
    assert len(srv.requests) == 1
    assert info.value.kind == "bad_request"
    assert str(info.value) == (
        f"model llamacpp:qwen: {srv.url}/v1 rejected the request (500): "
        "messages.1.content: Input should be a valid string"
    )
    assert info.value.localized("vi") == (
        f"mô hình llamacpp:qwen: {srv.url}/v1 từ chối yêu cầu (500): "
        "messages.1.content: Input should be a valid string"
    )


def test_a_prompt_longer_than_the_servers_context_names_the_settings_to_change() -> None:
    long = user("chữ " * 400)
    with (
        FakeServer(Reply(openai_reply("never")), context_tokens=1000) as srv,
        pytest.raises(ModelError) as info,
    ):
        model_at(srv, name="vllm:qwen").chat(ChatRequest((long,), max_tokens=512))
    assert len(srv.requests) == 1
    assert info.value.kind == "context_exceeded"
    message = str(info.value)
    assert "(400): This model's maximum context length is 1000 tokens." in message
    assert (
        "lower [condense] context_tokens or [model] max_output_tokens in .trinho/config.toml"
        in (message)
    )
    assert "\n" not in message
    assert "hãy giảm [condense] context_tokens" in info.value.localized("vi")


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (400, "the request exceeds the available context size, try increasing it"),
        (500, "the request exceeds the available context size, try increasing it"),
        (400, "This model's maximum context length is 2048 tokens. However, you requested 2100"),
        (400, "Trying to keep the first 5000 tokens when context the overflows. However, the "
              "model is loaded with context length of only 4096 tokens"),
        (400, "prompt is too long: 210000 tokens > 200000 maximum"),
    ],
)  # fmt: skip
def test_every_servers_way_of_saying_the_context_is_full_is_understood(
    status: int, said: str
) -> None:
    failure = status_failure(status, said, settings_for("http://127.0.0.1:9/v1"), {})
    assert failure.kind == "context_exceeded" and "[condense] context_tokens" in failure.detail
    assert not RetryPolicy().retries(failure.kind)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"message": PYDANTIC_DUMP}, "messages.1.content: Input should be a valid string"),
        ({"error": {"message": "boom\n\n  at line 3"}}, "boom"),
        ({"error": "model 'x' not found"}, "model 'x' not found"),
        ({"detail": "Not Found"}, "Not Found"),
        ({"detail": [{"loc": ["body", "messages", 0], "msg": "Field required"}]},
         "body.messages.0: Field required"),
        ("\n\nInternal Server Error\n", "Internal Server Error"),
        ({"error": {"code": 500}}, ""),
        (None, ""),
        ("x" * 500, "x" * (MAX_SAID_CHARS - 1) + "…"),
    ],
)  # fmt: skip
def test_a_servers_words_become_one_bounded_line(body: object, said: str) -> None:
    assert server_said(body) == said


@given(st.text())
def test_whatever_a_server_says_is_quoted_in_one_bounded_line(text: str) -> None:
    said = first_line(text)
    assert len(said) <= MAX_SAID_CHARS
    assert not any(c in said for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
    assert said == first_line(said)


def test_a_connection_that_times_out_is_unreachable_and_retried() -> None:
    request = httpx2.Request("POST", "http://gpu-box:8000/v1/chat/completions")
    settings = settings_for("http://gpu-box:8000/v1", name="vllm:qwen")
    classify_error = classify(openai, openai.OpenAIError, settings)
    connect = openai.APITimeoutError(request=request)
    connect.__cause__ = httpx2.ConnectTimeout("timed out")
    read = openai.APITimeoutError(request=request)
    read.__cause__ = httpx2.ReadTimeout("timed out")
    assert (failure := classify_error(connect)) is not None and failure.kind == "unreachable"
    assert "([model] base_url (.trinho/config.toml) names this address)" in failure.detail
    assert settings.policy.retries(failure.kind)
    assert (failure := classify_error(read)) is not None and failure.kind == "timeout"
    assert not settings.policy.retries(failure.kind)


def test_the_models_a_server_lists_are_read() -> None:
    with FakeServer(Reply(openai_reply("ok")), models=["qwen3:8b", "gemma3"]) as srv:
        assert model_at(srv, name="ollama:qwen3:8b").served_models() == ("qwen3:8b", "gemma3")
    (seen,) = srv.requests
    assert (seen.method, seen.path) == ("GET", "/v1/models")
    with FakeServer(Reply(openai_reply("ok"))) as srv, pytest.raises(ModelError) as info:
        model_at(srv, name="ollama:qwen3:8b").served_models()
    assert info.value.kind == "unknown_model" and len(srv.requests) == 1
