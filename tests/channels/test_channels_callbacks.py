"""Button data: at most 64 bytes, signed, and any change to it is caught."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from trinho.channels.callbacks import (
    MAX_DATA_BYTES,
    CallbackAction,
    callback_secret,
    decode,
    encode,
    short_hash,
)

SECRET = callback_secret("123456:ABC-token")

actions = st.builds(
    CallbackAction,
    op=st.sampled_from(["A", "R", "V", "y", "n"]),
    key=st.text(alphabet="0123456789abcdef", min_size=16, max_size=16),
    index=st.integers(min_value=0, max_value=999_999),
    short_hash=st.text(alphabet="0123456789abcdefXYZ_-", max_size=10),
)


@given(action=actions)
def test_round_trip_within_telegram_limit(action: CallbackAction) -> None:
    data = encode(SECRET, action)
    assert len(data.encode("utf-8")) <= MAX_DATA_BYTES
    assert decode(SECRET, data) == action


@given(action=actions, position=st.integers(min_value=0), char=st.characters(codec="ascii"))
def test_any_tampering_is_refused(action: CallbackAction, position: int, char: str) -> None:
    data = encode(SECRET, action)
    at = position % len(data)
    forged = data[:at] + char + data[at + 1 :]
    assert forged == data or decode(SECRET, forged) is None


@given(action=actions)
def test_a_button_from_another_token_is_refused(action: CallbackAction) -> None:
    assert decode(callback_secret("other:token"), encode(SECRET, action)) is None


@given(data=st.text(max_size=80))
def test_arbitrary_data_is_refused(data: str) -> None:
    assert decode(SECRET, data) is None


def test_short_hash_keeps_safe_characters_only() -> None:
    assert short_hash("sha256:0123456789abcdef") == "sha2560123"
    assert short_hash("ab|cd") == "abcd"


@given(data=st.text(max_size=80))
def test_decode_never_raises_on_any_text(data: str) -> None:
    assert decode(SECRET, data) is None or data.isascii()


def test_non_ascii_digits_and_letters_in_button_data_are_refused() -> None:
    data = encode(SECRET, CallbackAction("y", "0123456789abcdef", 1, "abc"))
    op, key, index, hashed, mac = data.split("|")
    for odd in (
        f"{op}|{key}|١|{hashed}|{mac}",  # an Arabic-Indic digit passes \\d
        f"{op}|{key}|{index}|{hashed}|{mac[:-1]}é",  # a letter passes \\w
        f"{op}|{key}|{index}|{hashed}|{'ß' * 11}",
    ):
        assert decode(SECRET, odd) is None
    assert decode(SECRET, data) == CallbackAction("y", "0123456789abcdef", 1, "abc")
