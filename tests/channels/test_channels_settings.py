"""Which channel: console by default, Telegram from `[telegram]` or the environment."""

from __future__ import annotations

import io

import pytest

from trinho.channels import (
    ConsoleChannel,
    Notification,
    NotificationItem,
    channel_from_config,
    telegram_settings,
)
from trinho.channels.settings import DEFAULT_BASE_URL, normalize_base_url
from trinho.errors import TrinhoError
from trinho.workspace import Workspace, open_workspace


def with_config(ws: Workspace, extra: str) -> Workspace:
    path = ws.internal / "config.toml"
    path.write_text(path.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return open_workspace(ws.root)


def test_console_is_the_default(workspace: Workspace) -> None:
    assert telegram_settings(workspace, {}) is None
    stream = io.StringIO()
    channel = channel_from_config(workspace, env={}, stream=stream)
    assert isinstance(channel, ConsoleChannel)
    note = Notification(
        "digest:2026-11-29", "Digest", "", (NotificationItem("p", "h", "fact", None, "x", "r"),)
    )
    receipt = channel.send(note)
    assert receipt.channel == "console"
    assert "1 change waits for your approval:" in stream.getvalue()


def test_config_section_is_read(workspace: Workspace) -> None:
    ws = with_config(workspace, '\n[telegram]\ntoken = "1:abc"\nowner_id = 77\n')
    settings = telegram_settings(ws, {})
    assert settings is not None
    assert (settings.token, settings.owner_id, settings.base_url) == ("1:abc", 77, DEFAULT_BASE_URL)
    assert "1:abc" not in repr(settings)
    channel = channel_from_config(ws, env={})
    assert channel.name == "telegram"  # built, not connected


def test_environment_wins_over_the_config(workspace: Workspace) -> None:
    ws = with_config(workspace, '\n[telegram]\ntoken = "1:abc"\nowner_id = 77\n')
    env = {
        "TRINHO_TELEGRAM_TOKEN": "2:def",
        "TRINHO_TELEGRAM_OWNER_ID": "88",
        "TRINHO_TELEGRAM_BASE_URL": "http://127.0.0.1:8081",
    }
    settings = telegram_settings(ws, env)
    assert settings is not None
    assert (settings.token, settings.owner_id) == ("2:def", 88)
    assert settings.base_url == "http://127.0.0.1:8081/bot"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"TRINHO_TELEGRAM_TOKEN": "1:a"}, "owner's Telegram user id"),
        (
            {"TRINHO_TELEGRAM_TOKEN": "1:a", "TRINHO_TELEGRAM_OWNER_ID": "me"},
            "TRINHO_TELEGRAM_OWNER_ID",
        ),
        ({"TRINHO_TELEGRAM_TOKEN": "1:a", "TRINHO_TELEGRAM_OWNER_ID": "-5"}, "positive"),
    ],
)
def test_bad_settings_say_what_and_where(
    workspace: Workspace, env: dict[str, str], message: str
) -> None:
    with pytest.raises(TrinhoError, match=message):
        telegram_settings(workspace, env)


def test_bad_owner_id_in_config_names_the_file(workspace: Workspace) -> None:
    with pytest.raises(TrinhoError, match=r"\[telegram\] owner_id in .trinho/config.toml"):
        with_config(workspace, '\n[telegram]\ntoken = "1:abc"\nowner_id = "x"\n')


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("http://h:8081", "http://h:8081/bot"),
        ("http://h:8081/bot/", "http://h:8081/bot"),
        ("http://h/x/bot{token}", "http://h/x/bot{token}"),
    ],
)
def test_base_url_normalisation(given: str, expected: str) -> None:
    assert normalize_base_url(given) == expected
