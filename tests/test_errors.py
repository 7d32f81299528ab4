"""User errors keep their English text and can be said again in the owner's locale."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trinho.errors import NotFound, TrinhoError, in_locale
from trinho.facts import FactConflict
from trinho.i18n import CATALOG, t
from trinho.models.base import ModelError
from trinho.models.config import resolve_model
from trinho.models.retry import Failure, RetryPolicy, call_with_retries
from trinho.workspace import Config


def test_a_keyed_error_is_english_text_and_says_itself_in_vietnamese() -> None:
    error = NotFound.keyed("error.fact.not_found", key="nhà", user="owner")
    assert str(error) == "no fact 'nhà' for owner: see `trinho facts`"
    assert error.localized("en") == str(error)
    assert error.localized("vi") == "không có dữ kiện 'nhà' của owner: xem `trinho facts`"
    assert isinstance(error, NotFound) and error.exit_code == 1


def test_a_plain_error_stays_english_in_every_locale() -> None:
    error = TrinhoError("config [search]: embedder must be local, openai or none")
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
        return Failure.keyed("unreachable", "error.model.unreachable", url="http://127.0.0.1:9")

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
        "(after 2 attempts)"
    )
    assert error.detail.endswith("(after 2 attempts)") and error.kind == "unreachable"
    assert error.localized("vi") == (
        "mô hình ollama:qwen3:8b: không kết nối được http://127.0.0.1:9: "
        "máy chủ có đang chạy không? (sau 2 lần thử)"
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
