"""The typed config: every value checked once, when the config is read, each wrong one said in
one keyed line naming `[section] key` and the file, on every surface; `trinho init` keeps the
owner's comments and layout."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from datetime import UTC, date, datetime, time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trinho import Memory
from trinho.config import (
    CONFIG_PATH,
    Config,
    ConfigError,
    WebConfig,
    check_config,
    config_from,
    declared_keys,
)
from trinho.config.files import owner_locale, parse_config
from trinho.errors import TrinhoError
from trinho.workspace import init_workspace, open_workspace

SECTION_NAMES = [*declared_keys(), "jobs"]
KEY_NAMES = sorted({key for keys in declared_keys().values() for key in keys})

scalars = st.one_of(
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["UTC", "vi", "en", "ops", "file", "off", "daily 02:00", "openai", "8766"]),
    st.datetimes(timezones=st.just(UTC)),
    st.dates(),
    st.times(),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["name", "schedule", "prompt", "x"]), inner, max_size=3)
    ),
    max_leaves=8,
)
tables = st.dictionaries(st.sampled_from(KEY_NAMES) | st.text(max_size=8), values, max_size=6)
configs = st.dictionaries(
    st.sampled_from(SECTION_NAMES) | st.text(max_size=8), tables | values, max_size=6
)


@given(configs)
def test_any_toml_table_is_a_typed_config_or_keyed_one_line_errors_never_an_exception(
    data: dict[str, object],
) -> None:
    checked = check_config(data)
    if isinstance(checked, Config):
        return
    assert checked, "an invalid config has at least one error"
    for error in checked:
        assert isinstance(error, TrinhoError) and error.key is not None
        for text in (str(error), error.localized("vi")):
            assert "\n" not in text and CONFIG_PATH in text


@given(configs)
def test_a_config_that_cannot_be_used_is_one_line_in_both_languages(
    data: dict[str, object],
) -> None:
    try:
        config_from(data)
    except ConfigError as exc:
        assert "\n" not in str(exc) and "\n" not in exc.localized("vi")
        assert str(exc).startswith(str(exc.issues[0]))


tokens = st.text(st.characters(codec="utf-8"), min_size=16)
wholes = st.integers(0, 2**63 - 1)


@given(
    st.integers(1, 65535),
    st.booleans(),
    tokens,
    wholes,
    st.integers(1000, 2**63 - 1),
    st.floats(0.001, 3600),
    st.sampled_from(["ask", "auto", "off"]),
)
def test_every_value_the_docs_allow_is_read_as_written(
    port: int, flag: bool, token: str, budget: int, context: int, grace: float, archive: str
) -> None:
    config = config_from(
        {
            "web": {"enabled": flag, "port": port, "token": token},
            "mcp": {"http": flag, "port": port, "token": token},
            "budget": {"run_tokens": budget, "week_tokens": budget},
            "context": {"memory_tokens": budget, "openclaw": flag},
            "condense": {"context_tokens": context, "archive": archive},
            "service": {"stop_grace": grace},
            "model": {"timeout": grace, "max_output_tokens": context},
        }
    )
    assert (config.web.enabled, config.web.port, config.web.token) == (flag, port, token)
    assert (config.mcp.http, config.mcp.port, config.mcp.token) == (flag, port, token)
    assert (config.budget.run_tokens, config.budget.week_tokens) == (budget, budget)
    assert (config.context.memory_tokens, config.context.openclaw) == (budget, flag)
    assert (config.condense.context_tokens, config.condense.archive) == (context, archive)
    assert config.service.stop_grace == grace == config.model.timeout
    assert config.model.max_output_tokens == context


def test_no_config_is_the_documented_defaults() -> None:
    assert config_from({}) == Config()
    config = Config()
    assert (config.web.enabled, config.web.host, config.web.port) == (False, "127.0.0.1", 8766)
    assert (config.mcp.http, config.mcp.port, config.mcp.token) == (False, 8765, None)
    assert config.condense.context_tokens == 128_000 and config.service.stop_grace == 60.0
    assert [job.name for job in config.jobs] == ["condense", "facts", "digest"]


@pytest.mark.parametrize(
    ("section", "key"), [(s, k) for s, keys in declared_keys().items() for k in keys]
)
def test_a_wrong_value_for_any_declared_key_names_that_key_and_the_file(
    section: str, key: str
) -> None:
    checked = check_config({section: {key: [1]}})
    assert isinstance(checked, tuple) and len(checked) == 1
    [error] = checked
    assert f"[{section}] {key}" in str(error) and CONFIG_PATH in str(error)
    assert f"[{section}] {key}" in error.localized("vi")


def test_every_wrong_value_is_found_and_the_line_says_how_many_more() -> None:
    text = '[web]\nenabled = true\nport = "abc"\n[mcp]\nhttp = "yes"\n[context]\nopenclaw = 1\n'
    with pytest.raises(ConfigError) as caught:
        parse_config(text)
    assert len(caught.value.issues) == 3
    assert str(caught.value) == (
        ".trinho/config.toml: [web] port must be a port number from 1 to 65535, not 'abc' "
        "(and 2 more in .trinho/config.toml: fix this one and run again to see the next)"
    )
    assert caught.value.key == "error.config.bad_port"
    assert caught.value.localized("vi").startswith(
        ".trinho/config.toml: [web] port phải là số cổng từ 1 đến 65535, không phải 'abc' "
        "(và 2 lỗi nữa"
    )


def test_a_long_wrong_value_is_quoted_short() -> None:
    [error] = check_config({"web": {"host": ["x" * 500]}})  # type: ignore[misc]
    assert len(str(error)) < 150


def test_typed_values_keep_what_the_old_readers_accepted() -> None:
    config = config_from(
        {
            "web": {"enabled": True, "port": "8767"},
            "telegram": {"owner_id": "123456789", "token": "t"},
            "model": {"timeout": 30, "attempts": 2},
            "context": {"openclaw": False},
        }
    )
    assert config.web == WebConfig(enabled=True, port=8767)
    assert config.telegram.owner_id == 123456789
    assert (config.model.timeout, config.model.attempts, config.model.backoff) == (30.0, 2, None)
    assert config.context.openclaw is False


def test_unknown_sections_and_keys_are_left_alone_but_not_an_unknown_schedule() -> None:
    assert config_from({"web": {"prot": 1}, "later": {"x": 1}}) == Config()
    checked = check_config({"schedule": {"weekly": "sun 21:00"}})
    assert isinstance(checked, tuple) and checked[0].key == "error.schedule.not_builtin"


def test_toml_values_of_every_kind_are_refused_by_key_not_by_crash() -> None:
    for value in (datetime(2026, 1, 1, tzinfo=UTC), date(2026, 1, 1), time(1, 2), float("nan")):
        checked = check_config({"web": {"port": value}, "service": {"stop_grace": value}})
        assert isinstance(checked, tuple) and len(checked) == 2


# ---- every surface says a config error in one line, exits non-zero, no traceback ------------

BAD_WEB = '\n[web]\nenabled = true\nport = "abc"\n'


def _bad_workspace(tmp_path: Path, locale: str = "en") -> Path:
    root = init_workspace(tmp_path / "ws", timezone="Asia/Ho_Chi_Minh", locale=locale).workspace
    path = root.root / CONFIG_PATH
    path.write_text(path.read_text("utf-8") + BAD_WEB, "utf-8")
    return root.root


@pytest.mark.parametrize(
    "args", [["serve"], ["mcp"], ["mcp", "--http"], ["web"], ["notes"], ["search", "x"]]
)
def test_every_command_says_a_config_error_in_one_line(tmp_path: Path, args: list[str]) -> None:
    root = _bad_workspace(tmp_path)
    code = "import sys; from trinho.cli import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", code, "--workspace", str(root), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        "trinho: error: .trinho/config.toml: [web] port must be a port number from 1 to 65535, "
        "not 'abc'"
    ]


def test_the_error_is_said_in_the_owners_language_though_the_config_is_wrong(
    tmp_path: Path,
) -> None:
    root = _bad_workspace(tmp_path, locale="vi")
    assert owner_locale(root) == "vi"
    with pytest.raises(ConfigError) as caught:
        open_workspace(root)
    assert "phải là số cổng" in caught.value.localized(owner_locale(root))


def test_the_python_api_refuses_a_wrong_config_with_the_keyed_error(tmp_path: Path) -> None:
    root = _bad_workspace(tmp_path)
    with pytest.raises(TrinhoError) as caught:
        Memory(root)
    assert caught.value.key == "error.config.bad_port"


# ---- trinho init edits the TOML, keeping the owner's comments and layout ---------------------

COMMENTED = """\
# my assistant's config: edited by hand
[owner]
timezone = "Asia/Ho_Chi_Minh"   # where I live
# I write in Vietnamese
locale = 'vi'
user = "owner"

[paths]  # shared with the coding agent
users = "~/shared/users"
proposals = "memory_proposals"

[model]
name = "ollama:qwen3:8b"  # the small one
# timeout = 900

[[jobs]]
name = "birthdays"
schedule = "daily 03:00"
prompt = \"\"\"Look for birthdays
mentioned this week.\"\"\"
"""


def test_init_changes_only_the_values_it_is_given_and_keeps_every_comment(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    (root / ".trinho").mkdir(parents=True)
    (root / CONFIG_PATH).write_text(COMMENTED, "utf-8")
    init_workspace(root, timezone="Europe/Paris")
    after = (root / CONFIG_PATH).read_text("utf-8")
    assert after == COMMENTED.replace('"Asia/Ho_Chi_Minh"   #', '"Europe/Paris"   #')
    assert open_workspace(root).config.timezone == "Europe/Paris"


def test_init_with_values_already_set_leaves_the_file_as_it_is(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / ".trinho").mkdir(parents=True)
    (root / CONFIG_PATH).write_text(COMMENTED, "utf-8")
    result = init_workspace(root, timezone="Asia/Ho_Chi_Minh", locale="vi", owner="owner")
    assert CONFIG_PATH not in result.created
    assert (root / CONFIG_PATH).read_text("utf-8") == COMMENTED


def test_init_adds_a_missing_owner_table_without_touching_the_rest(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / ".trinho").mkdir(parents=True)
    text = '# only paths so far\n[paths]\nusers = "users"  # here\n'
    (root / CONFIG_PATH).write_text(text, "utf-8")
    init_workspace(root, timezone="Europe/Paris", locale="vi")
    after = (root / CONFIG_PATH).read_text("utf-8")
    assert after.startswith(text)
    owner = tomllib.loads(after)["owner"]
    assert owner == {"timezone": "Europe/Paris", "user": "owner", "locale": "vi"}


def test_the_store_is_the_files_unless_a_postgresql_url_is_given() -> None:
    assert config_from({}).store.url is None
    url = "postgresql://trinho@127.0.0.1:5432/trinho"
    assert config_from({"store": {"url": url}}).store.url == url
    checked = check_config({"store": {"url": "mysql://x"}})
    assert isinstance(checked, tuple) and [e.key for e in checked] == ["error.store.bad_url"]
    assert "[store] url" in str(checked[0]) and "[store] url" in checked[0].localized("vi")
