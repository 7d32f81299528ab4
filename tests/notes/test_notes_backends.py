"""A note saved through the records facade, on each backend (`records`): one entry appended to
the owner's day, the same line and the same text; a bad note refused in one keyed line."""

from __future__ import annotations

from datetime import date

import pytest

from trinho.errors import TrinhoError
from trinho.records.protocol import Records

DAY = date(2026, 11, 29)


def test_a_note_is_one_entry_appended_to_the_days_file(records: Records) -> None:
    first = records.save_note("bought  rice\nand fish")
    second = records.save_note("- 09:00 forged?")
    assert (first.line, first.line_number, first.time) == (
        "- 14:05 bought  rice\n  and fish",
        1,
        "14:05",
    )
    assert second.line_number == 3
    assert records.note_text(DAY) == "- 14:05 bought  rice\n  and fish\n- 14:05 - 09:00 forged?\n"
    entries = records.read_notes(DAY).entries
    assert [(e.time, e.text, e.lines) for e in entries] == [
        ("14:05", "bought  rice\nand fish", 2),
        ("14:05", "- 09:00 forged?", 1),
    ]


@pytest.mark.parametrize(
    ("text", "key"), [("   ", "error.note.empty"), ("a\x00b", "error.note.nul")]
)
def test_a_bad_note_is_refused_in_one_keyed_line_and_nothing_is_written(
    records: Records, text: str, key: str
) -> None:
    with pytest.raises(TrinhoError) as caught:
        records.save_note(text)
    assert caught.value.key == key
    assert records.note_text(DAY) == ""
