"""The workspace config (`.trinho/config.toml`) as typed values, checked once when it is read.

- `trinho.config.schema`: one frozen dataclass per section, with the documented defaults;
- `trinho.config.schedule`: the job table (`[schedule]`, `[[jobs]]`);
- `trinho.config.check`: parsed TOML to a `Config`, or every keyed error it finds;
- `trinho.config.files`: the file itself, read, written and edited line by line.

All pure but the last. Every name is also here, loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.exports import lazy_exports

if TYPE_CHECKING:
    from trinho.config.check import STORE_SCHEMES as STORE_SCHEMES
    from trinho.config.check import ConfigError as ConfigError
    from trinho.config.check import check_config as check_config
    from trinho.config.check import config_from as config_from
    from trinho.config.files import edit_config as edit_config
    from trinho.config.files import owner_locale as owner_locale
    from trinho.config.files import parse_config as parse_config
    from trinho.config.files import read_config as read_config
    from trinho.config.files import render_config as render_config
    from trinho.config.schedule import BUILTIN_DEFAULTS as BUILTIN_DEFAULTS
    from trinho.config.schedule import MAX_PROMPT_CHARS as MAX_PROMPT_CHARS
    from trinho.config.schedule import WEEKDAYS as WEEKDAYS
    from trinho.config.schedule import JobKind as JobKind
    from trinho.config.schedule import JobSpec as JobSpec
    from trinho.config.schedule import Schedule as Schedule
    from trinho.config.schedule import default_jobs as default_jobs
    from trinho.config.schedule import jobs_from_tables as jobs_from_tables
    from trinho.config.schedule import parse_schedule as parse_schedule
    from trinho.config.schema import ARCHIVE_MODES as ARCHIVE_MODES
    from trinho.config.schema import CONFIG_PATH as CONFIG_PATH
    from trinho.config.schema import DEFAULT_CONTEXT_TOKENS as DEFAULT_CONTEXT_TOKENS
    from trinho.config.schema import DEFAULT_STOP_GRACE as DEFAULT_STOP_GRACE
    from trinho.config.schema import EMBEDDERS as EMBEDDERS
    from trinho.config.schema import INTERNAL_DIR as INTERNAL_DIR
    from trinho.config.schema import LOCALES as LOCALES
    from trinho.config.schema import MAX_OUTPUT_TOKENS as MAX_OUTPUT_TOKENS
    from trinho.config.schema import MAX_STOP_GRACE as MAX_STOP_GRACE
    from trinho.config.schema import MIN_OUTPUT_TOKENS as MIN_OUTPUT_TOKENS
    from trinho.config.schema import MIN_TOKEN_CHARS as MIN_TOKEN_CHARS
    from trinho.config.schema import OWNER_KEYS as OWNER_KEYS
    from trinho.config.schema import PATHS_KEYS as PATHS_KEYS
    from trinho.config.schema import PROTOCOLS as PROTOCOLS
    from trinho.config.schema import SECTIONS as SECTIONS
    from trinho.config.schema import TOOL_PROFILES as TOOL_PROFILES
    from trinho.config.schema import ArchiveMode as ArchiveMode
    from trinho.config.schema import BudgetConfig as BudgetConfig
    from trinho.config.schema import CondenseConfig as CondenseConfig
    from trinho.config.schema import CondenseProtocol as CondenseProtocol
    from trinho.config.schema import Config as Config
    from trinho.config.schema import ContextConfig as ContextConfig
    from trinho.config.schema import Embedder as Embedder
    from trinho.config.schema import McpConfig as McpConfig
    from trinho.config.schema import ModelConfig as ModelConfig
    from trinho.config.schema import ScheduleConfig as ScheduleConfig
    from trinho.config.schema import SearchConfig as SearchConfig
    from trinho.config.schema import ServiceConfig as ServiceConfig
    from trinho.config.schema import StoreConfig as StoreConfig
    from trinho.config.schema import TelegramConfig as TelegramConfig
    from trinho.config.schema import ToolProfile as ToolProfile
    from trinho.config.schema import ToolsConfig as ToolsConfig
    from trinho.config.schema import WebConfig as WebConfig
    from trinho.config.schema import declared_keys as declared_keys


__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "trinho.config.check": (
            "ConfigError",
            "STORE_SCHEMES",
            "check_config",
            "config_from",
        ),
        "trinho.config.files": (
            "edit_config",
            "owner_locale",
            "parse_config",
            "read_config",
            "render_config",
        ),
        "trinho.config.schedule": (
            "BUILTIN_DEFAULTS",
            "JobKind",
            "JobSpec",
            "MAX_PROMPT_CHARS",
            "Schedule",
            "WEEKDAYS",
            "default_jobs",
            "jobs_from_tables",
            "parse_schedule",
        ),
        "trinho.config.schema": (
            "ARCHIVE_MODES",
            "ArchiveMode",
            "BudgetConfig",
            "CONFIG_PATH",
            "CondenseConfig",
            "CondenseProtocol",
            "Config",
            "ContextConfig",
            "DEFAULT_CONTEXT_TOKENS",
            "DEFAULT_STOP_GRACE",
            "EMBEDDERS",
            "Embedder",
            "INTERNAL_DIR",
            "LOCALES",
            "MAX_OUTPUT_TOKENS",
            "MAX_STOP_GRACE",
            "MIN_OUTPUT_TOKENS",
            "MIN_TOKEN_CHARS",
            "McpConfig",
            "ModelConfig",
            "OWNER_KEYS",
            "PATHS_KEYS",
            "PROTOCOLS",
            "SECTIONS",
            "ScheduleConfig",
            "SearchConfig",
            "ServiceConfig",
            "StoreConfig",
            "TOOL_PROFILES",
            "TelegramConfig",
            "ToolProfile",
            "ToolsConfig",
            "WebConfig",
            "declared_keys",
        ),
    },
)
