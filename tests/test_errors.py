"""User errors keep their English text and can be said again in the owner's locale."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import trinho
from support.catalogs import CATALOG
from trinho.channels import ChannelError
from trinho.config.files import parse_config
from trinho.errors import NotFound, TrinhoError, in_locale
from trinho.facts import FactConflict
from trinho.i18n import t
from trinho.models.base import ModelError
from trinho.models.config import resolve_model
from trinho.models.retry import Failure, RetryPolicy, call_with_retries
from trinho.workspace import Config

SRC = Path(trinho.__file__).parent
KEYED_ELSEWHERE: set[str] = set()
"""Modules whose errors are being keyed in a change of their own; the scan skips them."""


def test_a_keyed_error_is_english_text_and_says_itself_in_vietnamese() -> None:
    error = NotFound.keyed("error.fact.not_found", key="nhà", user="owner")
    assert str(error) == "no fact 'nhà' for owner: see `trinho facts`"
    assert error.localized("en") == str(error)
    assert error.localized("vi") == "không có dữ kiện 'nhà' của owner: xem `trinho facts`"
    assert isinstance(error, NotFound) and error.exit_code == 1


def test_a_plain_error_from_outside_trinho_stays_english_in_every_locale() -> None:
    error = TrinhoError("my plugin: the widget is missing")
    assert error.key is None
    assert error.localized("vi") == str(error)
    assert in_locale(error, "vi") == str(error)
    assert in_locale(ValueError("boom"), "vi") == "boom"


def test_subclasses_keep_their_type_when_keyed() -> None:
    error = FactConflict.keyed("error.fact.dates_order", key="k", end="2026-01-01", start="x")
    assert type(error) is FactConflict
    assert in_locale(error, "vi").startswith("dữ kiện 'k': valid_to 2026-01-01 phải sau")


def test_an_unknown_key_is_a_programming_error_not_a_silent_message() -> None:
    with pytest.raises(KeyError):
        TrinhoError.keyed("error.no.such.key")


@given(
    key=st.sampled_from(sorted(k for k in CATALOG if k.startswith("error.note"))),
    size=st.integers(min_value=0, max_value=10**7),
    locale=st.sampled_from(["en", "vi"]),
)
def test_localized_is_the_catalog_entry_filled_with_the_same_params(
    key: str, size: int, locale: str
) -> None:
    params = {"size": size, "limit": 20_000}
    error = TrinhoError.keyed(key, **params)
    assert str(error) == t("en", key, **params)
    assert error.localized(locale) == t(locale, key, **params)


def test_a_model_that_cannot_be_reached_is_said_in_vietnamese_with_its_attempts() -> None:
    def attempt() -> str:
        raise ConnectionError("refused")

    def classify(exc: Exception) -> Failure:
        return Failure.keyed(
            "unreachable",
            "error.model.unreachable",
            url="http://127.0.0.1:9",
            setting="OLLAMA_HOST",
        )

    with pytest.raises(ModelError) as caught:
        call_with_retries(
            "ollama:qwen3:8b",
            attempt,
            classify,
            RetryPolicy(attempts=2),
            sleep=lambda seconds: None,
        )
    error = caught.value
    assert str(error) == (
        "model ollama:qwen3:8b: cannot reach http://127.0.0.1:9: is the server running? "
        "(OLLAMA_HOST names this address) (after 2 attempts)"
    )
    assert error.detail.endswith("(after 2 attempts)") and error.kind == "unreachable"
    assert error.localized("vi") == (
        "mô hình ollama:qwen3:8b: không kết nối được http://127.0.0.1:9: "
        "máy chủ có đang chạy không? (OLLAMA_HOST đặt địa chỉ này) (sau 2 lần thử)"
    )


def test_model_errors_without_a_key_stay_as_they_were() -> None:
    error = ModelError("openai:x", "bad_response", "the answer had no choices")
    assert str(error) == "model openai:x: the answer had no choices"
    assert error.localized("vi") == str(error)


def test_no_model_and_no_key_are_said_in_vietnamese() -> None:
    config = Config(timezone="UTC")
    with pytest.raises(ModelError) as none:
        resolve_model(config, {})
    assert none.value.localized("vi").startswith("chưa cấu hình mô hình: hãy đặt TRINHO_MODEL")
    with pytest.raises(ModelError) as nokey:
        resolve_model(config, {"TRINHO_MODEL": "anthropic:claude-x"})
    assert nokey.value.localized("vi").startswith("mô hình anthropic:claude-x: chưa có khoá API")


def test_a_channel_error_is_a_keyed_trinho_error() -> None:
    error = ChannelError.keyed("error.telegram.not_taken", error="Bad Gateway")
    assert isinstance(error, TrinhoError)
    assert str(error) == "Telegram did not take the message: Bad Gateway"
    assert error.localized("vi") == "Telegram không nhận tin nhắn: Bad Gateway"


def test_a_broken_config_file_is_said_in_vietnamese() -> None:
    with pytest.raises(TrinhoError) as caught:
        parse_config("[owner\n", ".trinho/config.toml")
    assert str(caught.value).startswith(".trinho/config.toml: not valid TOML (")
    assert caught.value.localized("vi").startswith(".trinho/config.toml: không phải TOML hợp lệ (")


def _error_classes(trees: list[ast.Module]) -> set[str]:
    """TrinhoError and every class in the sources that derives from it, however deep."""
    names = {"TrinhoError"}
    classes = [node for tree in trees for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    grew = True
    while grew:
        grew = False
        for node in classes:
            bases = {
                b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
            }
            if node.name not in names and bases & names:
                names.add(node.name)
                grew = True
    return names


def _unkeyed(tree: ast.Module, errors: set[str]) -> list[int]:
    """Lines that build an error (or a model `Failure`) from a message with no catalog key.

    `X.keyed(...)` and `ModelError.failed(...)` are attribute calls, so they never match; a
    direct `X(...)` must pass `key=`, and its message must not be rendered in a locale already.
    """
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name not in errors | {"Failure"}:
            continue
        prerendered = any(
            isinstance(arg, ast.Call)
            and getattr(arg.func, "id", None) == "t"
            and not (
                arg.args and isinstance(arg.args[0], ast.Constant) and arg.args[0].value == "en"
            )
            for arg in node.args
        )
        if prerendered or not any(keyword.arg == "key" for keyword in node.keywords):
            lines.append(node.lineno)
    return lines


def _sources() -> dict[str, ast.Module]:
    return {
        str(path.relative_to(SRC)): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(SRC.rglob("*.py"))
    }


def test_the_scan_finds_plain_and_prelocalised_errors() -> None:
    sources = _sources()
    errors = _error_classes(list(sources.values()))
    assert {"NotFound", "ModelError", "ChannelError"} <= errors
    code = ast.parse(
        'raise TrinhoError(f"{path}: bad")\n'
        'raise ChannelError("down")\n'
        'raise NotFound(t(ws.locale, "error.x"), key="error.x")\n'
        'raise ModelError(model, "auth", detail)\n'
        'return Failure("auth", "refused")\n'
        'raise TrinhoError.keyed("error.x", path=path)\n'
        'raise ModelError.failed(model, "auth", "error.x")\n'
        "raise ModelError(model, kind, detail, key=failure.key)\n"
        'raise ValueError(f"not a change: {data!r}")\n'
    )
    assert _unkeyed(code, errors) == [1, 2, 3, 4, 5]


def test_every_error_raised_in_trinho_is_keyed() -> None:
    """Owner-facing errors carry a catalog key, so the owner reads them in their locale.

    An error no owner can cause (a programming error) is a ValueError or an assertion instead.
    """
    sources = _sources()
    errors = _error_classes(list(sources.values()))
    found = {
        where: lines
        for where, tree in sources.items()
        if where not in KEYED_ELSEWHERE and (lines := _unkeyed(tree, errors))
    }
    assert found == {}
