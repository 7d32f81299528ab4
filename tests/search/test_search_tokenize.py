import json
import unicodedata
from datetime import date

from hypothesis import given
from hypothesis import strategies as st

from trinho.search.documents import conversation_docs, note_docs
from trinho.search.rank import match_expression
from trinho.search.tokenize import _FOLD_EXTRA, MAX_QUERY_TERMS, fold, query_terms, terms, words
from trinho.textnorm import one_line


def test_vietnamese_folds_to_plain_letters_including_d() -> None:
    assert fold("Hà Nội") == "ha noi"
    assert fold("ĐÀ NẴNG") == "da nang"
    assert terms("Hà Nội") == terms("ha noi") == terms("HA NOI")


def test_english_inflections_share_a_term() -> None:
    assert terms("painting")[0] == terms("painted")[0] == terms("paints")[0]


def test_english_stop_words_drop_but_vietnamese_lookalikes_stay() -> None:
    assert terms("the to it") == []
    assert terms("tô đó ít") == ["to", "do", "it"]


def test_query_of_only_stop_words_keeps_them() -> None:
    assert query_terms("the") == ["the"]


def test_decomposed_input_is_normalised() -> None:
    decomposed = "Ha\u0300 No\u0323\u0302i"
    assert words(decomposed) == words("Hà Nội")


@given(st.text())
def test_fold_is_idempotent_and_drops_marks(text: str) -> None:
    folded = fold(text)
    assert fold(folded) == folded
    assert "đ" not in folded


@given(st.text())
def test_fold_gives_what_decomposing_every_word_gives(text: str) -> None:
    """The fast path for a word that is ASCII once folded (most words) returns what the
    decomposition it skips would: a reference fold that always decomposes."""
    lowered = unicodedata.normalize("NFC", text).casefold().translate(_FOLD_EXTRA)
    stripped = "".join(
        ch for ch in unicodedata.normalize("NFD", lowered) if not unicodedata.combining(ch)
    )
    assert fold(text) == unicodedata.normalize("NFC", stripped)


@given(st.text(max_size=3000))
def test_match_expression_is_only_quoted_terms(text: str) -> None:
    found = query_terms(text)
    assert len(found) <= MAX_QUERY_TERMS
    expression = match_expression(found)
    if found:
        parts = expression.split(" OR ")
        assert len(parts) == len(found)
        assert all(p.startswith('"') and p.endswith('"') for p in parts)


@given(st.text())
def test_terms_do_not_depend_on_unicode_normal_form_or_case(text: str) -> None:
    import unicodedata

    assert terms(unicodedata.normalize("NFD", text)) == terms(text)
    assert terms(text.casefold()) == terms(text)


@given(
    st.lists(
        st.one_of(
            st.text(),
            st.builds(
                lambda t, r: json.dumps({"at": "2026-11-02T09:00:00+07:00", "role": r, "text": t}),
                st.text(),
                st.text(),
            ),
        )
    )
)
def test_transcript_lines_of_any_shape_never_break_indexing(lines: list[str]) -> None:
    docs = conversation_docs("conversations/2026-11-02.jsonl", date(2026, 11, 2), "\n".join(lines))
    assert all(doc.kind == "conversation" and doc.line >= 1 for doc in docs)
    assert len(docs) <= len(lines)


@given(st.text())
def test_note_entries_are_all_indexed(text: str) -> None:
    body = "\n".join(f"- 09:0{i} {line}" for i, line in enumerate(["harp", one_line(text), "oboe"]))
    docs = note_docs("memory/2026-11-02.md", date(2026, 11, 2), body)
    assert [d.line for d in docs] == [1, 2, 3]
