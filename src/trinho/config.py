"""The workspace config (`.trinho/config.toml`) as typed values, checked once when it is read.

One frozen dataclass per section, holding the documented defaults. `check_config` turns the
parsed TOML into a `Config`, or into every keyed error it finds, each one line naming
`[section] key` and the file, so a wrong value stops a command before anything is done and no
caller checks a value again. Pure: the workspace reads the file and hands its TOML here.

Unknown sections and keys are left alone, as before (a config may carry settings of a newer
trinho); `[schedule]` alone refuses a name it does not know, since that is a job the owner
meant to schedule.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime, time, timedelta
from typing import Any, Literal, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from trinho.clock import resolve, utc
from trinho.errors import TrinhoError
from trinho.i18n import t
from trinho.textnorm import validate_slug

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


# The job table: `[schedule]` and `[[jobs]]`, parsed here so the typed config holds its jobs;
# `trinho.schedule.plan` decides when they are due.

JobKind = Literal["condense", "facts", "digest", "prompt"]

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_FULL_NAMES = (
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
)
_TIME_RE = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
MAX_PROMPT_CHARS = 20_000

BUILTIN_DEFAULTS: dict[str, tuple[JobKind, str]] = {
    "condense": ("condense", "sun 21:00"),
    "facts": ("facts", "daily 02:00"),
    "digest": ("digest", "daily 07:00"),
}
"""Built-in jobs, their kind and default schedule; `[schedule] NAME = "..."` or "off"."""


@dataclass(frozen=True)
class Schedule:
    """Days of the week (0 = Monday) and a wall-clock time in the owner's zone."""

    weekdays: frozenset[int]
    at: time

    def __post_init__(self) -> None:
        if not self.weekdays or not self.weekdays <= frozenset(range(7)):
            raise ValueError(f"weekdays must be a non-empty subset of 0-6, not {self.weekdays}")

    def latest_slot(self, now: datetime) -> datetime:
        """The most recent slot (a UTC instant) at or before `now`, read in `now`'s zone."""
        if now.tzinfo is None:
            raise ValueError("now must be an aware datetime")
        zone, instant = now.tzinfo, utc(now)
        for back in range(9):
            day = now.date() - timedelta(days=back)
            if day.weekday() in self.weekdays:
                slot = resolve(day, self.at, zone)
                if slot <= instant:
                    return slot
        raise AssertionError("a weekly schedule always has a slot within 9 days")

    def slots_between(self, after: datetime, until: datetime) -> list[datetime]:
        """Every slot (UTC instants) in (`after`, `until`], read in `until`'s zone, oldest
        first; each slot once, whatever the night does to the clock."""
        zone = until.tzinfo
        if zone is None:
            raise ValueError("until must be an aware datetime")
        start, end = utc(after), utc(until)
        found: list[datetime] = []
        day = after.astimezone(zone).date() - timedelta(days=1)
        while day <= until.date() + timedelta(days=1):
            if day.weekday() in self.weekdays:
                slot = resolve(day, self.at, zone)
                if start < slot <= end:
                    found.append(slot)
            day += timedelta(days=1)
        return found

    def describe(self) -> str:
        days = (
            "daily"
            if len(self.weekdays) == 7
            else ",".join(WEEKDAYS[d] for d in sorted(self.weekdays))
        )
        return f"{days} {self.at.strftime('%H:%M')}"


def parse_schedule(text: str, where: str) -> Schedule | None:
    """`daily HH:MM`, `DAY[,DAY...] HH:MM` (mon..sun, or full names), or `off` (None)."""
    value = " ".join(str(text).split()).lower()
    if value == "off":
        return None
    parts = value.rsplit(" ", 1)
    match = _TIME_RE.fullmatch(parts[-1]) if len(parts) == 2 else None
    if match is None:
        raise TrinhoError.keyed("error.schedule.bad_text", where=where, text=text)
    at = time(int(match.group(1)), int(match.group(2)))
    days_text = parts[0].replace(" ", "")
    if days_text in ("daily", "everyday"):
        return Schedule(frozenset(range(7)), at)
    weekdays: set[int] = set()
    for name in days_text.split(","):
        if name in WEEKDAYS:
            weekdays.add(WEEKDAYS.index(name))
        elif name in _FULL_NAMES:
            weekdays.add(_FULL_NAMES.index(name))
        else:
            raise TrinhoError.keyed("error.schedule.bad_weekday", where=where, name=name, text=text)
    return Schedule(frozenset(weekdays), at)


@dataclass(frozen=True)
class JobSpec:
    """One scheduled job: a built-in (`condense`, `facts`, `digest`) or a configured prompt."""

    name: str
    kind: JobKind
    schedule: Schedule
    prompt: str = ""


def jobs_from_tables(section: Mapping[str, Any], raw_jobs: object) -> tuple[JobSpec, ...]:
    """The built-in jobs (unless `off`) and every `[[jobs]]` entry, checked: `[schedule]` and
    the `jobs` array of the config's TOML (`trinho.config` keeps the result as `Config.jobs`)."""
    where = ".trinho/config.toml"
    unknown = sorted(set(section) - set(BUILTIN_DEFAULTS))
    if unknown:
        raise TrinhoError.keyed(
            "error.schedule.not_builtin",
            where=where,
            name=unknown[0],
            builtins=", ".join(BUILTIN_DEFAULTS),
        )
    jobs: list[JobSpec] = []
    for name, (kind, default) in BUILTIN_DEFAULTS.items():
        schedule = parse_schedule(str(section.get(name, default)), f"{where} [schedule] {name}")
        if schedule is not None:
            jobs.append(JobSpec(name, kind, schedule))
    if not isinstance(raw_jobs, list):
        raise TrinhoError.keyed("error.jobs.not_array", where=where)
    seen = set(BUILTIN_DEFAULTS)
    for index, raw in enumerate(raw_jobs, start=1):
        jobs.append(_job_entry(raw, f"{where} [[jobs]] #{index}", seen))
    return tuple(jobs)


def _job_entry(raw: Any, where: str, seen: set[str]) -> JobSpec:
    if not isinstance(raw, dict):
        raise TrinhoError.keyed("error.jobs.not_table", where=where)
    missing = [key for key in ("name", "schedule", "prompt") if key not in raw]
    if missing:
        raise TrinhoError.keyed("error.field.missing", where=where, names=", ".join(missing))
    name = validate_slug(str(raw["name"]), f"job name in {where}")
    if name in seen:
        raise TrinhoError.keyed("error.jobs.duplicate", where=where, name=name)
    seen.add(name)
    prompt = raw["prompt"]
    if not isinstance(prompt, str) or not prompt.strip():
        raise TrinhoError.keyed("error.jobs.empty_prompt", where=where, name=name)
    if len(prompt) > MAX_PROMPT_CHARS:
        raise TrinhoError.keyed(
            "error.jobs.prompt_too_long", where=where, name=name, limit=MAX_PROMPT_CHARS
        )
    schedule = parse_schedule(str(raw["schedule"]), f"{where} ({name}) schedule")
    if schedule is None:
        raise TrinhoError.keyed("error.jobs.off", where=where, name=name)
    return JobSpec(name, "prompt", schedule, prompt.strip())


def _default_jobs() -> tuple[JobSpec, ...]:
    return jobs_from_tables({}, [])


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
    jobs: tuple[JobSpec, ...] = field(default_factory=_default_jobs)
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
        validate_slug(user, f"{CONFIG_PATH} [owner] user")
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
        return _default_jobs()


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
