"""memory/archive.md on each backend (`backend`): a section archived once, a rewrite that may
empty it; any history ends in the same text on both (`both_backends`)."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.backends import Backend, Pair
from trinho.condense.rules.archive import archive_section


def test_a_section_is_archived_once_and_a_rewrite_can_empty_it(backend: Backend) -> None:
    archive = backend.archive()
    section = archive_section("2026-W48", ["- 2026-01-02: phở"])
    assert archive.rewrite(lambda text: "x") is False
    assert archive.archive(section) and not archive.archive(section)
    other = archive_section("2026-W49", ["- 2026-01-09: bún"])
    assert archive.archive(other)
    assert archive.archived_text() == section + "\n" + other
    assert archive.rewrite(lambda text: text) is False
    assert archive.rewrite(lambda text: "")
    assert archive.archived_text() == ""


_ARCHIVE_TEXT = st.text(alphabet=st.sampled_from(list("ab #-\n\rđ")), max_size=20)
_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("archive"), st.sampled_from(["2026-W01", "2026-W02"]), _ARCHIVE_TEXT),
        st.tuples(st.just("rewrite"), st.sampled_from(["", "drop-first"]), st.just("")),
    ),
    max_size=6,
)


def _change(how: str) -> Callable[[str], str]:
    return (lambda text: "") if how == "" else (lambda text: text.split("\n", 1)[-1])


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hand=st.none() | _ARCHIVE_TEXT, ops=_OPS)
def test_any_archive_history_ends_in_the_same_text_on_both(
    hand: str | None,
    ops: list[tuple[str, str, str]],
    both_backends: Callable[[], Pair],
) -> None:
    """The rule of the gaps between sections, and of a heading archived once: any file
    written by hand first, then any sections and rewrites, give the same outcomes and text."""
    pair = both_backends()
    both = [backend.archive() for backend in pair]
    if hand:
        for backend in pair:
            backend.put_archive(hand)
    for op, run, lines in ops:
        if op == "archive":
            section = archive_section(run, [line for line in lines.split("\n") if line])
            assert both[0].archive(section) == both[1].archive(section)
        else:
            assert both[0].rewrite(_change(run)) == both[1].rewrite(_change(run))
        assert both[0].archived_text() == both[1].archived_text()
    archive_file = pair.files.workspace.archive_file
    on_disk = archive_file.read_bytes() if archive_file.exists() else b""
    assert both[1].archived_text().encode("utf-8") == on_disk
