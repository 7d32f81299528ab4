"""What an entry is indexed as: the full-match test reads an entry's indexed terms (`Doc.body`)
instead of tokenizing its text again, so for every kind of line a query can fully match, the
body is the terms of its speaker and its text."""

import json
from datetime import date

from hypothesis import given
from hypothesis import strategies as st

from trinho.search.documents import Doc, conversation_docs, memory_docs, note_docs
from trinho.search.tokenize import terms

WORDS = st.sampled_from(
    ["Huế", "hue", "đi", "chợ", "the", "painted", "painting", "Lan", "máy", "lạnh", "I", "20/11"]
)
LINES = st.lists(st.lists(WORDS, min_size=1, max_size=6).map(" ".join), min_size=1, max_size=5)
ROLES = st.sampled_from(["owner", "assistant", "Caroline", "Melanie", "I"])


def same_terms(docs: list[Doc]) -> None:
    assert docs
    for doc in docs:
        assert doc.body.split() == terms(f"{doc.speaker} {doc.text}"), doc


@given(lines=LINES)
def test_a_note_entry_is_indexed_as_the_terms_of_its_text(lines: list[str]) -> None:
    text = "".join(f"- 09:{i:02d} {line}\n" for i, line in enumerate(lines))
    same_terms(note_docs("memory/2026-11-20.md", date(2026, 11, 20), text))


@given(lines=LINES)
def test_a_memory_entry_is_indexed_as_the_terms_of_its_text(lines: list[str]) -> None:
    text = "# Memory\n\n" + "".join(
        f"- 2026-11-{i + 1:02d}: {line}\n" for i, line in enumerate(lines)
    )
    same_terms(memory_docs("MEMORY.md", text))


@given(turns=st.lists(st.tuples(ROLES, LINES.map(" ".join)), min_size=1, max_size=6))
def test_a_turn_is_indexed_as_the_terms_of_its_speaker_and_text(
    turns: list[tuple[str, str]],
) -> None:
    text = "".join(
        json.dumps({"role": role, "text": said}, ensure_ascii=False) + "\n" for role, said in turns
    )
    same_terms(conversation_docs("conversations/2026-11-20.jsonl", date(2026, 11, 20), text))
