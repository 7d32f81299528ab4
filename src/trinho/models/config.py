"""Which model to use and how to reach it: `PROVIDER:MODEL` from TRINHO_MODEL or the config.

Pure functions over the config and an environment mapping, so every rule here is testable
without a network or a vendor SDK. The SDKs' own variables (OPENAI_API_KEY, OPENAI_BASE_URL,
ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL) are read by the SDKs as usual.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from trinho.errors import TrinhoError
from trinho.models.base import ModelError
from trinho.models.retry import RetryPolicy
from trinho.workspace import CONFIG_PATH, Config, Workspace

Api = Literal["openai", "anthropic"]

OLLAMA_DEFAULT = "http://127.0.0.1:11434/v1"
MAX_OUTPUT_TOKENS = 4096
"""`[model] max_output_tokens` when unset: the most tokens any one answer may be asked for."""
MIN_OUTPUT_TOKENS = 256
NO_KEY_NEEDED = "not-needed"
"""Sent as the API key to local servers, which ignore it (the SDK insists on one)."""


@dataclass(frozen=True)
class Provider:
    api: Api
    default_base_url: str | None
    key_vars: tuple[str, ...]
    """Environment variables holding the key; empty when the server needs none."""


PROVIDERS: dict[str, Provider] = {
    "openai": Provider("openai", None, ("OPENAI_API_KEY",)),
    "ollama": Provider("openai", OLLAMA_DEFAULT, ()),
    "llamacpp": Provider("openai", "http://127.0.0.1:8080/v1", ()),
    "vllm": Provider("openai", "http://127.0.0.1:8000/v1", ()),
    "lmstudio": Provider("openai", "http://127.0.0.1:1234/v1", ()),
    "anthropic": Provider("anthropic", None, ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")),
}

SDK_BASE_VARS: dict[Api, str] = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
SDK_DEFAULT_URLS: dict[Api, str] = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}


@dataclass(frozen=True)
class ModelSettings:
    """Everything an adapter needs. `base_url` None lets the SDK use its own default/env var."""

    provider: str
    model: str
    api: Api
    base_url: str | None
    api_key: str | None
    key_var: str | None
    """The environment variable the key came from (None: placeholder for a local server)."""
    policy: RetryPolicy
    shown_url: str
    """Where requests go, for messages: the base URL or the SDK's default."""
    max_output_tokens: int = MAX_OUTPUT_TOKENS
    """The cap on every request's `max_tokens`, whoever built the request."""

    @property
    def name(self) -> str:
        return f"{self.provider}:{self.model}"


def parse_model_name(value: str, where: str) -> tuple[str, str]:
    """Split `PROVIDER:MODEL` at the first colon (`ollama:qwen3:8b` keeps `qwen3:8b`)."""
    provider, sep, model = value.strip().partition(":")
    if not sep or not model.strip() or provider not in PROVIDERS:
        known = ", ".join(PROVIDERS)
        raise ModelError.failed(
            value, "not_configured", "error.model.bad_name", where=where, value=value, known=known
        )
    return provider, model.strip()


def ollama_base_url(host: str | None) -> str:
    """The /v1 URL for OLLAMA_HOST (`host`, `host:port`, `http://host:port`), or the default."""
    if not host or not host.strip():
        return OLLAMA_DEFAULT
    text = host.strip()
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)
    hostname = parts.hostname or "127.0.0.1"
    if hostname in ("0.0.0.0", "::"):
        hostname = "127.0.0.1"
    if ":" in hostname:
        hostname = f"[{hostname}]"
    port = parts.port or 11434
    path = parts.path.rstrip("/")
    if not path.endswith("/v1"):
        path += "/v1"
    return f"{parts.scheme}://{hostname}:{port}{path}"


def _number(section: Mapping[str, object], key: str, default: float, minimum: float) -> float:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < minimum:
        raise TrinhoError.keyed(
            "error.model.bad_number", config=CONFIG_PATH, name=key, minimum=minimum
        )
    return float(value)


def _whole(section: Mapping[str, object], key: str, default: int, minimum: int) -> int:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise TrinhoError.keyed(
            "error.model.bad_whole", config=CONFIG_PATH, name=key, minimum=minimum
        )
    return value


def retry_policy(config: Config) -> RetryPolicy:
    """`[model] timeout` (seconds per request), `attempts` (in all), `backoff` (seconds)."""
    section = config.section("model")
    return RetryPolicy(
        timeout=_number(section, "timeout", 60.0, 0.001),
        attempts=_whole(section, "attempts", 5, 1),
        backoff=_number(section, "backoff", 0.5, 0.0),
    )


def output_cap(config: Config) -> int:
    """`[model] max_output_tokens`: the most tokens one answer may be asked for."""
    section = config.section("model")
    return _whole(section, "max_output_tokens", MAX_OUTPUT_TOKENS, MIN_OUTPUT_TOKENS)


def max_output_tokens(ws: Workspace) -> int:
    """The workspace's cap on one answer, for callers sizing their requests to it."""
    return output_cap(ws.config)


def resolve_model(config: Config, env: Mapping[str, str]) -> ModelSettings:
    """The configured model: TRINHO_MODEL wins over `[model] name` in the workspace config."""
    section = config.section("model")
    if env.get("TRINHO_MODEL", "").strip():
        name, where = env["TRINHO_MODEL"], "TRINHO_MODEL"
    elif isinstance(section.get("name"), str) and str(section["name"]).strip():
        name, where = str(section["name"]), f"{CONFIG_PATH} [model] name"
    else:
        raise ModelError.failed(
            "", "not_configured", "error.model.not_configured", config=CONFIG_PATH
        )
    provider, model = parse_model_name(name, where)
    info = PROVIDERS[provider]
    configured_url = section.get("base_url")
    if configured_url is not None and not isinstance(configured_url, str):
        raise TrinhoError.keyed("error.model.bad_base_url", config=CONFIG_PATH)
    if configured_url:
        base_url: str | None = configured_url
    elif provider == "ollama":
        base_url = ollama_base_url(env.get("OLLAMA_HOST"))
    else:
        base_url = info.default_base_url
    sdk_url = env.get(SDK_BASE_VARS[info.api]) if base_url is None else None
    shown = base_url or sdk_url or SDK_DEFAULT_URLS[info.api]
    key_var = next((var for var in info.key_vars if env.get(var)), None)
    if key_var is not None:
        key = env[key_var]
    elif not info.key_vars or (info.api == "openai" and (base_url or sdk_url)):
        key = NO_KEY_NEEDED  # a local or self-hosted OpenAI-compatible server may need none
    else:
        names = " or ".join(info.key_vars)
        raise ModelError.failed(f"{provider}:{model}", "no_key", "error.model.no_key", names=names)
    return ModelSettings(
        provider,
        model,
        info.api,
        base_url,
        key,
        key_var,
        retry_policy(config),
        shown,
        output_cap(config),
    )
