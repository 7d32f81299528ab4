"""A condensation run tells its progress observer each step and call, in order, and says when
the model's work is over; without an observer it runs the same."""

from __future__ import annotations

import io

from conftest import FixedClock
from support.condense_weeks import two_roles, vi_good_rewrite, vi_week
from trinho.channels import ConsoleChannel
from trinho.condense import run_condensation
from trinho.models import read_ledger
from trinho.models.progress import CallEnded, CallStarted, Event, Finished, Step, observed
from trinho.workspace import Workspace


def test_a_run_reports_its_steps_and_calls_then_finishes(
    workspace: Workspace, clock: FixedClock
) -> None:
    vi_week(workspace, clock)
    heard: list[Event] = []
    channel = ConsoleChannel(workspace.locale, io.StringIO())
    with observed(heard.append):
        report = run_condensation(workspace, model=two_roles(vi_good_rewrite()), channel=channel)
    assert report.outcome == "done"
    rewrite, screen = (r.total_tokens for r in read_ledger(workspace).records)
    assert heard == [
        Step("reading"),
        Step("rewriting", 1, 1),
        CallStarted(),
        CallEnded(rewrite),
        Step("screening", 1, 1),
        CallStarted(),
        CallEnded(screen),
        Finished(),
    ]


def test_a_week_without_material_reads_and_calls_nothing(workspace: Workspace) -> None:
    heard: list[Event] = []
    with observed(heard.append):
        report = run_condensation(workspace, model=two_roles(""), channel=None)
    assert report.outcome == "skipped" and heard == [Step("reading")]
