"""The token estimate, its calibration per model, and the probes of a local server."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from support.fake_model_server import FakeServer, Reply, fake_tokens, openai_reply
from trinho.context.budget import (
    MARGIN,
    MAX_CHAR_TOKENS,
    TokenEstimate,
    base_tokens,
    estimate_tokens,
    measured,
)
from trinho.models.ledger import UsageRecord, calibrated, usage_samples
from trinho.models.probe import ServerProbe, context_length, slots_busy, token_count

AT = datetime(2026, 11, 29, 13, 0, tzinfo=UTC)


@given(st.text(), st.text())
def test_the_estimate_adds_up_over_lines(a: str, b: str) -> None:
    assert (
        abs(base_tokens(a + "\n" + b) - (base_tokens(a) + base_tokens(b) + base_tokens("\n")))
        < 1e-6
    )


@given(st.text())
def test_no_character_costs_more_than_the_most_one_can(text: str) -> None:
    assert base_tokens(text) <= len(text) * MAX_CHAR_TOKENS + 1e-9


def test_vietnamese_costs_more_than_english_of_the_same_length() -> None:
    english = "We went to the market to buy vegetables"
    vietnamese = "Chúng tôi đi chợ mua rau và trái cây tươi"
    assert estimate_tokens(vietnamese) > 1.5 * estimate_tokens(english)
    assert estimate_tokens("   ") == 0  # spaces are folded into the next word


@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 10_000)), max_size=20))
def test_a_measured_estimate_under_counts_no_sample_big_enough_to_tell(
    pairs: list[tuple[int, int]],
) -> None:
    estimate = measured(pairs, "server")
    for est, real in pairs:
        if est >= 64 and real and 0.25 <= real / est <= 4:
            assert est * estimate.factor >= real - 1e-9


def test_every_budget_keeps_the_margin() -> None:
    assert TokenEstimate().usable(1000) == 900 and MARGIN == 0.10
    assert TokenEstimate(2.0, "server").usable(1000) == 450
    assert TokenEstimate(2.0, "server").real(100) == 200


def record(model: str, estimated: int, real: int, failure: str | None = None) -> UsageRecord:
    return UsageRecord(
        AT, "chat", model, real, 5, failure=failure, estimated_input_tokens=estimated
    )


def test_the_ledger_calibrates_a_model_by_its_own_answers_only() -> None:
    records = [
        record("llamacpp:a", 1000, 1500),
        record("llamacpp:a", 1000, 0, failure="timeout"),
        record("llamacpp:b", 1000, 400),
        UsageRecord(AT, "chat", "llamacpp:a", 900, 5),  # written before estimates were kept
    ]
    assert usage_samples(records, "llamacpp:a") == ((1000, 1500),)
    assert calibrated((), records, "llamacpp:a") == TokenEstimate(1.5, "usage")
    assert calibrated((), records, "llamacpp:b") == TokenEstimate(0.4, "usage")
    assert calibrated((), records, "llamacpp:c") == TokenEstimate()
    # the server's tokenizer, when it counted, wins over the ledger
    assert calibrated(((1000, 1200),), records, "llamacpp:a") == TokenEstimate(1.2, "server")


def test_a_record_keeps_its_estimate_and_reads_back() -> None:
    line = record("m", 120, 150)
    assert line.to_json()["estimated_input_tokens"] == 120
    assert "estimated_input_tokens" not in UsageRecord(AT, "chat", "m", 1, 1).to_json()
    assert UsageRecord.from_json(line.to_json(), "usage.jsonl") == line


def test_the_answers_of_each_server_read_as_they_are_sent() -> None:
    assert token_count({"tokens": [1, 2, 3]}) == 3  # llama.cpp
    assert token_count({"count": 7}) == 7  # llama-cpp-python, vLLM
    assert token_count({"error": "x"}) is None and token_count([1]) is None
    assert context_length({"default_generation_settings": {"n_ctx": 2048}}, None) == 2048
    assert context_length({}, [{"id": 0, "n_ctx": 1024}]) == 1024
    assert context_length(None, None) is None
    assert slots_busy([{"is_processing": False}, {"is_processing": True}]) is True
    assert slots_busy([{"id": 0, "state": 0}]) is False
    assert slots_busy({"error": 1}) is None


def test_a_llamacpp_server_is_asked_for_its_tokenizer_context_and_slots() -> None:
    text = "Gọi cho mẹ ở Huế tối chủ nhật"
    with FakeServer(Reply(openai_reply("ok")), context_tokens=1024, llamacpp=True) as srv:
        probe = ServerProbe(f"{srv.url}/v1", "m")
        assert probe.tokens(text) == fake_tokens(text)
        assert probe.context() == 1024
        assert probe.busy() is False


def test_a_server_without_those_endpoints_is_not_asked_again() -> None:
    with FakeServer(Reply(openai_reply("ok"))) as srv:
        probe = ServerProbe(f"{srv.url}/v1", "m")
        assert probe.tokens("a") is None and probe.context() is None and probe.busy() is None
        asked = len(srv.requests)
        assert probe.tokens("b") is None and probe.busy() is None
        assert len(srv.requests) == asked
        assert srv.posts == []  # no probe took a scripted answer
