"""Parsed TOML to the typed config, checked once (pure): `check_config` gives a `Config` or
every keyed error it finds, each one line naming `[section] key` and the file, so a wrong value
stops a command before anything is done and no caller checks a value again.

Unknown sections and keys are left alone (a config may carry settings of a newer trinho);
`[schedule]` alone refuses a name it does not know, since that is a job the owner meant to
schedule.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import fields
from typing import TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from trinho.config.schedule import JobSpec, default_jobs, jobs_from_tables
from trinho.config.schema import (
    ARCHIVE_MODES,
    CONFIG_PATH,
    DEFAULT_CONTEXT_TOKENS,
    DEFAULT_STOP_GRACE,
    EMBEDDERS,
    LOCALES,
    MAX_OUTPUT_TOKENS,
    MAX_STOP_GRACE,
    MIN_OUTPUT_TOKENS,
    MIN_TOKEN_CHARS,
    PROTOCOLS,
    SECTIONS,
    TOOL_PROFILES,
    BudgetConfig,
    CondenseConfig,
    Config,
    ContextConfig,
    McpConfig,
    ModelConfig,
    ScheduleConfig,
    SearchConfig,
    ServiceConfig,
    StoreConfig,
    TelegramConfig,
    ToolsConfig,
    WebConfig,
)
from trinho.errors import TrinhoError
from trinho.i18n import t
from trinho.textnorm import validate_slug


class ConfigError(TrinhoError):
    """A config that cannot be used, said in one line: the first wrong value (its key and
    params are the error's), and how many more the file has. `issues` holds them all."""

    issues: tuple[TrinhoError, ...] = ()

    @classmethod
    def of(cls, issues: tuple[TrinhoError, ...]) -> ConfigError:
        first = issues[0]
        error = cls(str(first), key=first.key, params=first.params)
        error.issues = issues
        error.args = (error.localized("en"),)
        return error

    def localized(self, locale: str) -> str:
        first = self.issues[0].localized(locale) if self.issues else super().localized(locale)
        if len(self.issues) <= 1:
            return first
        more = t(locale, "error.config.more", count=len(self.issues) - 1, config=CONFIG_PATH)
        return f"{first} {more}"


def config_from(data: Mapping[str, object]) -> Config:
    """The typed config of parsed TOML, or a `ConfigError` naming what is wrong."""
    checked = check_config(data)
    if isinstance(checked, Config):
        return checked
    raise ConfigError.of(checked)


def check_config(data: Mapping[str, object]) -> Config | tuple[TrinhoError, ...]:
    """Parsed TOML to the typed config, or every keyed error found (never an exception)."""
    issues: list[TrinhoError] = []
    owner, paths = data.get("owner", {}), data.get("paths", {})
    if not isinstance(owner, Mapping) or not isinstance(paths, Mapping):
        return (TrinhoError.keyed("error.config.not_tables", where=CONFIG_PATH),)
    owner_reader, paths_reader = _Reader("owner", owner, issues), _Reader("paths", paths, issues)
    timezone = owner_reader.text("timezone", "UTC")
    if not _zone_known(timezone):
        where = f"{CONFIG_PATH} [owner] timezone"
        issues.append(TrinhoError.keyed("error.zone.unknown", where=where, name=_Shown(timezone)))
    user = owner_reader.text("user", "owner")
    try:
        validate_slug(user, "user id", f"{CONFIG_PATH} [owner] user")
    except TrinhoError as exc:
        issues.append(exc)
    locale = owner_reader.text("locale", "en")
    if locale not in LOCALES:
        choices = ", ".join(LOCALES)
        issues.append(
            TrinhoError.keyed("error.config.bad_locale", where=CONFIG_PATH, choices=choices)
        )
    users_dir = paths_reader.text("users", "users")
    proposals_dir = paths_reader.text("proposals", "memory_proposals")
    sections = {name: _Reader(name, data.get(name, {}), []) for name in SECTIONS}
    job_issues: list[TrinhoError] = []
    config = Config(
        timezone=timezone,
        owner=user,
        locale=locale,
        users_dir=users_dir,
        proposals_dir=proposals_dir,
        model=_model(sections["model"]),
        budget=_budget(sections["budget"]),
        condense=_condense(sections["condense"]),
        context=_context(sections["context"]),
        mcp=_mcp(sections["mcp"]),
        web=_web(sections["web"]),
        search=_search(sections["search"]),
        tools=ToolsConfig(
            sections["tools"].choice("profile", TOOL_PROFILES),
            sections["tools"].flag("claude_memory") or False,
        ),
        schedule=_schedule(sections["schedule"]),
        service=ServiceConfig(_stop_grace(sections["service"])),
        telegram=_telegram(sections["telegram"]),
        store=_store(sections["store"]),
        jobs=_jobs(sections["schedule"], data.get("jobs", []), job_issues),
    )
    found = {name: reader.issues for name, reader in sections.items()} | {"jobs": job_issues}
    place = {name: at for at, name in enumerate(data)}
    for name in sorted(found, key=lambda name: place.get(name, len(place))):
        issues.extend(found[name])  # in the order of the file's sections
    return tuple(issues) if issues else config


def _zone_known(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


class _Shown:
    """A value as an error quotes it (`{value!r}`): on one line, and short."""

    def __init__(self, value: object) -> None:
        self.value = value

    def __repr__(self) -> str:
        text = repr(self.value)
        return text if len(text) <= 60 else text[:57] + "..."

    __str__ = __repr__


_Choice = TypeVar("_Choice", bound=str)


class _Reader:
    """One section's table; each read returns the typed value or the default, and records a
    keyed error for a wrong one."""

    def __init__(self, section: str, table: object, issues: list[TrinhoError]) -> None:
        self.section = section
        self.issues = issues
        self.table: Mapping[str, object] = table if isinstance(table, Mapping) else {}
        if not isinstance(table, Mapping):
            self.fail("error.config.not_table", value=_Shown(table))

    def fail(self, key: str, /, **params: object) -> None:
        params.setdefault("config", CONFIG_PATH)
        params.setdefault("section", self.section)
        self.issues.append(TrinhoError.keyed(key, **params))

    def optional_text(self, key: str) -> str | None:
        value = self.table.get(key)
        if value is None or isinstance(value, str):
            return value
        self.fail("error.config.not_text", name=key, value=_Shown(value))
        return None

    def text(self, key: str, default: str) -> str:
        value = self.optional_text(key)
        return default if value is None else value

    def flag(self, key: str) -> bool | None:
        value = self.table.get(key)
        if value is None or isinstance(value, bool):
            return value
        self.fail("error.config.not_bool", name=key, value=_Shown(value))
        return None

    def whole(self, key: str, minimum: int) -> int | None:
        """A whole number >= minimum, or None when unset or wrong (the caller names it)."""
        value = self.table.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= minimum:
            return value
        return None

    def choice(self, key: str, choices: tuple[_Choice, ...]) -> _Choice:
        value = self.table.get(key, choices[0])
        for choice in choices:
            if value == choice:
                return choice
        self.fail(
            "error.config.bad_choice", name=key, value=_Shown(value), choices=", ".join(choices)
        )
        return choices[0]

    def port(self, key: str, default: int) -> int:
        """A TCP port; digits in a string are taken too, as they always were."""
        value = self.table.get(key, default)
        digits = isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 6
        number = int(value) if digits and isinstance(value, str) else value
        if isinstance(number, int) and not isinstance(number, bool) and 0 < number < 65536:
            return number
        self.fail("error.config.bad_port", name=key, value=_Shown(value))
        return default

    def hosts(self, key: str) -> tuple[str, ...]:
        """A list of host names (`name` or `name:port`) served beyond loopback."""
        value = self.table.get(key, [])
        if isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value):
            return tuple(value)
        self.fail("error.http.bad_allowed_hosts")
        return ()

    def has(self, key: str) -> bool:
        return key in self.table


def _number(r: _Reader, key: str, minimum: float) -> float | None:
    value = r.table.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= minimum:
        r.fail("error.model.bad_number", name=key, minimum=minimum)
        return None
    return float(value)


def _model_whole(r: _Reader, key: str, minimum: int) -> int | None:
    value = r.whole(key, minimum)
    if value is None and r.has(key):
        r.fail("error.model.bad_whole", name=key, minimum=minimum)
    return value


def _model(r: _Reader) -> ModelConfig:
    name = r.optional_text("name")
    if r.has("base_url") and not isinstance(r.table["base_url"], str):
        r.fail("error.model.bad_base_url")
    base_url = r.table.get("base_url")
    return ModelConfig(
        name=name,
        timeout=_number(r, "timeout", 0.001),
        attempts=_model_whole(r, "attempts", 1),
        backoff=_number(r, "backoff", 0.0),
        base_url=base_url if isinstance(base_url, str) else None,
        max_output_tokens=_model_whole(r, "max_output_tokens", MIN_OUTPUT_TOKENS)
        or MAX_OUTPUT_TOKENS,
    )


def _budget(r: _Reader) -> BudgetConfig:
    limits: dict[str, int | None] = {}
    for key in ("run_tokens", "week_tokens"):
        limits[key] = r.whole(key, 0)
        if limits[key] is None and r.has(key):
            r.fail("error.budget.bad_value", name=key)
    return BudgetConfig(**limits)


def _condense(r: _Reader) -> CondenseConfig:
    tokens = r.whole("context_tokens", 1000)
    if tokens is None and r.has("context_tokens"):
        r.fail("error.condense.bad_context_tokens", default=DEFAULT_CONTEXT_TOKENS)
    protocol = r.table.get("protocol", "ops")
    if protocol not in PROTOCOLS:
        r.fail("error.condense.bad_protocol", choices=", ".join(PROTOCOLS))
    archive = r.table.get("archive", "ask")
    if archive not in ARCHIVE_MODES:
        r.fail("error.condense.bad_archive", choices=", ".join(ARCHIVE_MODES))
    return CondenseConfig(
        context_tokens=tokens or DEFAULT_CONTEXT_TOKENS,
        protocol="file" if protocol == "file" else "ops",
        archive=next((mode for mode in ARCHIVE_MODES if mode == archive), "ask"),
    )


def _context(r: _Reader) -> ContextConfig:
    defaults = ContextConfig()
    budgets: dict[str, int] = {}
    for key in ("memory_tokens", "facts_tokens", "notes_tokens"):
        value = r.whole(key, 0)
        if value is None and r.has(key):
            r.fail("error.context.bad_budget", name=key, value=_Shown(r.table[key]))
        budgets[key] = getattr(defaults, key) if value is None else value
    openclaw = r.table.get("openclaw")
    if openclaw is not None and not isinstance(openclaw, bool):
        r.fail("error.context.bad_openclaw", value=_Shown(openclaw))
    return ContextConfig(**budgets, openclaw=openclaw if isinstance(openclaw, bool) else None)


def _token(r: _Reader, key: str) -> str | None:
    value = r.table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or len(value) < MIN_TOKEN_CHARS:
        r.fail(
            "error.mcp.bad_token" if r.section == "mcp" else "error.web.bad_token",
            min=MIN_TOKEN_CHARS,
        )
        return None
    return value


def _mcp(r: _Reader) -> McpConfig:
    return McpConfig(
        token=_token(r, "token"),
        http=r.flag("http") or False,
        host=r.text("host", McpConfig.host),
        port=r.port("port", McpConfig.port),
        allowed_hosts=r.hosts("allowed_hosts"),
    )


def _web(r: _Reader) -> WebConfig:
    return WebConfig(
        enabled=r.flag("enabled") or False,
        host=r.text("host", WebConfig.host),
        port=r.port("port", WebConfig.port),
        token=_token(r, "token"),
        allowed_hosts=r.hosts("allowed_hosts"),
        public_url=_public_url(r, "public_url"),
    )


_PUBLIC_URL_RE = re.compile(r"^https?://(?P<host>[A-Za-z0-9.-]+)(?::[0-9]{1,5})?(?:/[^\s]*)?$")


def _public_url(r: _Reader, key: str) -> str | None:
    """An http(s) address with a public host name: a button in Telegram can only open one."""
    value = r.optional_text(key)
    if value is None:
        return None
    match = _PUBLIC_URL_RE.fullmatch(value.strip())
    host = match.group("host").lower() if match else ""
    if not match or host == "localhost" or host.startswith("127.") or "." not in host:
        r.fail("error.web.bad_public_url", value=_Shown(value))
        return None
    return value.strip().rstrip("/")


def _search(r: _Reader) -> SearchConfig:
    embedder = r.table.get("embedder", "none")
    if embedder not in EMBEDDERS:
        r.fail("error.search.bad_embedder", kind=_Shown(embedder))
    config = SearchConfig(
        embedder=next((kind for kind in EMBEDDERS if kind == embedder), "none"),
        model_dir=r.optional_text("model_dir"),
        base_url=r.optional_text("base_url"),
        model=r.optional_text("model"),
        api_key_env=r.optional_text("api_key_env"),
    )
    if config.embedder == "openai" and (config.base_url is None or config.model is None):
        r.fail("error.search.openai_needs")
    return config


def _schedule(r: _Reader) -> ScheduleConfig:
    """The schedules as written; `_jobs` checks them (and refuses a name not built in)."""
    defaults = ScheduleConfig()
    return ScheduleConfig(
        **{
            f.name: str(r.table.get(f.name, getattr(defaults, f.name)))
            for f in fields(ScheduleConfig)
        }
    )


def _jobs(r: _Reader, tables: object, issues: list[TrinhoError]) -> tuple[JobSpec, ...]:
    try:
        return jobs_from_tables(r.table, tables)
    except TrinhoError as exc:
        issues.append(exc)
        return default_jobs()


def _stop_grace(r: _Reader) -> float:
    """`[service] stop_grace`: seconds, more than 0 and at most an hour.

    systemd does not tell a service its stop timeout (no variable carries `TimeoutStopSec`;
    `WATCHDOG_USEC` is the watchdog's interval and `EXTEND_TIMEOUT_USEC` is sent by a service,
    not to it), so the grace is a setting, kept below the unit's timeout by the owner.
    """
    value = r.table.get("stop_grace")
    if value is None:
        return DEFAULT_STOP_GRACE
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not 0 < value <= MAX_STOP_GRACE
    ):
        r.fail(
            "error.service.bad_stop_grace",
            where=f"{CONFIG_PATH}: [service] stop_grace",
            value=_Shown(value),
        )
        return DEFAULT_STOP_GRACE
    return float(value)


STORE_SCHEMES = ("postgresql://", "postgres://")


def _store(r: _Reader) -> StoreConfig:
    url = r.optional_text("url")
    if url is not None and not url.startswith(STORE_SCHEMES):
        r.fail("error.store.bad_url", where=f"{CONFIG_PATH} [store] url")
        return StoreConfig()
    return StoreConfig(url=url)


def _telegram(r: _Reader) -> TelegramConfig:
    owner_id = r.table.get("owner_id")
    where = f"[telegram] owner_id in {CONFIG_PATH}"
    number: int | None = None
    if owner_id is not None:
        try:
            number = int(str(owner_id).strip())
        except ValueError:
            r.fail("error.telegram.bad_owner", where=where, value=_Shown(owner_id))
        if number is not None and number <= 0:
            r.fail("error.telegram.owner_not_positive", where=where, value=number)
            number = None
    return TelegramConfig(
        token=r.optional_text("token"), owner_id=number, base_url=r.optional_text("base_url")
    )
