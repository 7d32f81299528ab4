"""The terminal writer: each event redraws the line over the last one, and closing wipes it."""

from __future__ import annotations

import io

from trinho.cli.terminal import ProgressLine
from trinho.models.progress import CallEnded, CallStarted, Step


class Broken(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError("the terminal went away")


def test_each_event_redraws_over_the_last_line_and_close_wipes_it() -> None:
    stream = io.StringIO()
    now = [100.0]
    line = ProgressLine("en", stream, clock=lambda: now[0], tick=3600)  # events draw, alone
    line(Step("rewriting", 2, 3))
    now[0] += 3.2
    line(CallStarted())
    line(Step("screening"))
    line(CallEnded(12))
    line.close()
    drawn = stream.getvalue()
    first = "rewriting MEMORY.md, chunk 2 of 3 · 0 s"
    second = "rewriting MEMORY.md, chunk 2 of 3 · 3 s · 1 call waiting"
    third = "screening the new lines · 3 s · 1 call waiting"
    fourth = "screening the new lines · 3 s · 1 call done · 12 tokens"
    # a shorter line is padded over the longer one before it; the last drawing is blank
    assert drawn.startswith(f"\r{first}\r{second}\r{third.ljust(len(second))}\r")
    assert drawn.endswith(f"\r{fourth}\r{' ' * len(fourth)}\r")
    assert "\n" not in drawn


def test_nothing_is_written_before_a_step_nor_after_a_broken_terminal() -> None:
    stream = io.StringIO()
    line = ProgressLine("vi", stream)
    line(CallStarted())
    line.close()
    assert stream.getvalue() == ""
    broken = ProgressLine("en", Broken())
    broken(Step("thinking"))  # the drawing fails: the work goes on
    broken(CallStarted())
    broken.close()
