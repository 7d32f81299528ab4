"""The workspace config's shape: one frozen dataclass per section holding the documented
defaults, the whole `Config`, and the names of its sections and keys (pure).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Literal

from trinho.config.schedule import JobSpec, default_jobs

INTERNAL_DIR = ".trinho"
CONFIG_PATH = f"{INTERNAL_DIR}/config.toml"
"""Where the config is, relative to the workspace; errors name it so."""
LOCALES = ("en", "vi")
MIN_TOKEN_CHARS = 16
"""The shortest bearer token `[mcp] token` and `[web] token` may be."""
DEFAULT_CONTEXT_TOKENS = 128_000
"""`[condense] context_tokens` when the config does not say: what one rewrite call may use,
prompt and answer together. It suits today's hosted models (128k to 200k); with a local model,
set it to the context its server gives it (e.g. ollama's num_ctx), or calls will be cut."""
DEFAULT_STOP_GRACE = 60.0
"""Seconds a stop waits for work in progress: below systemd's default `TimeoutStopSec` (90 s)
with room for closing connections, so the manager never has to kill a stopping service."""
MAX_STOP_GRACE = 3600.0
MIN_OUTPUT_TOKENS = 256
MAX_OUTPUT_TOKENS = 4096
"""`[model] max_output_tokens` when unset: the most tokens any one answer may be asked for."""

CondenseProtocol = Literal["ops", "file"]
PROTOCOLS: tuple[CondenseProtocol, ...] = ("ops", "file")
ArchiveMode = Literal["ask", "auto", "off"]
ARCHIVE_MODES: tuple[ArchiveMode, ...] = ("ask", "auto", "off")
Embedder = Literal["none", "e5", "local", "openai"]
EMBEDDERS: tuple[Embedder, ...] = ("none", "e5", "local", "openai")
ToolProfile = Literal["default", "openclaw"]
TOOL_PROFILES: tuple[ToolProfile, ...] = ("default", "openclaw")


@dataclass(frozen=True)
class ModelConfig:
    """`[model]`. None for timeout, attempts and backoff: the provider's default policy."""

    name: str | None = None
    timeout: float | None = None
    attempts: int | None = None
    backoff: float | None = None
    base_url: str | None = None
    max_output_tokens: int = MAX_OUTPUT_TOKENS


@dataclass(frozen=True)
class BudgetConfig:
    """`[budget]`: token limits from the usage ledger; None means no limit."""

    run_tokens: int | None = None
    week_tokens: int | None = None


@dataclass(frozen=True)
class CondenseConfig:
    """`[condense]`: the weekly condensation."""

    context_tokens: int = DEFAULT_CONTEXT_TOKENS
    protocol: CondenseProtocol = "ops"
    archive: ArchiveMode = "ask"


@dataclass(frozen=True)
class ContextConfig:
    """`[context]`: the prompt parts' token budgets; `openclaw` None: decided by the folder."""

    memory_tokens: int = 6000
    facts_tokens: int = 1500
    notes_tokens: int = 3000
    openclaw: bool | None = None


@dataclass(frozen=True)
class McpConfig:
    """`[mcp]`: the MCP HTTP server `trinho serve` runs, and its bearer token."""

    token: str | None = field(default=None, repr=False)
    http: bool = False
    host: str = "127.0.0.1"
    port: int = 8765
    allowed_hosts: tuple[str, ...] = ()


@dataclass(frozen=True)
class WebConfig:
    """`[web]`: the review page `trinho serve` runs."""

    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = 8766
    token: str | None = field(default=None, repr=False)
    allowed_hosts: tuple[str, ...] = ()
    public_url: str | None = None
    """The page's address as the owner's phone reaches it (a tunnel, a reverse proxy): the
    Telegram review links to it. Unset: no link (127.0.0.1 is not reachable from a phone)."""


@dataclass(frozen=True)
class SearchConfig:
    """`[search]`: the optional semantic layer; `openai` comes with its base_url and model."""

    embedder: Embedder = "none"
    model_dir: str | None = None
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None


@dataclass(frozen=True)
class StoreConfig:
    """`[store]`: where the records are. No `url` (the default): the workspace's files. A
    `postgresql://` URL: the PostgreSQL backend (`trinho.pg`; `TRINHO_DATABASE_URL` wins)."""

    url: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class ToolsConfig:
    """`[tools]`: the agent tools' argument names and result shapes, and whether a chat with
    an `anthropic:` model also offers Claude's own memory tool over the workspace."""

    profile: ToolProfile = "default"
    claude_memory: bool = False


@dataclass(frozen=True)
class ScheduleConfig:
    """`[schedule]`: when the built-in jobs run, as written (`Config.jobs` holds them parsed)."""

    condense: str = "sun 21:00"
    facts: str = "daily 02:00"
    digest: str = "daily 07:00"


@dataclass(frozen=True)
class ServiceConfig:
    """`[service]`: seconds a stop waits for the turn or job run in progress."""

    stop_grace: float = DEFAULT_STOP_GRACE


@dataclass(frozen=True)
class TelegramConfig:
    """`[telegram]` as written; the environment wins over it (`channels.settings`)."""

    token: str | None = field(default=None, repr=False)
    owner_id: int | None = None
    base_url: str | None = None


@dataclass(frozen=True)
class Config:
    """The whole config. `[owner]` and `[paths]` are the first five fields (their keys are in
    `OWNER_KEYS` and `PATHS_KEYS`); every other section is a field of its own name."""

    timezone: str = "UTC"
    owner: str = "owner"
    locale: str = "en"
    users_dir: str = "users"
    proposals_dir: str = "memory_proposals"
    model: ModelConfig = ModelConfig()
    budget: BudgetConfig = BudgetConfig()
    condense: CondenseConfig = CondenseConfig()
    context: ContextConfig = ContextConfig()
    mcp: McpConfig = McpConfig()
    web: WebConfig = WebConfig()
    search: SearchConfig = SearchConfig()
    tools: ToolsConfig = ToolsConfig()
    schedule: ScheduleConfig = ScheduleConfig()
    service: ServiceConfig = ServiceConfig()
    telegram: TelegramConfig = TelegramConfig()
    store: StoreConfig = StoreConfig()
    jobs: tuple[JobSpec, ...] = field(default_factory=default_jobs)
    """The scheduled jobs: the built-ins not `off`, then each `[[jobs]]` table, checked."""


OWNER_KEYS = {"timezone": "timezone", "user": "owner", "locale": "locale"}
"""`[owner]` key -> `Config` field."""
PATHS_KEYS = {"users": "users_dir", "proposals": "proposals_dir"}
"""`[paths]` key -> `Config` field."""
SECTIONS: dict[str, type] = {
    "model": ModelConfig,
    "budget": BudgetConfig,
    "condense": CondenseConfig,
    "context": ContextConfig,
    "mcp": McpConfig,
    "web": WebConfig,
    "search": SearchConfig,
    "tools": ToolsConfig,
    "schedule": ScheduleConfig,
    "service": ServiceConfig,
    "telegram": TelegramConfig,
    "store": StoreConfig,
}
"""Every other section: its name is its `Config` field, its keys its dataclass's fields."""


def declared_keys() -> dict[str, tuple[str, ...]]:
    """Every section and key the config declares (`[[jobs]]` tables aside)."""
    keys = {"owner": tuple(OWNER_KEYS), "paths": tuple(PATHS_KEYS)}
    keys |= {name: tuple(f.name for f in fields(kind)) for name, kind in SECTIONS.items()}
    return keys
