"""End-to-end condensation runs with the scripted model on Vietnamese and English weeks."""

from __future__ import annotations

import io
import itertools
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FixedClock
from support.condense_weeks import (
    EN_MEMORY,
    RUN,
    VI_ADDED,
    VI_MEMORY,
    VI_NOTES,
    VI_TURNS,
    busy_week,
    calls,
    en_week,
    fill_week,
    is_rewrite,
    memory_in,
    numbered,
    two_roles,
    vi_good_rewrite,
    vi_week,
)
from trinho.channels import ConsoleChannel, Outbox
from trinho.condense import RunReport, run_condensation
from trinho.condense.rules.ops import view_lines
from trinho.condense.rules.report import render_report
from trinho.condense.rules.screen import parse_verdicts
from trinho.condense.store.runs import read_journal, run_dir
from trinho.durable import FaultPoint, inject
from trinho.errors import TrinhoError
from trinho.memory.format import parse
from trinho.models import ChatRequest, ChatResponse, ModelError, ScriptedModel, Usage, read_ledger
from trinho.notes.store import save_note
from trinho.proposals import store as proposals
from trinho.proposals.format import Proposal
from trinho.review.appliers import APPLIERS
from trinho.workspace import Workspace, init_workspace, open_workspace


def memory(ws: Workspace) -> str:
    return ws.memory_file.read_text(encoding="utf-8")


def run(
    ws: Workspace, model: ScriptedModel, stream: io.StringIO | None = None, **kw: bool
) -> RunReport:
    channel = ConsoleChannel(ws.locale, stream if stream is not None else io.StringIO())
    return run_condensation(ws, model=model, channel=channel, **kw)


def with_config(ws: Workspace, clock: FixedClock, section: str) -> Workspace:
    """The workspace reopened with `section` added to its config."""
    config = ws.internal / "config.toml"
    config.write_text(config.read_text() + "\n" + section + "\n")
    return open_workspace(ws.root, clock)


def held_classes(report: RunReport) -> list[str]:
    return sorted(rc.change.cls for rc in report.held)


def memory_proposals(ws: Workspace) -> list[Proposal]:
    return [p for p in proposals.list_proposals(ws).proposals if p.kind == "memory"]


def test_a_good_vietnamese_week_is_applied_whole(workspace: Workspace, clock: FixedClock) -> None:
    vi_week(workspace, clock)
    model = two_roles(vi_good_rewrite())
    stream = io.StringIO()
    report = run(workspace, model, stream)
    assert report.outcome == "done" and report.run_id == RUN
    assert memory(workspace) == vi_good_rewrite()
    assert report.held == ()
    assert sorted(rc.change.cls for rc in report.changes) == ["added", "added", "date_changed"]
    assert calls(model) == (1, 1)
    assert [s.decision for s in report.screening] == ["accept", "accept"]
    assert memory_proposals(workspace) == []
    assert stream.getvalue() == ""  # nothing held: nothing announced
    assert report.notification is None
    folder = run_dir(workspace, RUN)
    assert (folder / "MEMORY.before.md").read_text(encoding="utf-8") == VI_MEMORY
    journal = read_journal(workspace, RUN)
    assert journal is not None and journal.state == "done"
    saved = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    assert saved["counts"]["auto"] == 3 and saved["prompts"] == ["rewrite.v2", "screen.v1"]
    ledger = read_ledger(workspace).records
    assert [(r.purpose, r.run) for r in ledger] == [("rewrite", RUN), ("screen", RUN)]
    assert report.model_calls == 2 and report.tokens == sum(r.total_tokens for r in ledger)


def test_the_rewrite_request_carries_the_whole_week(
    workspace: Workspace, clock: FixedClock
) -> None:
    vi_week(workspace, clock)
    model = two_roles(vi_good_rewrite())
    report = run(workspace, model)
    request = model.requests[0]
    assert memory_in(request) == VI_MEMORY
    body = request.messages[-1].text
    for needle in (
        "### 2026-11-24\n- 08:10 [note] Mai được chọn vào đội bơi của trường",
        "### 2026-11-27\n- 20:00 [user] Nhắc tôi gọi cho anh Đức về hợp đồng",
        "- 20:00 [assistant] Được, tôi sẽ nhắc bạn.",
        "- 07:00 [note] Sáng nay vẫn chạy bộ 5 km",
    ):
        assert needle in body
    assert "2026-11-23 to 2026-11-29" in request.messages[0].text
    used = {d.day.isoformat(): (d.notes, d.turns, d.used) for d in report.days}
    assert used["2026-11-27"] == (0, 2, True) and used["2026-11-26"] == (1, 0, True)
    assert len(report.days) == 7 and report.chunks == 1


ENGLISH_BAD = """\
Sure! Here is the updated MEMORY.md:

# Long-term memory

Written by hand: keep these lines.

## People
- 2026-02-11: Sister Anna lives in Porto
- 2026-04-03: Best friend is Tom, a nurse
- 2026-11-25: Learning Vietnamese, two lessons a week
- 2026-12-04: Dentist appointment on Thursday at 9
- 2025-06-01: Has always loved pho
## Habits
- 2026-07-19: Prefers meetings after 10am, never on Fridays
- 2026-08-30: Plays tennis on Wednesday evenings
- 2026-11-02: Reads history books before bed

Let me know if you want any other changes!
"""


def test_a_bad_english_rewrite_loses_nothing(workspace: Workspace, clock: FixedClock) -> None:
    en_week(workspace, clock)
    stream = io.StringIO()
    report = run(workspace, two_roles(ENGLISH_BAD), stream)
    text = memory(workspace)
    for line in EN_MEMORY.splitlines():
        assert line in text.splitlines()  # every old line is still there
    assert "- 2026-11-25: Learning Vietnamese, two lessons a week" in text
    for junk in ("Sure!", "Let me know", "2026-12-04", "2025-06-01", "lives in Porto"):
        assert junk not in text
    assert held_classes(report) == [
        "edited",
        "malformed",
        "malformed",
        "removed",
        "strange_date",
        "strange_date",
    ]
    pending = memory_proposals(workspace)
    assert len(pending) == 6
    assert {p.origin for p in pending} == {f"condense:{RUN}"}
    assert {p.id for p in pending} == {rc.proposal_id for rc in report.held}
    announced = stream.getvalue()
    assert announced.count("Weekly memory update, 2026-11-29") == 1
    assert "- 2026-10-05: Allergic to penicillin" in announced
    entry = Outbox(workspace).get(f"condense:{RUN}")
    assert entry is not None and entry.status == "sent" and len(entry.notification.items) == 6
    assert report.delivery == "sent"


def test_a_fence_around_the_file_is_removed(workspace: Workspace, clock: FixedClock) -> None:
    vi_week(workspace, clock)
    report = run(workspace, two_roles("```markdown\n" + vi_good_rewrite() + "```\n"))
    assert report.held == ()
    assert memory(workspace) == vi_good_rewrite()


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "I'm sorry, but I can't help with rewriting personal records.",
        "Tôi xin lỗi, tôi không thể làm việc này.",
    ],
)
def test_an_empty_answer_or_a_refusal_changes_nothing_under_the_edit_script(
    workspace: Workspace, clock: FixedClock, answer: str
) -> None:
    vi_week(workspace, clock)
    report = run(workspace, two_roles(answer))
    assert memory(workspace) == VI_MEMORY and report.held == () and report.changes == ()
    assert memory_proposals(workspace) == []
    assert report.script is not None and report.script["chatter"] == (1 if answer else 0)


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "I'm sorry, but I can't help with rewriting personal records.",
        "Tôi xin lỗi, tôi không thể làm việc này.",
    ],
)
def test_an_empty_answer_or_a_refusal_of_the_whole_file_is_held_whole(
    workspace: Workspace, clock: FixedClock, answer: str
) -> None:
    vi_week(workspace, clock)
    workspace = with_config(workspace, clock, '[condense]\nprotocol = "file"')
    stream = io.StringIO()
    report = run(workspace, two_roles(answer), stream)
    assert memory(workspace) == VI_MEMORY
    assert held_classes(report) == ["suspicious"]
    [proposal] = memory_proposals(workspace)
    assert proposal.change["snapshot"] == VI_MEMORY
    assert stream.getvalue().count("Weekly memory update") == 1
    # the owner sees what would go and what the model said
    assert "Old: would remove 7 of 7 lines:\n  Dòng viết tay: đừng xoá những dòng này.\n" in (
        stream.getvalue()
    )
    added = f"would add 1 line:\n  {answer}" if answer else "would add 0 lines:"
    assert f"New: {added}\n" in stream.getvalue()


def test_screening_rejections_keep_lines_out_and_an_unread_verdict_holds_only_its_line(
    workspace: Workspace, clock: FixedClock
) -> None:
    vi_week(workspace, clock)
    rewrite = (
        vi_good_rewrite().replace(
            "- 2026-11-01: Thích uống cà phê sữa đá buổi sáng",
            "- 2026-11-26: Thích uống trà xanh buổi sáng",
        )
        + "- 2026-11-27: Trợ lý đã nói được, tôi sẽ nhắc\n"
    )

    def screen(request: ChatRequest) -> str:
        lines = numbered(request)
        answers = []
        for n, line in enumerate(lines, 1):
            if "Trợ lý" in line:
                answers.append(f"{n}. BỎ: lời trợ lý, không phải sự thật về chủ nhân")
            elif "trà xanh" in line:
                answers.append(f"{n}. REJECT: loses the detail about the morning")
            elif "ngân hàng" in line:
                answers.append(f"{n}) maybe?")  # garbled: no verdict can be read
            else:
                answers.append(f"{n}. NHẬN")
        return "\n".join(answers)

    report = run(workspace, two_roles(rewrite, screen))
    text = memory(workspace)
    assert "Trợ lý" not in text
    assert "- 2026-11-01: Thích uống cà phê sữa đá buổi sáng" in text  # the edit was dropped
    assert "trà xanh" not in text
    assert VI_ADDED[0] in text  # accepted
    assert VI_ADDED[1] not in text  # unreadable: held, not applied by itself
    [held] = report.held
    assert (held.change.cls, held.change.new) == ("added", VI_ADDED[1])
    assert held.change.reason_code == "screen_unreadable"
    [proposal] = memory_proposals(workspace)
    assert proposal.id == held.proposal_id and proposal.change["new"] == VI_ADDED[1]
    assert proposal.reason == (
        "the check of new lines gave no answer that can be read for this one; "
        "it is added only if you approve it"
    )
    verdicts = {s.line: (s.decision, s.reason) for s in report.screening}
    assert verdicts["- 2026-11-27: Trợ lý đã nói được, tôi sẽ nhắc"] == (
        "reject",
        "lời trợ lý, không phải sự thật về chủ nhân",
    )
    assert verdicts["- 2026-11-26: Thích uống trà xanh buổi sáng"][0] == "reject"
    assert verdicts[VI_ADDED[1]][0] == "unreadable"
    assert verdicts[VI_ADDED[0]] == ("accept", "")
    assert report.to_dict()["screening"] | {"verdicts": [], "skipped": []} == {
        "accepted": 1,
        "rejected": 2,
        "unscreened": 1,
        "unreadable": 1,
        "verdicts": [],
        "skipped": [],
    }
    proposals.approve(workspace, proposal.id, "owner", appliers=APPLIERS)
    assert VI_ADDED[1] in memory(workspace)  # the owner's approval writes it


def test_a_garbled_screening_answer_holds_every_new_line(
    workspace: Workspace, clock: FixedClock
) -> None:
    vi_week(workspace, clock)
    garbled = "Sure! These lines look fine to me.\n1 2\nACCEPT"
    report = run(workspace, two_roles(vi_good_rewrite(), garbled))
    text = memory(workspace)
    assert "- 2026-11-29: Chạy bộ mỗi sáng chủ nhật" in text  # re-dated: not a new line
    assert not any(line in text for line in VI_ADDED)
    assert sorted((rc.change.cls, rc.change.new) for rc in report.held) == [
        ("added", line) for line in VI_ADDED
    ]
    assert {rc.change.reason_code for rc in report.held} == {"screen_unreadable"}
    assert len(memory_proposals(workspace)) == 2
    assert [s.decision for s in report.screening] == ["unreadable", "unreadable"]
    assert report.counts() | {"by_class": {}} == {
        "changes": 3,
        "auto": 1,
        "held": 2,
        "by_class": {},
        "candidates": 2,
        "accepted": 0,
        "rejected": 0,
        "unscreened": 2,
        "unreadable": 2,
    }
    saved = json.loads((run_dir(workspace, RUN) / "report.json").read_text(encoding="utf-8"))
    assert {k: v for k, v in saved["screening"].items() if k not in ("verdicts", "skipped")} == {
        "accepted": 0,
        "rejected": 0,
        "unscreened": 2,
        "unreadable": 2,
    }
    english = render_report(report, "en")
    assert (
        "1 change applied, 2 held for approval; 2 new lines: 0 accepted and 0 rejected by "
        "screening, 2 unscreened; 2 model calls" in english
    )
    assert "2 new lines wait for your approval: their screening could not be read" in english
    assert "screened, 0 rejected" not in english
    vietnamese = render_report(report, "vi")
    assert (
        "1 thay đổi đã áp dụng, 2 chờ duyệt; 2 dòng mới: 0 được nhận và 0 bị bỏ khi sàng lọc, "
        "2 chưa sàng lọc; 2 lần gọi mô hình" in vietnamese
    )
    assert "2 dòng mới chờ bạn duyệt: không đọc được kết quả sàng lọc của chúng" in vietnamese
    assert "[CHỜ DUYỆT] thêm [" in vietnamese and "KHÔNG ĐỌC ĐƯỢC, chờ duyệt" in vietnamese


def test_a_vietnamese_workspace_says_why_a_line_is_held_in_vietnamese(
    workspace: Workspace, clock: FixedClock
) -> None:
    vi_week(workspace, clock)
    config = workspace.internal / "config.toml"
    config.write_text(config.read_text().replace('locale = "en"', 'locale = "vi"', 1))
    ws = open_workspace(workspace.root, clock)
    stream = io.StringIO()
    report = run(ws, two_roles(vi_good_rewrite(), "1. NHẬN\n2. chắc là được"), stream)
    assert VI_ADDED[0] in memory(ws) and VI_ADDED[1] not in memory(ws)
    [held] = report.held
    assert held.change.reason.startswith("the check of new lines gave no answer")  # stored
    reason = "việc kiểm tra dòng mới không cho câu trả lời đọc được về dòng này"
    assert reason in stream.getvalue()  # the announcement speaks the owner's language
    assert report.screening[1].reason.startswith(reason)
    assert "1 được nhận và 0 bị bỏ khi sàng lọc, 1 chưa sàng lọc" in render_report(report, "vi")


def test_screening_is_skipped_when_the_budget_is_spent(
    workspace: Workspace, clock: FixedClock
) -> None:
    vi_week(workspace, clock)
    ws = with_config(workspace, clock, "[budget]\nrun_tokens = 60000")
    costly = ChatResponse(vi_good_rewrite(), usage=Usage(2_000, 57_900), model="scripted:model")
    model = two_roles(costly)
    report = run(ws, model)
    assert calls(model) == (1, 0)
    # not asked (no setting turns screening off; only the budget skips it): the gate alone
    # decides, as it does for a run without screening
    assert memory(ws) == vi_good_rewrite() and report.held == ()
    assert [s.decision for s in report.screening] == ["unscreened", "unscreened"]
    assert report.screened() == {"accepted": 0, "rejected": 0, "unscreened": 2, "unreadable": 0}
    [skipped] = report.screening_skipped
    assert skipped.startswith("Lines 1-2 not screened:") and "60000" in skipped
    assert "0 accepted and 0 rejected by screening, 2 unscreened" in render_report(report, "en")
    assert "could not be read" not in render_report(report, "en")


def test_no_budget_for_the_rewrite_changes_nothing_and_keeps_the_week(
    workspace: Workspace, clock: FixedClock
) -> None:
    vi_week(workspace, clock)
    original = (workspace.internal / "config.toml").read_text()
    ws = with_config(workspace, clock, "[budget]\nrun_tokens = 100")
    model = two_roles(vi_good_rewrite())
    report = run(ws, model)
    assert report.outcome == "skipped" and "100" in report.message
    assert model.requests == [] and memory(ws) == VI_MEMORY
    assert not any(d.used for d in report.days if d.chunks)
    (workspace.internal / "config.toml").write_text(original)
    again = run(open_workspace(workspace.root, clock), model)
    assert again.outcome == "done" and again.run_id == RUN


def test_a_hand_edit_during_the_run_is_respected(workspace: Workspace, clock: FixedClock) -> None:
    vi_week(workspace, clock)

    def rewrite(request: ChatRequest) -> str:
        edited = memory(workspace).replace("- 2026-09-14: Dị ứng tôm\n", "")
        edited += "- 2026-11-29: Viết tay trong lúc chạy: thích mèo\n"
        workspace.memory_file.write_text(edited, encoding="utf-8")
        return vi_good_rewrite()

    report = run(workspace, two_roles(rewrite))
    text = memory(workspace)
    assert report.restarts == 1
    assert "Dị ứng tôm" not in text  # deleted by hand: not brought back
    assert "- 2026-11-29: Viết tay trong lúc chạy: thích mèo" in text  # added by hand: kept
    for line in VI_ADDED:
        assert line in text
    assert memory_proposals(workspace) == []  # nothing to ask about the owner's own edit
    assert report.held == ()  # the owner's line is carried into the rewrite, not held
    assert (
        (run_dir(workspace, RUN) / "MEMORY.before.md")
        .read_text(encoding="utf-8")
        .endswith("thích mèo\n")
    )


def test_once_per_week_then_force_then_next_week(workspace: Workspace, clock: FixedClock) -> None:
    vi_week(workspace, clock)
    assert run(workspace, two_roles(vi_good_rewrite())).run_id == RUN
    idle = ScriptedModel([])  # any call would fail: the run must not call the model
    again = run(workspace, idle)
    assert again.outcome == "already_done" and again.run_id == RUN
    assert "--force" in again.message
    # forced, a run reads what came after the last one: nothing yet
    assert run(workspace, idle, force=True).outcome == "skipped"
    clock.advance(hours=1)
    save_note(workspace, "Thêm một ghi chú chiều chủ nhật")
    clock.advance(minutes=1)
    forced = run(workspace, two_roles(vi_good_rewrite()), force=True)
    assert forced.outcome == "done" and forced.run_id == f"{RUN}.2"
    assert [d.notes for d in forced.days if d.notes] == [1]  # only the new note
    assert run(workspace, idle).outcome == "already_done"
    save_note(workspace, "Và một ghi chú nữa")
    clock.advance(minutes=1)
    assert run(workspace, two_roles(vi_good_rewrite()), force=True).run_id == f"{RUN}.3"
    clock.advance(days=7)
    workspace.note_path(clock.now.date()).parent.mkdir(exist_ok=True)
    save_note(workspace, "Tuần mới")
    assert run(workspace, two_roles(memory(workspace))).run_id == "2026-W49"


def test_a_dry_run_writes_nothing(workspace: Workspace, clock: FixedClock) -> None:
    vi_week(workspace, clock)
    model = two_roles(vi_good_rewrite())
    report = run(workspace, model, dry_run=True)
    assert report.outcome == "dry_run" and report.written is False
    assert memory(workspace) == VI_MEMORY
    assert not (workspace.internal / "runs" / RUN).exists()
    assert [r.run for r in read_ledger(workspace).records] == [f"{RUN}.dry-run"] * 2
    assert run(workspace, two_roles(vi_good_rewrite())).outcome == "done"


def test_nothing_in_the_window_skips_without_a_model(workspace: Workspace) -> None:
    workspace.memory_file.write_text(VI_MEMORY, encoding="utf-8")
    report = run(workspace, ScriptedModel([]))
    assert report.outcome == "skipped" and "nothing to condense" in report.message
    assert not (workspace.internal / "runs" / RUN).exists()


def test_a_model_failure_fails_the_run_and_the_week_stays_open(
    workspace: Workspace, clock: FixedClock
) -> None:
    vi_week(workspace, clock)

    def down(request: ChatRequest) -> str:
        raise ModelError("scripted:model", "unreachable", "cannot reach the server")

    with pytest.raises(ModelError):
        run(workspace, ScriptedModel(down))
    journal = read_journal(workspace, RUN)
    assert journal is not None and journal.state == "failed"
    assert "cannot reach" in (journal.error or "")
    assert memory(workspace) == VI_MEMORY
    assert run(workspace, two_roles(vi_good_rewrite())).run_id == RUN


def test_a_first_run_with_no_memory_file(workspace: Workspace, clock: FixedClock) -> None:
    vi_week(workspace, clock)
    workspace.memory_file.unlink()
    report = run(workspace, two_roles("\n".join(VI_ADDED) + "\n"))
    assert memory(workspace) == "\n".join(VI_ADDED) + "\n"
    assert report.held == ()


def test_every_day_of_a_long_week_is_read_in_chunks(
    workspace: Workspace, clock: FixedClock
) -> None:
    ws = with_config(workspace, clock, '[condense]\ncontext_tokens = 5000\nprotocol = "file"')
    busy_week(ws, clock, "2026-11-29T21:00:00+07:00")
    seen: list[str] = []

    def rewrite(request: ChatRequest) -> str:
        current = memory_in(request)
        seen.append(current)
        day = request.messages[-1].text.split("### 2026-11-")[1][:2]
        return current + f"- 2026-11-{day}: Tuần này đi chợ mỗi ngày (phần từ ngày {day})\n"

    model = two_roles(rewrite)
    report = run(ws, model)
    rewrites, screens = calls(model)
    assert rewrites == report.chunks > 1
    assert all(day.used and day.chunks for day in report.days)
    assert sum(day.notes for day in report.days) == 7 * 12
    for previous, following in itertools.pairwise(seen):
        assert following.startswith(previous)  # each call is fed the previous partial
    added = [e for e in parse(memory(ws)).entries if "đi chợ" in e.text]
    assert len(added) == rewrites
    assert screens == 1


@pytest.mark.durability
def test_a_run_cut_off_before_announcing_announces_once(
    workspace: Workspace, clock: FixedClock
) -> None:
    en_week(workspace, clock)
    outbox = Outbox(workspace).root

    def crash(path: Path) -> None:
        if path.parent == outbox:
            raise KeyboardInterrupt  # the process dies after the proposals were made

    stream = io.StringIO()
    with inject("before_replace", crash), pytest.raises(KeyboardInterrupt):
        run(workspace, two_roles(ENGLISH_BAD), stream)
    journal = read_journal(workspace, RUN)
    assert journal is not None and journal.state == "proposed"
    written = memory(workspace)
    resumed = run(workspace, ScriptedModel([]), stream)
    assert resumed.outcome == "resumed" and len(resumed.held) == 6
    assert run(workspace, ScriptedModel([]), stream).outcome == "already_done"
    assert stream.getvalue().count("Weekly memory update, 2026-11-29") == 1
    assert len(memory_proposals(workspace)) == 6
    assert memory(workspace) == written


@pytest.mark.durability
def test_a_run_cut_off_while_proposing_makes_each_proposal_once(
    workspace: Workspace, clock: FixedClock
) -> None:
    en_week(workspace, clock)
    made: list[Path] = []

    def flaky(path: Path) -> None:
        if path.parent == workspace.proposals_root:
            if len(made) == 3:
                raise KeyboardInterrupt  # killed while writing the fourth proposal
            made.append(path)

    with inject("before_replace", flaky), pytest.raises(KeyboardInterrupt):
        run(workspace, two_roles(ENGLISH_BAD))
    journal = read_journal(workspace, RUN)
    assert journal is not None and journal.state == "applied"
    assert len(memory_proposals(workspace)) == 3
    stream = io.StringIO()
    resumed = run(workspace, ScriptedModel([]), stream)
    assert resumed.outcome == "resumed"
    assert len(memory_proposals(workspace)) == 6
    assert stream.getvalue().count("Weekly memory update") == 1


def test_a_failed_delivery_stays_in_the_outbox(workspace: Workspace, clock: FixedClock) -> None:
    en_week(workspace, clock)

    class Down:
        name = "down"

        def send(self, notification: object) -> object:
            raise OSError("network is down")

        def close(self) -> None:
            pass

    report = run_condensation(workspace, model=two_roles(ENGLISH_BAD), channel=Down())  # type: ignore[arg-type]
    assert report.notification == f"condense:{RUN}"
    assert (
        report.delivery.startswith("queued in the outbox") and "network is down" in report.delivery
    )
    clock.advance(hours=1)
    stream = io.StringIO()
    Outbox(workspace).deliver(ConsoleChannel("en", stream))
    Outbox(workspace).deliver(ConsoleChannel("en", stream))
    assert stream.getvalue().count("Weekly memory update, 2026-11-29") == 1


def test_a_change_the_owner_rejected_is_not_asked_again(
    workspace: Workspace, clock: FixedClock
) -> None:
    en_week(workspace, clock)
    dropped = EN_MEMORY.replace("- 2026-10-05: Allergic to penicillin\n", "")
    first = run(workspace, two_roles(dropped))
    [removal] = first.held
    assert removal.proposal_id is not None
    proposals.reject(workspace, removal.proposal_id, "owner")
    save_note(workspace, "Another note")
    clock.advance(minutes=1)
    second = run(workspace, two_roles(dropped), force=True)
    [again] = second.held
    assert again.proposal_id is None and again.note == "rejected_before"
    assert "- 2026-10-05: Allergic to penicillin" in memory(workspace)
    assert len(memory_proposals(workspace)) == 1


def test_the_report_json_is_plain_data(workspace: Workspace, clock: FixedClock) -> None:
    en_week(workspace, clock)
    report = run(workspace, two_roles(ENGLISH_BAD))
    data = json.loads(json.dumps(report.to_dict()))
    assert data["counts"]["held"] == 6 and data["model"]["calls"] == 2
    held = [c for c in data["changes"] if c["action"] == "held"]
    assert all(c["proposal"] for c in held)
    assert {c["class"] for c in data["changes"]} >= {"removed", "edited", "malformed"}
    assert Path(workspace.root / data["before"]).read_text(encoding="utf-8") == EN_MEMORY


def test_a_budget_spent_midway_says_which_days_were_not_read(
    workspace: Workspace, clock: FixedClock
) -> None:
    ws = with_config(
        workspace,
        clock,
        '[condense]\ncontext_tokens = 4000\nprotocol = "file"\n[budget]\nrun_tokens = 25000',
    )
    busy_week(ws, clock, "2026-11-29T14:05:00+07:00")

    def rewrite(request: ChatRequest) -> ChatResponse:
        day = request.messages[-1].text.split("### 2026-11-")[1][:2]
        text = memory_in(request) + f"- 2026-11-{day}: Đi chợ (từ ngày {day})\n"
        return ChatResponse(text, usage=Usage(1_000, 11_400), model="scripted:model")

    model = two_roles(rewrite)
    report = run(ws, model)
    assert calls(model) == (2, 0) and report.chunks == 2
    unread = [d.day.isoformat() for d in report.days if not d.used]
    assert unread and unread[-1] == "2026-11-29"
    assert report.message.startswith("Not read by the rewrite: ") and unread[-1] in report.message
    assert "25000" in report.message
    assert len([e for e in parse(memory(ws)).entries if "Đi chợ" in e.text]) == 2
    assert all(s.decision == "unscreened" for s in report.screening)


OLD_LINES = [line for line in VI_MEMORY.split("\n") if line.strip()]
REWRITE_LINES = st.one_of(
    st.sampled_from(OLD_LINES),
    st.sampled_from(
        [
            "- 2026-11-25: Mai được chọn vào đội bơi",
            "- 2026-12-25: Ngày trong tương lai",
            "- 2019-01-01: Ngày quá xa",
            "- 2026-02-30: Ngày không có thật",
            "- 2026-11-28: Làm việc tại công ty hậu cần ở Hà Nội",
            "- 2026-11-29: Dị ứng tôm",
            "Here is your file:",
            "## Mục mới",
            "",
        ]
    ),
)


@pytest.mark.slow
@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(REWRITE_LINES, max_size=16), st.booleans())
def test_a_run_loses_no_old_line_whatever_the_model_answers(
    lines: list[str], reject_all: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        clock = FixedClock()
        ws = init_workspace(Path(tmp) / "ws", timezone="Asia/Ho_Chi_Minh", clock=clock).workspace
        vi_week(ws, clock)

        def screen(request: ChatRequest) -> str:
            verdict = "REJECT: no" if reject_all else "ACCEPT"
            return "\n".join(f"{n}. {verdict}" for n in range(1, len(numbered(request)) + 1))

        run(ws, two_roles("\n".join(lines), screen))
        written = memory(ws).split("\n")
        kept = {e.key for e in parse(memory(ws)).entries}
        held = [p.change for p in memory_proposals(ws) if p.status == "pending"]
        for line in OLD_LINES:
            if line.startswith("#"):
                continue  # headings are structure: removing one applies by itself
            entry = parse(line).entries
            if entry and entry[0].key in kept:
                continue  # the same entry, maybe re-dated later inside the window
            assert line in written or any(
                c["old"] == line or (c["class"] == "suspicious" and line in c["snapshot"])
                for c in held
            )


@pytest.mark.durability
@pytest.mark.parametrize("after_replace", [True, False])
def test_a_run_cut_off_around_the_replace_leaves_old_or_new_and_recovers(
    workspace: Workspace, clock: FixedClock, after_replace: bool
) -> None:
    en_week(workspace, clock)

    def dies(path: Path) -> None:
        if path == workspace.memory_file:
            raise KeyboardInterrupt

    point: FaultPoint = "after_replace" if after_replace else "before_replace"
    with inject(point, dies), pytest.raises(KeyboardInterrupt):
        run(workspace, two_roles(ENGLISH_BAD))
    journal = read_journal(workspace, RUN)
    assert journal is not None and journal.state == "applying"
    written = memory(workspace)
    if after_replace:
        assert "- 2026-11-25: Learning Vietnamese, two lessons a week" in written
    else:
        assert written == EN_MEMORY
    stream = io.StringIO()
    again = run(workspace, two_roles(ENGLISH_BAD), stream)
    assert again.outcome == ("resumed" if after_replace else "done")
    assert "- 2026-11-25: Learning Vietnamese, two lessons a week" in memory(workspace)
    before = run_dir(workspace, RUN) / "MEMORY.before.md"
    assert before.read_text(encoding="utf-8") == EN_MEMORY  # undo still gives the original
    assert len(memory_proposals(workspace)) == 6
    assert stream.getvalue().count("Weekly memory update, 2026-11-29") == 1
    # the report of a resumed run counts what applied by itself before the cut, not 0
    assert again.counts()["auto"] > 0 and again.counts()["held"] == 6
    assert "Learning Vietnamese" in render_report(again, "en")


def test_a_screening_call_that_fails_holds_its_lines(
    workspace: Workspace, clock: FixedClock
) -> None:
    vi_week(workspace, clock)

    def down(request: ChatRequest) -> str:
        raise ModelError("scripted:model", "timeout", "no answer within 60 s")

    report = run(workspace, two_roles(vi_good_rewrite(), down))
    assert report.outcome == "done"
    assert not any(line in memory(workspace) for line in VI_ADDED)
    assert [s.decision for s in report.screening] == ["unreadable", "unreadable"]
    assert {rc.change.reason_code for rc in report.held} == {"screen_failed"}
    [proposal, _] = memory_proposals(workspace)
    assert "check of new lines failed" in proposal.reason
    assert "no answer within 60 s" in proposal.reason
    [skipped] = report.screening_skipped
    assert skipped.startswith("Lines 1-2: the screening call failed")
    assert "no answer within 60 s" in skipped


def test_a_broken_channel_config_leaves_the_announcement_queued(
    workspace: Workspace, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    en_week(workspace, clock)
    import trinho.condense.announce as pipeline

    def broken(ws: Workspace) -> object:
        raise TrinhoError("[telegram] owner_chat_id must be a number")

    monkeypatch.setattr(pipeline, "channel_from_config", broken)
    report = run_condensation(workspace, model=two_roles(ENGLISH_BAD))
    assert report.outcome == "done" and "owner_chat_id" in report.delivery
    entry = Outbox(workspace).get(f"condense:{RUN}")
    assert entry is not None and entry.status == "pending"


def test_a_rejected_strange_date_is_not_asked_again_next_week(
    workspace: Workspace, clock: FixedClock
) -> None:
    """The reason names the week's window; the same line rejected last week stays rejected."""
    en_week(workspace, clock)
    future = EN_MEMORY + "- 2027-03-01: Trip to Kyoto planned\n"
    first = run(workspace, two_roles(future))
    [strange] = [c for c in first.held if c.change.cls == "strange_date"]
    assert strange.proposal_id is not None
    proposals.reject(workspace, strange.proposal_id, "owner")
    clock.advance(days=7)
    save_note(workspace, "Quiet week")
    clock.advance(minutes=1)
    second = run(workspace, two_roles(future))
    [again] = [c for c in second.held if c.change.cls == "strange_date"]
    assert again.change.reason != strange.change.reason
    assert again.proposal_id is None and again.note == "rejected_before"


# --- the edit script (protocol ops) -------------------------------------------------------


def line_no(text: str, start: str) -> int:
    """The 1-based number of the first line of `text` starting with `start`."""
    return next(n for n, line in enumerate(view_lines(text), 1) if line.startswith(start))


def test_every_operation_kind_end_to_end(workspace: Workspace, clock: FixedClock) -> None:
    vi_week(workspace, clock)
    coffee = line_no(VI_MEMORY, "- 2026-11-01: Thích uống cà phê")
    running = line_no(VI_MEMORY, "- 2026-10-20: Chạy bộ")
    shrimp = line_no(VI_MEMORY, "- 2026-09-14: Dị ứng tôm")
    mai = line_no(VI_MEMORY, "- 2026-05-10: Con gái")
    script = "\n".join(
        [
            "Here are the changes:",
            f"ADD [{mai}] - 2026-11-24: Mai vào đội bơi của trường",
            f"EDIT [{coffee}] - 2026-11-26: Thích uống trà sữa đá buổi sáng",
            f"DATE [{running}] 2026-11-29",
            f"REMOVE [{shrimp}] không còn đúng",
            f"DATE [{shrimp}] 2026-11-29",
            "REMOVE [999]",
            "```",
        ]
    )
    model = two_roles(script)
    report = run(workspace, model)
    text = memory(workspace)
    assert report.protocol == "ops" and report.script is not None
    assert report.script["operations"] == 4 and report.script["chatter"] == 2
    assert sorted(i["why"] for i in report.script["ignored"]) == ["line_taken", "no_such_line"]
    assert "- 2026-11-24: Mai vào đội bơi của trường" in text  # added, dated in the window
    assert "- 2026-11-29: Chạy bộ mỗi sáng chủ nhật" in text  # date moved later
    assert "- 2026-11-01: Thích uống cà phê sữa đá buổi sáng" in text  # the edit is held
    assert "- 2026-09-14: Dị ứng tôm" in text  # the removal is held
    assert sorted(rc.change.cls for rc in report.held) == ["edited", "removed"]
    assert "Here are the changes" not in text and "```" not in text
    [rewrite] = [r for r in model.requests if is_rewrite(r)]
    assert rewrite.cache_prefix and f"[{coffee}] - 2026-11-01" in rewrite.messages[0].text
    assert "Mai được chọn" in rewrite.messages[-1].text and "[1]" not in rewrite.messages[-1].text


def test_a_held_change_keeps_the_models_reason_and_where_it_came_from(
    workspace: Workspace, clock: FixedClock
) -> None:
    vi_week(workspace, clock)
    coffee = line_no(VI_MEMORY, "- 2026-11-01: Thích uống cà phê")
    shrimp = line_no(VI_MEMORY, "- 2026-09-14: Dị ứng tôm")
    script = "\n".join(
        [
            f"EDIT [{coffee}] - 2026-11-26: Thích uống trà sữa đá buổi sáng",
            f"REMOVE [{shrimp}] trùng với dòng về đồ ăn",
        ]
    )
    run(workspace, two_roles(script))
    by_class = {p.change["class"]: p for p in memory_proposals(workspace)}
    removal, edit = by_class["removed"], by_class["edited"]
    assert removal.why == "trùng với dòng về đồ ăn"
    assert removal.sources == ()  # no note of the week is about food: none is named
    assert edit.why is None
    kinds = [(s.kind, s.text) for s in edit.sources]
    assert all(kind != "memory" for kind, _ in kinds)  # the edited line is not its own source
    assert ("note", "Chuyển sang uống trà xanh, bỏ cà phê sữa đá") in kinds
    [note] = [s for s in edit.sources if s.kind == "note"]
    assert note.ref == "memory/2026-11-26.md#19:30"
    # neither is part of the change the owner's decision is bound to
    assert "why" not in removal.change and "sources" not in removal.change
    assert removal.content_hash == proposals.content_hash("memory", removal.change)
    # the run's journal keeps them, so a resumed run proposes them the same
    journal = read_journal(workspace, removal.origin.removeprefix("condense:"))
    assert journal is not None
    assert any(c.why == "trùng với dòng về đồ ăn" for c in journal.held)


def test_labels_are_not_trusted_the_gate_judges_the_rewrite(
    workspace: Workspace, clock: FixedClock
) -> None:
    vi_week(workspace, clock)
    mai = line_no(VI_MEMORY, "- 2026-05-10: Con gái")
    running = line_no(VI_MEMORY, "- 2026-10-20: Chạy bộ")
    script = "\n".join(
        [
            f"ADD [{mai}] - 2026-05-10: Con gái tên Mai, học lớp ba",  # already there
            f"EDIT [{running}] - 2026-11-28: Chạy bộ mỗi sáng chủ nhật",  # only the date
            f"DATE [{mai}] 2026-01-01",  # moved earlier
        ]
    )
    report = run(workspace, two_roles(script))
    classes = sorted((rc.change.cls, rc.change.action) for rc in report.changes)
    assert ("date_changed", "auto") in classes  # the EDIT that only moved the date
    # the ADD copy keeps the old date and pairs with the old line; the line the DATE moved
    # earlier then repeats that entry: folded, never written twice
    assert ("folded", "auto") in classes
    assert memory(workspace).count("Con gái tên Mai, học lớp ba") == 1
    assert "- 2026-05-10: Con gái tên Mai, học lớp ba" in memory(workspace)


def test_every_call_of_a_run_shares_one_prefix_and_stays_within_the_output_cap(
    workspace: Workspace, clock: FixedClock
) -> None:
    ws = with_config(workspace, clock, "[model]\nmax_output_tokens = 512")
    busy_week(ws, clock, "2026-11-29T14:05:00+07:00")
    model = two_roles("ADD - 2026-11-29: Đi chợ mỗi ngày")
    report = run(ws, model)
    rewrites = [r for r in model.requests if is_rewrite(r)]
    assert len(rewrites) > 1 and report.chunks == len(rewrites)
    assert len({r.messages[0].text for r in rewrites}) == 1  # byte-identical prefix
    assert max(r.max_tokens for r in rewrites) <= 512
    assert all(d.used for d in report.days)
    # the same line added by every call is written once: the other calls' copies are folded
    assert memory(ws).count("Đi chợ mỗi ngày") == 1
    assert [rc.change.cls for rc in report.changes].count("folded") == len(rewrites) - 1


def test_a_2000_entry_memory_is_condensed_within_a_small_output_cap(
    workspace: Workspace, clock: FixedClock
) -> None:
    ws = with_config(
        workspace, clock, '[model]\nmax_output_tokens = 1024\n[condense]\narchive = "off"'
    )
    big = "# Trí nhớ\n" + "".join(
        f"- 2025-{1 + i % 12:02d}-{1 + i % 28:02d}: Mục số {i} về chủ nhân\n" for i in range(2000)
    )
    fill_week(ws, clock, big, VI_NOTES, VI_TURNS)
    model = two_roles("ADD [1] - 2026-11-24: Mai được chọn vào đội bơi")
    report = run(ws, model)
    assert report.outcome == "done" and report.held == ()
    rewrites = [r for r in model.requests if is_rewrite(r)]
    assert all(r.max_tokens <= 1024 for r in rewrites)
    after = memory(ws)
    assert after.startswith("# Trí nhớ\n- 2026-11-24: Mai được chọn vào đội bơi\n")
    assert after.replace("- 2026-11-24: Mai được chọn vào đội bơi\n", "") == big


def test_lines_added_by_hand_during_a_run_are_kept_not_held(
    workspace: Workspace, clock: FixedClock
) -> None:
    small = "- 2026-10-01: Thích mèo\n- 2026-10-02: Sống ở Huế\n"
    fill_week(workspace, clock, small, VI_NOTES, [])
    typed = [f"- 2026-11-29: Viết tay số {i}" for i in range(3)]

    def rewrite(request: ChatRequest) -> str:
        with workspace.memory_file.open("a", encoding="utf-8") as handle:
            handle.write("".join(line + "\n" for line in typed))
        return "ADD - 2026-11-24: Mai vào đội bơi"

    report = run(workspace, two_roles(rewrite))
    assert report.held == () and memory_proposals(workspace) == []
    after = memory(workspace)
    assert all(line in after for line in [*small.splitlines(), *typed])
    assert "- 2026-11-24: Mai vào đội bơi" in after


# --- the owner's queue over several weeks ---------------------------------------------------


def test_a_change_still_waiting_is_not_asked_twice_and_the_announcement_counts_it(
    workspace: Workspace, clock: FixedClock
) -> None:
    en_week(workspace, clock)
    dropped = EN_MEMORY.replace("- 2026-10-05: Allergic to penicillin\n", "")
    first = run(workspace, two_roles(dropped))
    [removal] = first.held
    clock.advance(days=7)
    save_note(workspace, "Started a pottery class on Saturdays")
    clock.advance(minutes=1)
    stream = io.StringIO()
    nxt = "\n".join([dropped.rstrip("\n"), "- 2026-12-06: Pottery class on Saturdays", ""])
    again = run(
        workspace,
        two_roles(nxt.replace("- 2026-02-11: Sister Anna", "Sure:\n- 2026-02-11: Sister Anna")),
        stream,
    )
    waiting = [p for p in memory_proposals(workspace) if p.status == "pending"]
    assert [p.id for p in waiting if p.change["class"] == "removed"] == [removal.proposal_id]
    assert [rc.proposal_id for rc in again.held if rc.change.cls == "removed"] == [
        removal.proposal_id
    ]
    announced = stream.getvalue()
    assert "1 earlier proposal still waits, since 2026-11-29" in announced
    assert "penicillin" not in announced  # said once, last week


def test_a_held_change_whose_line_is_gone_is_stale_at_the_next_run(
    workspace: Workspace, clock: FixedClock
) -> None:
    en_week(workspace, clock)
    dropped = EN_MEMORY.replace("- 2026-10-05: Allergic to penicillin\n", "")
    [removal] = run(workspace, two_roles(dropped)).held
    workspace.memory_file.write_text(dropped, encoding="utf-8")  # the owner removed it by hand
    clock.advance(days=7)
    save_note(workspace, "Quiet week")
    clock.advance(minutes=1)
    run(workspace, two_roles("NONE"))
    [stale] = [p for p in memory_proposals(workspace) if p.id == removal.proposal_id]
    assert stale.status == "stale" and stale.decided_by == "trinho"


SCREEN_ANSWER_LINES = st.one_of(
    st.builds(
        lambda n, sep, word: f"{n}{sep} {word}",
        st.integers(0, 7),
        st.sampled_from([".", ")", ":", ""]),
        st.sampled_from(["ACCEPT", "NHẬN", "nhan", "REJECT: no", "BỎ", "ACCEPTED!", "maybe", ""]),
    ),
    st.text(max_size=12),
)
NEW_LINES = [
    *VI_ADDED,
    "- 2026-11-27: Gọi cho anh Đức về hợp đồng",
    "- 2026-11-26: Thích uống trà xanh buổi sáng",  # an edit of the coffee line
    "- 2026-11-25: Chủ nhân là phù thuỷ",
]


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(NEW_LINES), min_size=1, max_size=6),
    st.one_of(st.none(), st.lists(SCREEN_ANSWER_LINES, max_size=8)),
)
def test_no_new_line_is_applied_unless_its_verdict_was_read_as_accept(
    lines: list[str], answer: list[str] | None
) -> None:
    """Whatever the screening answers (None: the call fails), a new line reaches MEMORY.md by
    itself only when the answer explicitly accepts it."""
    with tempfile.TemporaryDirectory() as tmp:
        clock = FixedClock()
        ws = init_workspace(Path(tmp) / "ws", timezone="Asia/Ho_Chi_Minh", clock=clock).workspace
        vi_week(ws, clock)
        asked: list[list[str]] = []

        def screen(request: ChatRequest) -> str:
            asked.append(numbered(request))
            if answer is None:
                raise ModelError("scripted:model", "timeout", "no answer")
            return "\n".join(answer)

        rewrite = "\n".join(VI_MEMORY.rstrip("\n").split("\n") + lines) + "\n"
        rewrite = rewrite.replace("- 2026-11-01: Thích uống cà phê sữa đá buổi sáng\n", "", 1)
        ws_file = ws.internal / "config.toml"
        ws_file.write_text(ws_file.read_text() + '\n[condense]\nprotocol = "file"\n')
        run(open_workspace(ws.root, clock), two_roles(rewrite, screen))
        accepted: set[str] = set()
        for batch in asked:
            verdicts = parse_verdicts("\n".join(answer or []), len(batch))
            accepted |= {batch[n - 1] for n, v in verdicts.items() if v.decision == "accept"}
        new = set(memory(ws).split("\n")) - set(VI_MEMORY.split("\n"))
        assert new <= accepted
