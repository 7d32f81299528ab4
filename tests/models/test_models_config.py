"""Choosing a model: PROVIDER:MODEL, provider defaults, keys and the retry settings."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trinho import models
from trinho.config.files import parse_config
from trinho.errors import TrinhoError
from trinho.models.base import FailureKind, ModelError
from trinho.models.config import (
    HOSTED_POLICY,
    LOCAL_POLICY,
    MAX_OUTPUT_TOKENS,
    NO_KEY_NEEDED,
    OLLAMA_DEFAULT,
    PROVIDERS,
    is_loopback,
    max_output_tokens,
    ollama_base_url,
    output_cap,
    parse_model_name,
    resolve_model,
)
from trinho.workspace import Config, Workspace

model_names = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")), min_size=1
)


@given(st.sampled_from(sorted(PROVIDERS)), model_names)
def test_provider_and_model_split_at_the_first_colon(provider: str, model: str) -> None:
    assert parse_model_name(f"{provider}:{model}", "TRINHO_MODEL") == (provider, model)


@pytest.mark.parametrize("bad", ["gpt-4", "nope:gpt-4", "openai:", "openai:  ", ":x"])
def test_a_malformed_name_says_what_and_where(bad: str) -> None:
    with pytest.raises(ModelError) as info:
        parse_model_name(bad, "TRINHO_MODEL")
    assert info.value.kind == "not_configured"
    assert "TRINHO_MODEL" in str(info.value) and "PROVIDER:MODEL" in str(info.value)


@pytest.mark.parametrize(
    ("host", "url"),
    [
        (None, OLLAMA_DEFAULT),
        ("", OLLAMA_DEFAULT),
        ("0.0.0.0", "http://127.0.0.1:11434/v1"),
        ("0.0.0.0:9999", "http://127.0.0.1:9999/v1"),
        ("gpu-box", "http://gpu-box:11434/v1"),
        ("http://gpu-box:8000", "http://gpu-box:8000/v1"),
        ("https://ollama.example/v1/", "https://ollama.example:11434/v1"),
        ("[::1]:11500", "http://[::1]:11500/v1"),
    ],
)
def test_ollama_host_forms(host: str | None, url: str) -> None:
    assert ollama_base_url(host) == url


def test_trinho_model_wins_over_the_config() -> None:
    config = parse_config('[model]\nname = "ollama:qwen3:8b"\n', "cfg")
    assert resolve_model(config, {}).name == "ollama:qwen3:8b"
    chosen = resolve_model(config, {"TRINHO_MODEL": "lmstudio:gemma", "OLLAMA_HOST": "x"})
    assert (chosen.provider, chosen.model) == ("lmstudio", "gemma")
    assert chosen.base_url == "http://127.0.0.1:1234/v1"
    assert chosen.api_key == NO_KEY_NEEDED


def test_nothing_configured_says_how_to_configure() -> None:
    with pytest.raises(ModelError) as info:
        resolve_model(Config(), {})
    assert info.value.kind == "not_configured"
    assert "TRINHO_MODEL" in str(info.value) and "[model]" in str(info.value)


@pytest.mark.parametrize(
    ("name", "variable"),
    [
        ("openai:gpt-4.1-mini", "OPENAI_API_KEY"),
        ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
    ],
)
def test_a_missing_key_is_named(name: str, variable: str) -> None:
    with pytest.raises(ModelError) as info:
        resolve_model(Config(), {"TRINHO_MODEL": name})
    assert info.value.kind == "no_key"
    assert f"no API key: set {variable}" in str(info.value)


def test_the_sdk_variables_are_honoured() -> None:
    openai = resolve_model(
        Config(),
        {"TRINHO_MODEL": "openai:gpt-x", "OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://h/v1"},
    )
    assert openai.base_url is None  # the SDK reads OPENAI_BASE_URL itself
    assert openai.shown_url == "http://h/v1"
    assert (openai.api_key, openai.key_var) == ("k", "OPENAI_API_KEY")
    self_hosted = resolve_model(
        Config(), {"TRINHO_MODEL": "openai:m", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    )
    assert self_hosted.api_key == NO_KEY_NEEDED
    token = resolve_model(Config(), {"TRINHO_MODEL": "anthropic:c", "ANTHROPIC_AUTH_TOKEN": "t"})
    assert (token.api_key, token.key_var) == ("t", "ANTHROPIC_AUTH_TOKEN")
    assert token.shown_url == "https://api.anthropic.com"


def test_retry_settings_come_from_the_config() -> None:
    config = parse_config("[model]\ntimeout = 2.5\nattempts = 3\nbackoff = 0\n", "cfg")
    policy = resolve_model(config, {"TRINHO_MODEL": "ollama:m"}).policy
    assert (policy.timeout, policy.attempts, policy.backoff) == (2.5, 3, 0.0)
    assert not policy.retry_timeouts  # a local server's, whatever the numbers say
    hosted = resolve_model(config, {"TRINHO_MODEL": "openai:m", "OPENAI_API_KEY": "k"}).policy
    assert (hosted.timeout, hosted.attempts, hosted.retry_timeouts) == (2.5, 3, True)


@pytest.mark.parametrize(
    ("env", "local"),
    [
        ({"TRINHO_MODEL": "ollama:qwen3:8b"}, True),
        ({"TRINHO_MODEL": "llamacpp:m"}, True),
        ({"TRINHO_MODEL": "vllm:m", "TRINHO_BASE_URL": "http://gpu-box:8000/v1"}, True),
        ({"TRINHO_MODEL": "lmstudio:m"}, True),
        ({"TRINHO_MODEL": "openai:m", "OPENAI_API_KEY": "k"}, False),
        ({"TRINHO_MODEL": "openai:m", "OPENAI_BASE_URL": "http://localhost:8080/v1"}, True),
        ({"TRINHO_MODEL": "openai:m", "TRINHO_BASE_URL": "http://[::1]:8080/v1"}, True),
        ({"TRINHO_MODEL": "openai:m", "TRINHO_BASE_URL": "http://gpu-box:8080/v1"}, False),
        ({"TRINHO_MODEL": "anthropic:c", "ANTHROPIC_API_KEY": "k"}, False),
        (
            {
                "TRINHO_MODEL": "anthropic:c",
                "ANTHROPIC_BASE_URL": "http://127.0.0.2:4000",
                "ANTHROPIC_API_KEY": "k",
            },
            True,
        ),
    ],
)
def test_local_servers_wait_long_and_never_resend_a_request_that_timed_out(
    env: dict[str, str], local: bool
) -> None:
    policy = resolve_model(Config(), env).policy
    assert policy == (LOCAL_POLICY if local else HOSTED_POLICY)
    assert (policy.timeout, policy.attempts, policy.backoff) == (
        (600.0, 5, 1.0) if local else (120.0, 5, 0.5)
    )
    assert policy.retries("timeout") is not local
    retried: tuple[FailureKind, ...] = ("unreachable", "rate_limited", "server_error")
    final: tuple[FailureKind, ...] = ("context_exceeded", "bad_request", "auth", "unknown_model")
    assert all(policy.retries(kind) for kind in retried)
    assert not any(policy.retries(kind) for kind in final)
    assert policy.connect_timeout == 10.0


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://127.9.9.9/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://llm.localhost/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://0.0.0.0:8080", True),
        ("https://api.openai.com/v1", False),
        ("http://gpu-box:8000/v1", False),
        ("http://128.0.0.1/v1", False),
        ("http://[::2]/v1", False),
        ("not a url", False),
        ("http://[::1/v1", False),
    ],
)
def test_loopback_addresses(url: str, loopback: bool) -> None:
    assert is_loopback(url) is loopback


def test_trinho_base_url_wins_over_the_config_and_the_provider_default() -> None:
    config = parse_config('[model]\nbase_url = "http://127.0.0.1:8081/v1"\n', "cfg")
    env = {"TRINHO_MODEL": "llamacpp:m", "OLLAMA_HOST": "127.0.0.1:1"}
    assert resolve_model(Config(), env).base_url == "http://127.0.0.1:8080/v1"
    assert resolve_model(Config(), env).url_setting is None
    assert resolve_model(config, env).base_url == "http://127.0.0.1:8081/v1"
    assert resolve_model(config, env).url_setting == "[model] base_url (.trinho/config.toml)"
    chosen = resolve_model(config, {**env, "TRINHO_BASE_URL": " http://127.0.0.1:9090/v1 "})
    assert (chosen.base_url, chosen.shown_url) == ("http://127.0.0.1:9090/v1",) * 2
    assert chosen.url_setting == "TRINHO_BASE_URL"
    ollama = {"TRINHO_MODEL": "ollama:m", "OLLAMA_HOST": "127.0.0.1:1", "TRINHO_BASE_URL": "  "}
    assert resolve_model(Config(), ollama).base_url == "http://127.0.0.1:1/v1"
    assert resolve_model(Config(), ollama).url_setting == "OLLAMA_HOST"
    hosted = {"TRINHO_MODEL": "openai:m", "TRINHO_BASE_URL": "http://127.0.0.1:9/v1"}
    assert resolve_model(Config(), hosted).api_key == NO_KEY_NEEDED


@pytest.mark.parametrize(
    "line", ["timeout = 0", "attempts = 0", "attempts = 2.5", "backoff = -1", 'timeout = "x"']
)
def test_bad_retry_settings_name_the_key(line: str) -> None:
    with pytest.raises(TrinhoError) as info:
        parse_config(f"[model]\n{line}\n", "cfg")
    assert line.split(" ")[0] in str(info.value) and "[model]" in str(info.value)


def test_the_output_cap_defaults_and_comes_from_the_config(workspace: Workspace) -> None:
    assert output_cap(Config()) == MAX_OUTPUT_TOKENS == 4096
    assert max_output_tokens(workspace) == 4096
    assert models.max_output_tokens is max_output_tokens
    for value in (256, 100_000):
        config = parse_config(f"[model]\nmax_output_tokens = {value}\n", "cfg")
        assert output_cap(config) == value
        assert resolve_model(config, {"TRINHO_MODEL": "ollama:m"}).max_output_tokens == value
    assert resolve_model(Config(), {"TRINHO_MODEL": "ollama:m"}).max_output_tokens == 4096


@pytest.mark.parametrize("value", ["255", "0", "-1", "1024.0", '"4096"', "true"])
def test_a_bad_output_cap_is_a_clear_error_in_both_languages(value: str) -> None:
    with pytest.raises(TrinhoError) as info:
        parse_config(f"[model]\nmax_output_tokens = {value}\n", "cfg")
    assert info.value.key == "error.model.bad_whole"
    assert str(info.value) == (
        ".trinho/config.toml: [model] max_output_tokens must be a whole number >= 256"
    )
    assert info.value.localized("vi") == (
        ".trinho/config.toml: [model] max_output_tokens phải là số nguyên >= 256"
    )
