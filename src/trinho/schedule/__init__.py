"""Scheduled work: when it is due (`plan`, pure), its run state and one pass (`run`), and what each
job does (`jobs`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.exports import lazy_exports

if TYPE_CHECKING:
    from trinho.schedule.run import run_due as run_due


__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "trinho.schedule.run": ("run_due",),
    },
)
