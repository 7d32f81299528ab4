"""The owner reviewing proposals: how they read (`render`, pure), who applies an approved one
(`appliers`), decisions from a channel (`service`) and the daily announcement of those nobody
announced (`announce`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.exports import lazy_exports

if TYPE_CHECKING:
    from trinho.review.appliers import APPLIERS as APPLIERS
    from trinho.review.service import QueueDecider as QueueDecider


__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "trinho.review.appliers": ("APPLIERS",),
        "trinho.review.service": ("QueueDecider",),
    },
)
