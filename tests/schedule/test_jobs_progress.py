"""The scheduled jobs tell the progress observer which one works with the model, and wipe the
line when each ends."""

from __future__ import annotations

from conftest import FixedClock
from trinho.config.files import parse_config
from trinho.conversations.store import record_turn
from trinho.models import ChatModel, ScriptedModel
from trinho.models.progress import Event, Finished, Step, observed
from trinho.schedule.jobs import WorkspaceJobRunner
from trinho.schedule.plan import DueRun
from trinho.schedule.run import run_due
from trinho.workspace import Workspace

CONFIG = (
    '[schedule]\ncondense = "off"\nfacts = "daily 02:00"\ndigest = "daily 07:00"\n'
    '[[jobs]]\nname = "tidy"\nschedule = "daily 03:00"\nprompt = "Dọn dẹp: tìm dữ kiện mới"\n'
)


def models(run: DueRun) -> ChatModel:
    return ScriptedModel(["Không có gì mới."])


def test_each_job_names_its_step_and_ends_with_the_line_wiped(
    workspace: Workspace, clock: FixedClock
) -> None:
    jobs = parse_config(CONFIG, "cfg").jobs
    record_turn(workspace, "user", "Tuần sau tôi chuyển vào Huế sống luôn")
    runner = WorkspaceJobRunner(workspace, models)
    heard: list[Event] = []
    with observed(heard.append):
        assert run_due(workspace, jobs, runner).records == ()  # first sight: nothing owed
        clock.set("2026-11-30T08:00:00+07:00")
        records = run_due(workspace, jobs, runner).records
    assert [(r.job, r.status) for r in records] == [
        ("facts", "ok"),
        ("tidy", "ok"),
        ("digest", "ok"),
    ]
    assert heard == [Step("facts"), Finished(), Step("job"), Finished(), Finished()]
