"""Which model to use and how to reach it: `PROVIDER:MODEL` from TRINHO_MODEL or the config.

Pure functions over the config and an environment mapping, so every rule here is testable
without a network or a vendor SDK. The SDKs' own variables (OPENAI_API_KEY, OPENAI_BASE_URL,
ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL) are read by the SDKs as usual.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from trinho.config import CONFIG_PATH, Config, ModelConfig
from trinho.config import MAX_OUTPUT_TOKENS as MAX_OUTPUT_TOKENS
from trinho.models.base import ModelError
from trinho.models.retry import RetryPolicy

if TYPE_CHECKING:
    from trinho.workspace import Workspace

Api = Literal["openai", "anthropic"]

OLLAMA_DEFAULT = "http://127.0.0.1:11434/v1"
NO_KEY_NEEDED = "not-needed"
"""Sent as the API key to local servers, which ignore it (the SDK insists on one)."""


@dataclass(frozen=True)
class Provider:
    api: Api
    default_base_url: str | None
    key_vars: tuple[str, ...]
    """Environment variables holding the key; empty when the server needs none."""
    local: bool = False
    """A server of the owner's own, wherever it runs: it computes one answer at a time."""


PROVIDERS: dict[str, Provider] = {
    "openai": Provider("openai", None, ("OPENAI_API_KEY",)),
    "ollama": Provider("openai", OLLAMA_DEFAULT, (), local=True),
    "llamacpp": Provider("openai", "http://127.0.0.1:8080/v1", (), local=True),
    "vllm": Provider("openai", "http://127.0.0.1:8000/v1", (), local=True),
    "lmstudio": Provider("openai", "http://127.0.0.1:1234/v1", (), local=True),
    "anthropic": Provider("anthropic", None, ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")),
}

LOCAL_POLICY = RetryPolicy(timeout=600.0, attempts=5, backoff=1.0, retry_timeouts=False)
"""A local server: a CPU model may take minutes for one answer, and one that did not answer in
time is still computing it, so a timeout is not retried (a retry would queue a second full
computation behind the first). A refused connection, a 429 or a 5xx (a server starting up or
still loading its model) are retried, with waits of 1, 2, 4 and 8 s."""
HOSTED_POLICY = RetryPolicy(timeout=120.0, attempts=5, backoff=0.5, retry_timeouts=True)
"""A hosted API: answers come fast (a 4096-token answer in about a minute), and a request that
timed out is most often lost in transit, so it is sent again."""

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
    url_setting: str | None = None
    """What chose `shown_url` (`TRINHO_BASE_URL`, `[model] base_url`, ...), for the error that
    says where to change it; None when it is the provider's default."""

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


def is_loopback(url: str) -> bool:
    """Whether `url` names this machine (`localhost`, 127.0.0.0/8, ::1, or 0.0.0.0 / ::)."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return False
    if host is None:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def default_policy(provider: str, url: str) -> RetryPolicy:
    """`LOCAL_POLICY` for the local providers and any server on loopback, else `HOSTED_POLICY`."""
    return LOCAL_POLICY if PROVIDERS[provider].local or is_loopback(url) else HOSTED_POLICY


def retry_policy(config: Config, defaults: RetryPolicy = HOSTED_POLICY) -> RetryPolicy:
    """`[model] timeout` (seconds per request), `attempts` (in all), `backoff` (seconds), each
    over the provider's default in `defaults`."""
    section = config.model
    return replace(
        defaults,
        timeout=defaults.timeout if section.timeout is None else section.timeout,
        attempts=defaults.attempts if section.attempts is None else section.attempts,
        backoff=defaults.backoff if section.backoff is None else section.backoff,
    )


def output_cap(config: Config) -> int:
    """`[model] max_output_tokens`: the most tokens one answer may be asked for."""
    return config.model.max_output_tokens


def max_output_tokens(ws: Workspace) -> int:
    """The workspace's cap on one answer, for callers sizing their requests to it."""
    return output_cap(ws.config)


def base_url_for(
    provider: str, section: ModelConfig, env: Mapping[str, str]
) -> tuple[str | None, str | None]:
    """Where requests go, and the setting that said so: TRINHO_BASE_URL, then `[model]
    base_url`, then OLLAMA_HOST (for `ollama:`), then the provider's default (None: the
    SDK's own, which reads its variable)."""
    configured = section.base_url
    if env.get("TRINHO_BASE_URL", "").strip():
        return env["TRINHO_BASE_URL"].strip(), "TRINHO_BASE_URL"
    if configured and configured.strip():
        return configured.strip(), f"[model] base_url ({CONFIG_PATH})"
    if provider == "ollama":
        host = env.get("OLLAMA_HOST", "")
        return ollama_base_url(host), "OLLAMA_HOST" if host.strip() else None
    return PROVIDERS[provider].default_base_url, None


def resolve_model(config: Config, env: Mapping[str, str]) -> ModelSettings:
    """The configured model: TRINHO_MODEL wins over `[model] name` in the workspace config,
    TRINHO_BASE_URL over `[model] base_url`."""
    section = config.model
    if env.get("TRINHO_MODEL", "").strip():
        name, where = env["TRINHO_MODEL"], "TRINHO_MODEL"
    elif section.name is not None and section.name.strip():
        name, where = section.name, f"{CONFIG_PATH} [model] name"
    else:
        raise ModelError.failed(
            "", "not_configured", "error.model.not_configured", config=CONFIG_PATH
        )
    provider, model = parse_model_name(name, where)
    info = PROVIDERS[provider]
    base_url, url_setting = base_url_for(provider, section, env)
    sdk_var = SDK_BASE_VARS[info.api]
    sdk_url = env.get(sdk_var) if base_url is None else None
    if sdk_url:
        url_setting = sdk_var
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
        retry_policy(config, default_policy(provider, shown)),
        shown,
        output_cap(config),
        url_setting,
    )
