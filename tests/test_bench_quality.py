"""bench/condense_quality.py: the gold set holds together, the matching rule credits the fact
and not the wording, and the scorer scores the scripted ceiling and floor as they are."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.fake_model_server import FakeServer, Reply, openai_reply
from trinho.models import ScriptedModel

BENCH = Path(__file__).resolve().parent.parent / "bench"
NOT = ["not cleared"]
TWO_WEEKS = ("en-01-move", "vi-04-ngay-noi-tuong-doi")
"""A move (a learn, a resolve, junk) in English; dates said relatively in Vietnamese."""


def load(name: str) -> ModuleType:
    """A bench module; `bench/` on the path, as when the script runs."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    if name == "condense_quality":
        spec = importlib.util.spec_from_file_location(name, BENCH / "condense_quality.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
        return module
    return importlib.import_module(name)


match = load("quality.match")
gold = load("quality.gold")
WEEKS: list[Any] = gold.load_weeks()


def items(kind: str) -> list[tuple[str, Any]]:
    return [(w.id, i) for w in WEEKS for i in (*w.learn, *w.resolve) if getattr(i, kind)]


# --- the gold set ------------------------------------------------------------------------------


def test_the_gold_set_has_24_weeks_or_more_in_both_languages() -> None:
    locales = [w.locale for w in WEEKS]
    assert len(WEEKS) >= 24 and locales.count("en") >= 10 and locales.count("vi") >= 10
    tags = {t for w in WEEKS for t in w.tags}
    for kind in ("contradiction", "correction", "dates", "names", "long", "empty", "guess"):
        assert kind in tags
    assert any(not w.said for w in WEEKS)  # an empty week
    assert max(len(w.said) for w in WEEKS) >= 25  # a long one


def test_vietnamese_weeks_are_written_with_their_diacritics() -> None:
    for week in (w for w in WEEKS if w.locale == "vi"):
        text = week.memory + "".join(s.text for s in week.said)
        assert match.fold(text) != text.casefold(), week.id


@pytest.mark.parametrize("week", WEEKS, ids=lambda w: w.id)
def test_each_annotation_is_consistent(week: Any) -> None:
    memory = week.memory.split("\n")
    facts = (*week.learn, *week.resolve)
    for item in week.resolve:
        assert item.old in memory  # a change names a line of the starting MEMORY.md
    for item in (*facts, *week.junk):
        assert match.carries(item.line, item.need, item.avoid), item.line
    for item in facts:  # the reference line is not junk of its week
        assert not any(match.carries(item.line, j.need, j.avoid) for j in week.junk)
    for bad in [line for i in facts for line in i.wrong] + [j.line for j in week.junk]:
        assert not any(match.carries(bad, i.need, i.avoid) for i in facts), bad


# --- the matching rule -------------------------------------------------------------------------


@pytest.mark.parametrize(("week", "item"), items("wrong"), ids=lambda v: getattr(v, "line", v))
def test_a_wrong_fact_is_never_credited(week: str, item: Any) -> None:
    for line in item.wrong:
        assert not match.carries(line, item.need, item.avoid), (week, line)


@pytest.mark.parametrize(("week", "item"), items("reworded"), ids=lambda v: getattr(v, "line", v))
def test_a_reworded_fact_is_credited(week: str, item: Any) -> None:
    for line in item.reworded:
        assert match.carries(line, item.need, item.avoid), (week, line)


@pytest.mark.parametrize(
    ("line", "need", "avoid", "credited"),
    [
        # names that look like words: a name needs its capital
        ("- 2026-11-24: Mai vào đội tuyển toán", ["Mai", "toán"], [], True),
        ("- 2026-11-24: Ngày mai đi học toán", ["Mai", "toán"], [], False),
        ("- 2026-11-27: Gọi thợ sửa lan can", ["Lan"], [], False),
        # accents and case folded for matching: the fact, not the spelling
        ("- 2026-11-28: Moved to Da Nang", ["Đà Nẵng"], [], True),
        ("- 2026-11-28: Lives in Đà Nẵng", ["da nang"], [], True),
        # dates said in any usual way, and a relative date is no date
        ("- 2026-11-27: Dentist on Thu 3 Dec, 9am", ["dentist", "@12-03", "@09:00"], [], True),
        ("- 2026-11-27: Khám răng ngày 3 tháng 12 lúc 9 giờ sáng", ["răng", "@12-03"], [], True),
        ("- 2026-11-27: Khám răng thứ Năm tuần sau", ["răng", "@12-03"], [], False),
        ("- 2026-11-27: Dentist on 2027-12-03", ["dentist", "@2026-12-03"], [], False),
        ("- 2026-11-24: Birthday 4/3", ["@03-04"], [], True),
        ("- 2026-11-24: Birthday 14/3", ["@03-04"], [], False),
        # numbers: separators and English number words
        ("- 2026-11-29: Để dành 5,000,000 đồng", ["5000000"], [], True),
        ("- 2026-11-29: Để dành 500.000 đồng", ["5000000"], [], False),
        ("- 2026-11-25: Two lessons a week", ["2", "lesson"], [], True),
        ("- 2026-11-25: Room 10", ["1"], [], False),
        # whole words, an English plural allowed
        ("- 2026-11-25: Category theory", ["cat"], [], False),
        ("- 2026-11-24: Tennis on Thursdays", ["Thursday"], [], True),
        # a negation the item avoids
        ("- 2026-11-25: Still allergic, not cleared", ["allergic", ["cleared"]], NOT, False),
        ("- 2026-11-25: Penicillin allergy cleared", ["penicillin", ["cleared"]], NOT, True),
        # the entry's own date is not a date of the fact
        ("- 2026-12-03: Dentist appointment", ["dentist", "@12-03"], [], False),
        ("", ["anything"], [], False),
        ("- 2026-11-25: Anything", [], [], False),
    ],
)
def test_the_matching_rule_on_examples(
    line: str, need: list[Any], avoid: list[Any], credited: bool
) -> None:
    assert match.carries(line, need, avoid) is credited


WORD = st.text(alphabet="abcdeghiklmnopqrstuvxyàáảãạâầấăắđêềếôồốơờớưừứ", min_size=1, max_size=8)


@settings(max_examples=40)
@given(st.lists(WORD, min_size=1, max_size=8), st.data())
def test_a_line_carries_each_of_its_own_words(words: list[str], data: st.DataObject) -> None:
    word = data.draw(st.sampled_from(words))
    assert match.carries("- 2026-11-25: " + " ".join(words), [word])


@settings(max_examples=40)
@given(st.lists(WORD, min_size=1, max_size=6), st.text(max_size=40))
def test_more_text_never_takes_a_fact_away(words: list[str], more: str) -> None:
    line = "- 2026-11-25: " + " ".join(words)
    need = [words[0], words[-1]]
    assert match.carries(line, need)
    assert match.carries(line + " " + more.replace("\n", " "), need)


@settings(max_examples=40)
@given(st.lists(WORD, min_size=1, max_size=6), WORD)
def test_a_word_the_line_lacks_is_not_found(words: list[str], other: str) -> None:
    folded = {match.fold(w) for w in words}
    wanted = match.fold(other)
    if wanted in folded or any(w in (wanted + "s", wanted + "es") for w in folded):
        return
    assert not match.carries("- 2026-11-25: " + " ".join(words), [other])


# --- the scorer on two gold weeks --------------------------------------------------------------


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load("condense_quality")


@pytest.fixture(scope="module")
def two_weeks(bench: ModuleType) -> dict[str, Any]:
    weeks = gold.load_weeks(only=TWO_WEEKS)
    assert [w.id for w in weeks] == list(TWO_WEEKS)
    scores = {}
    for player in bench.players(bench.parse_args(["--scripted"])):
        scores[player.name.split()[1]] = bench.total(bench.gold_week(w, player) for w in weeks)
    scores["none"] = bench.total(bench.no_memory(w) for w in weeks)
    scores["weeks"] = weeks
    return scores


def test_the_ceiling_learns_resolves_and_keeps_everything_and_writes_no_junk(
    two_weeks: dict[str, Any],
) -> None:
    s = two_weeks["perfect"]
    assert (s.learned, s.resolved, s.kept) == (s.learn, s.resolve, s.keep) == (4, 1, 10)
    assert (s.junk, s.other) == (0, 0) and s.junk_items == 3
    assert s.questions == 1  # the move is an edit: the gate holds it for the owner
    assert s.tokens > 0


def test_the_floor_learns_nothing_and_the_gate_keeps_every_line(
    two_weeks: dict[str, Any],
) -> None:
    s = two_weeks["adversary"]
    assert (s.learned, s.resolved, s.junk, s.other) == (0, 0, 0, 0)
    assert s.kept == s.keep == 10
    assert s.questions == 2  # each rewrite held whole
    assert [m.split(" not ")[1].split(":")[0] for m in s.missed].count("learned") == 4


def test_no_memory_keeps_nothing(two_weeks: dict[str, Any]) -> None:
    s = two_weeks["none"]
    assert (s.learned, s.kept, s.resolved, s.questions) == (0, 0, 0, 0) and s.keep == 10


def test_a_model_that_writes_wrong_facts_and_junk_is_scored_so(bench: ModuleType) -> None:
    """A rewrite that applies by itself: the wrong version of every fact, and the junk."""
    week = gold.load_weeks(only=TWO_WEEKS[:1])[0]
    lines = [i.wrong[0] for i in week.learn] + [j.line for j in week.junk]
    lines.append("- 2026-11-26: Owner plays the violin")

    def careless(_: Any) -> Any:
        def reply(request: Any) -> str:
            if not request.messages[0].text.startswith("You maintain MEMORY.md"):
                return str(load("quality.players").accept_all(request))
            return "\n".join(f"ADD {line}" for line in lines)

        return ScriptedModel(reply)

    s = bench.gold_week(week, bench.Player("careless", careless))
    assert (s.learned, s.resolved, s.kept) == (0, 0, s.keep)
    assert (s.junk, s.junk_items, s.other) == (2, 2, 2)  # the wrong fact and the violin


def test_the_command_prints_the_table(
    bench: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert bench.main(["--scripted", "--only", TWO_WEEKS[0]]) == 0
    out = capsys.readouterr().out
    assert "| scripted perfect (ceiling) | 1 | 1.00 (1/1) | 1.00 (6/6) | 1.00 (1/1) | 0/2 |" in out
    assert "| scripted adversary (floor) | 1 | 0.00 (0/1) | 1.00 (6/6) | 0.00 (0/1) | 0/2 |" in out
    assert "| no memory | 1 | 0.00 (0/1) | 0.00 (0/6) | 0.00 (0/1) | 0/2 | 0 | 0 | 0 |" in out


def test_a_replayed_year_scores_by_quarter(bench: ModuleType) -> None:
    player = bench.players(bench.parse_args(["--scripted"]))[0]
    quarters = bench.replay_year(2, 1, player, 0.0)
    assert len(quarters) == 1
    q = quarters[0]
    assert q.score.weeks == 2 and q.score.learned == q.score.learn > 0
    assert q.score.kept == q.score.keep and q.score.junk == 0
    assert q.truth == 1.0 and q.stale == 0


def test_a_server_given_with_model_answers_through_the_configured_adapter(
    bench: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--model PROVIDER:MODEL` and `--base-url`: the workspace's configured model, over HTTP."""
    added = "ADD - 2026-11-28: Works remotely for Sao Mai, from Đà Nẵng"
    with FakeServer(Reply(openai_reply(added, prompt=900, completion=20)), any_model=True) as srv:
        argv = ["--model", "llamacpp:served-model", "--base-url", f"{srv.url}/v1"]
        assert bench.main([*argv, "--context", "8192", "--only", TWO_WEEKS[0]]) == 0
        assert srv.posts  # the rewrite, then the screening, went to the server
    rows = [line for line in capsys.readouterr().out.split("\n") if "llamacpp:served" in line]
    # the addition is learned; the screening's answer (the same text) has no verdict: held
    assert len(rows) == 1
    assert rows[0].startswith(
        "| llamacpp:served-model | 1 | 1.00 (1/1) | 1.00 (6/6) | 0.00 (0/1) | 0/2 | 0 | 1 | 1,840 |"
    )
