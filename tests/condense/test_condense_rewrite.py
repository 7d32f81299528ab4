"""The rewrite and screening requests, the prompts they carry, and cleaning the answer."""

from __future__ import annotations

from datetime import date

from hypothesis import given
from hypothesis import strategies as st

from trinho.condense.rules.chunks import Chunk, Material
from trinho.condense.rules.rewrite import (
    MEMORY_BEGIN,
    MEMORY_END,
    clean_answer,
    overhead_tokens,
    rewrite_request,
    screen_request,
)
from trinho.condense.store.prompts import FILE_REWRITE_VERSION, VERSIONS, load_prompt

TODAY = date(2026, 11, 29)
SINCE = date(2026, 11, 23)


def test_prompts_are_versioned_package_files() -> None:
    rewrite, screen = load_prompt("rewrite"), load_prompt("screen")
    assert (rewrite.version, screen.version) == (
        f"rewrite.v{VERSIONS['rewrite']}",
        f"screen.v{VERSIONS['screen']}",
    )
    whole = load_prompt("rewrite", FILE_REWRITE_VERSION)
    assert whole.version == "rewrite.v1" != rewrite.version
    filled = whole.fill(TODAY, SINCE)
    assert "{today}" not in filled and "2026-11-23 to 2026-11-29" in filled
    for rule in ("WHOLE new MEMORY.md", "- YYYY-MM-DD: text", "Vietnamese", "No commentary"):
        assert rule in filled
    assert "N. REJECT: short reason" in screen.text and "NHẬN" in screen.text


def test_a_rewrite_request_in_vietnamese_headings() -> None:
    chunk = Chunk(2, (Material(TODAY, "note", "08:00", "note", "Đi bơi", "m"),))
    memory = "# Trí nhớ\n- 2026-01-01: Cũ\n"
    request = rewrite_request(load_prompt("rewrite"), memory, chunk, 3, TODAY, SINCE, "vi")
    body = request.messages[1].text
    assert f"{MEMORY_BEGIN}\n# Trí nhớ\n- 2026-01-01: Cũ\n{MEMORY_END}" in body
    assert "## Ghi chú và hội thoại từ 2026-11-23 đến 2026-11-29 (phần 2/3)" in body
    assert body.endswith("### 2026-11-29\n- 08:00 [note] Đi bơi")
    assert request.max_tokens > len(memory) // 4
    assert overhead_tokens(load_prompt("rewrite"), TODAY, SINCE, "vi") < request.estimated_tokens()


def test_a_screen_request_numbers_lines_and_shows_what_an_edit_replaces() -> None:
    request = screen_request(
        load_prompt("screen"),
        [("- 2026-11-29: mới", None), ("- 2026-11-28: b", "- 2026-01-01: a")],
        "en",
    )
    body = request.messages[1].text
    assert body == (
        "## Lines to judge\n1. - 2026-11-29: mới\n2. - 2026-11-28: b\n   replaces: - 2026-01-01: a"
    )


def test_clean_answer_strips_one_fence_around_everything() -> None:
    assert clean_answer("```markdown\n- 2026-11-29: a\n```") == "- 2026-11-29: a\n"
    assert clean_answer("\n\n```\n# T\n- 2026-11-29: a\n```\n\n") == "# T\n- 2026-11-29: a\n"
    chatter = "Here it is:\n```\n- 2026-11-29: a\n```"
    assert clean_answer(chatter) == chatter + "\n"  # chatter stays: the gate holds it
    assert clean_answer("") == "" and clean_answer("  \n") == "  \n"
    assert (
        clean_answer("- 2026-11-29: a\r\n- 2026-11-29: b") == "- 2026-11-29: a\n- 2026-11-29: b\n"
    )
    decomposed = "- 2026-11-29: Hà Nội".replace("à", "a\u0300")
    assert clean_answer(decomposed) == "- 2026-11-29: Hà Nội\n"


@given(st.text(alphabet=st.sampled_from(list("- 0123:abcđ\n#`")), max_size=200))
def test_clean_answer_only_removes_a_fence(text: str) -> None:
    cleaned = clean_answer(text)
    kept = [line for line in cleaned.split("\n") if line.strip()]
    given_lines = [line for line in text.split("\n") if line.strip()]
    assert kept == given_lines or kept == given_lines[1:-1]
    assert clean_answer(cleaned) == cleaned or cleaned.strip().startswith("```")
