"""Where the Telegram channel's settings come from: `[telegram]` in the config, or the env."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from trinho.errors import TrinhoError
from trinho.workspace import Workspace

DEFAULT_BASE_URL = "https://api.telegram.org/bot"


@dataclass(frozen=True)
class TelegramSettings:
    """The bot token, the owner's Telegram user id, and the Bot API server's base URL.
    `owner_id` 0 is no one's (user ids are positive): the bot of many owners, which obeys only
    the users the database names."""

    token: str = field(repr=False)
    owner_id: int
    base_url: str = DEFAULT_BASE_URL


def normalize_base_url(url: str) -> str:
    """PTB appends the token to the base URL; accept `http://host:8081` as well as `.../bot`."""
    url = url.strip().rstrip("/")
    if "{token}" in url or url.endswith("/bot"):
        return url
    return f"{url}/bot"


def bot_settings(ws: Workspace | None, env: Mapping[str, str] | None = None) -> TelegramSettings:
    """The bot of many owners (`trinho serve` on a database): the token and base URL as
    `telegram_settings` reads them, no owner; one keyed line when no token is set."""
    env = os.environ if env is None else env
    token = env.get("TRINHO_TELEGRAM_TOKEN") or (ws.config.telegram.token if ws else "") or ""
    if not token.strip():
        raise TrinhoError.keyed("error.telegram.bot_no_token")
    base_url = env.get("TRINHO_TELEGRAM_BASE_URL") or (ws.config.telegram.base_url if ws else "")
    base_url = base_url or ""
    return TelegramSettings(
        token=token.strip(),
        owner_id=0,
        base_url=normalize_base_url(base_url) if base_url.strip() else DEFAULT_BASE_URL,
    )


def telegram_settings(
    ws: Workspace, env: Mapping[str, str] | None = None
) -> TelegramSettings | None:
    """The Telegram settings, or None when no token is set (the console channel is used).

    The environment (TRINHO_TELEGRAM_TOKEN, TRINHO_TELEGRAM_OWNER_ID, TRINHO_TELEGRAM_BASE_URL)
    wins over `[telegram] token, owner_id, base_url` in `.trinho/config.toml`.
    """
    env = os.environ if env is None else env
    section = ws.config.telegram
    token = env.get("TRINHO_TELEGRAM_TOKEN") or section.token or ""
    token = token.strip()
    if not token:
        return None
    if "TRINHO_TELEGRAM_OWNER_ID" in env and env["TRINHO_TELEGRAM_OWNER_ID"].strip():
        owner_raw: object = env["TRINHO_TELEGRAM_OWNER_ID"]
        where = "TRINHO_TELEGRAM_OWNER_ID"
    else:
        owner_raw = section.owner_id
        where = "[telegram] owner_id in .trinho/config.toml"
    if owner_raw is None:
        raise TrinhoError.keyed("error.telegram.no_owner")
    try:
        owner_id = int(str(owner_raw).strip())
    except ValueError:
        raise TrinhoError.keyed("error.telegram.bad_owner", where=where, value=owner_raw) from None
    if owner_id <= 0:
        raise TrinhoError.keyed("error.telegram.owner_not_positive", where=where, value=owner_id)
    base_url = env.get("TRINHO_TELEGRAM_BASE_URL") or section.base_url or ""
    return TelegramSettings(
        token=token,
        owner_id=owner_id,
        base_url=normalize_base_url(base_url) if base_url.strip() else DEFAULT_BASE_URL,
    )
