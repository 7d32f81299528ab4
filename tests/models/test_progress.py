"""The progress of a model's work: its events add up to counts that never go negative, and any
state renders as one line that fits the terminal, in the owner's language."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trinho.models import (
    ChatRequest,
    ChatResponse,
    LedgeredModel,
    ModelError,
    ScriptedModel,
    Usage,
    read_ledger,
    user,
)
from trinho.models.progress import (
    STEPS,
    CallEnded,
    CallStarted,
    Event,
    Finished,
    Progress,
    Step,
    advance,
    notify,
    observed,
    render,
)
from trinho.workspace import Workspace

events = st.one_of(
    st.builds(
        Step,
        st.sampled_from([*STEPS, "unknown"]),
        st.integers(-3, 100_000),
        st.integers(-3, 100_000),
    ),
    st.just(CallStarted()),
    st.builds(CallEnded, st.integers(-(10**6), 10**9)),
    st.just(Finished()),
)


def played(sequence: list[Event]) -> Progress:
    state = Progress()
    for event in sequence:
        state = advance(state, event)
    return state


@given(st.lists(events, max_size=60))
def test_any_events_leave_counts_that_are_never_negative(sequence: list[Event]) -> None:
    state = played(sequence)
    assert state.done >= 0 and state.waiting >= 0 and state.tokens >= 0
    # an end heard while no call waits counts as nothing; a negative cost as none
    waiting = done = tokens = 0
    for event in sequence:
        if isinstance(event, CallStarted):
            waiting += 1
        elif isinstance(event, CallEnded) and waiting:
            waiting, done, tokens = waiting - 1, done + 1, tokens + max(0, event.tokens)
    assert (state.done, state.waiting, state.tokens) == (done, waiting, tokens)


@given(
    st.lists(events, max_size=60),
    st.sampled_from(["en", "vi"]),
    st.floats(-10.0, 10.0**7, allow_nan=False),
    st.integers(0, 300),
)
def test_any_state_renders_one_line_within_the_terminal(
    sequence: list[Event], locale: str, seconds: float, width: int
) -> None:
    line = render(played(sequence), locale, seconds, width)
    assert "\n" not in line and "\r" not in line
    assert len(line) <= max(0, width - 1)
    assert re.search(r"-\d", line) is None  # no negative number shown


def test_a_rewrite_in_chunks_reads_in_both_languages() -> None:
    state = played(
        [Step("rewriting", 2, 3), CallStarted(), CallEnded(1234), CallStarted(), CallStarted()]
    )
    assert render(state, "en", 14.7, 200) == (
        "rewriting MEMORY.md, chunk 2 of 3 · 14 s · 1 call done, 2 waiting · 1234 tokens"
    )
    assert render(state, "vi", 14.7, 200) == (
        "đang viết lại MEMORY.md, phần 2/3 · 14 giây · xong 1 lần gọi, 2 lần đang chờ · 1234 token"
    )
    narrow = render(state, "en", 14.7, 20)
    assert narrow == "rewriting MEMORY.m…" and len(narrow) == 19


def test_a_step_without_parts_or_calls_shows_its_name_and_the_seconds() -> None:
    assert render(played([Step("thinking")]), "vi", 0.4, 80) == "đang suy nghĩ · 0 giây"
    assert render(played([Step("reading")]), "en", 3, 80) == "reading the week · 3 s"
    one_chunk = played([Step("rewriting", 1, 1), CallStarted()])
    assert render(one_chunk, "en", 2, 80) == "rewriting MEMORY.md · 2 s · 1 call waiting"
    answered = played([Step("screening"), CallStarted(), CallEnded(7), CallStarted(), CallEnded()])
    assert (
        render(answered, "vi", 9, 80)
        == "đang soát các dòng mới · 9 giây · xong 2 lần gọi · 7 token"
    )


def test_nothing_shows_before_a_step_or_once_finished() -> None:
    assert render(Progress(), "en", 5, 80) == ""
    assert render(played([Step("screening", 1, 2), Finished()]), "en", 5, 80) == ""


def test_events_reach_the_observer_only_inside_observed() -> None:
    heard: list[Event] = []
    notify(CallStarted())
    with observed(heard.append):
        notify(Step("reading"))
        with observed(lambda event: None):
            notify(CallStarted())  # an inner observer hears it instead
        notify(CallEnded(5))
    notify(Finished())
    assert heard == [Step("reading"), CallEnded(5)]


@pytest.mark.parametrize("name", sorted(STEPS))
def test_every_step_has_both_labels_in_both_languages(name: str) -> None:
    for locale in ("en", "vi"):
        alone = render(played([Step(name)]), locale, 0, 200)
        parted = render(played([Step(name, 1, 2)]), locale, 0, 200)
        assert alone and parted and "{" not in alone + parted


def test_the_ledgered_model_reports_each_call_answered_or_failed(workspace: Workspace) -> None:
    answered = ChatResponse("ok", usage=Usage(30, 4))
    model = LedgeredModel(ScriptedModel([answered]), workspace, "chat")
    heard: list[Event] = []
    with observed(heard.append):
        model.chat(ChatRequest((user("hi"),)))
        with pytest.raises(ModelError):
            model.chat(ChatRequest((user("again"),)))  # the script is exhausted
    assert heard == [CallStarted(), CallEnded(34), CallStarted(), CallEnded(0)]
    assert [r.failure for r in read_ledger(workspace).records] == [None, "exhausted"]
