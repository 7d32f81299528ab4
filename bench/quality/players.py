"""The two scripted models that bound the table: a perfect assistant and an adversary.

Both answer the real requests of `trinho condense` (the numbered MEMORY.md of the edit-script
protocol, then the screening), so what they say goes through the same parsing, screening and
gate as a server's answer.

- `perfect(week)`, the ceiling: it knows the gold. Its edit script adds every gold line, edits
  (or removes) every line the week changes, and nothing else; it accepts every line screened.
- `adversary(week)`, the floor: it removes every line of MEMORY.md, adds the gold's *wrong*
  versions of the week's facts and its junk, with chatter around them, and answers the
  screening with prose no verdict can be read from. The gate holds the rewrite whole: nothing
  is learned, nothing is lost.
"""

from __future__ import annotations

import re

from quality.gold import Week
from trinho.condense.rules.rewrite import MEMORY_BEGIN, MEMORY_END
from trinho.models import ChatRequest, ScriptedModel

_NUMBERED_RE = re.compile(r"^\[(\d+)\] ?(.*)$")
_SCREEN_RE = re.compile(r"^(\d+)\. ", re.MULTILINE)


def is_rewrite(request: ChatRequest) -> bool:
    return request.messages[0].text.startswith("You maintain MEMORY.md")


def numbered_memory(request: ChatRequest) -> dict[int, str]:
    """The MEMORY.md lines an edit-script request shows, by their number."""
    body = request.messages[0].text
    start = body.index(MEMORY_BEGIN + "\n") + len(MEMORY_BEGIN) + 1
    shown = body[start : body.index("\n" + MEMORY_END, start)]
    found = {}
    for line in shown.split("\n"):
        if m := _NUMBERED_RE.match(line):
            found[int(m.group(1))] = m.group(2)
    return found


def accept_all(request: ChatRequest) -> str:
    count = len(_SCREEN_RE.findall(request.messages[-1].text))
    return "\n".join(f"{n}. ACCEPT" for n in range(1, count + 1))


def perfect_script(week: Week, memory: dict[int, str]) -> str:
    """The edit script a careful assistant writes for the week, on the numbered MEMORY.md."""
    number = {text: n for n, text in memory.items()}
    ops = []
    for item in week.resolve:
        if item.old in number:
            at = number[item.old]
            ops.append(f"EDIT [{at}] {item.line}" if item.line else f"REMOVE [{at}] obsolete")
    ops += [f"ADD {item.line}" for item in week.learn]
    return "\n".join(ops) or "NONE"


def adversary_script(week: Week, memory: dict[int, str]) -> str:
    """Every line removed; wrong facts, junk and chatter added."""
    ops = ["Sure! Here is the cleaned-up memory:"]
    ops += [f"REMOVE [{n}] outdated" for n, text in memory.items() if text.strip()]
    for item in (*week.learn, *week.resolve):
        ops += [f"ADD {line}" for line in item.wrong[:1]]
    ops += [f"ADD {item.line}" for item in week.junk if item.line]
    ops.append("Let me know if you want anything else changed.")
    return "\n".join(ops)


def perfect(week: Week) -> ScriptedModel:
    """The ceiling: answers the week's first rewrite call with the gold, later ones NONE."""
    answered: list[bool] = []

    def reply(request: ChatRequest) -> str:
        if not is_rewrite(request):
            return accept_all(request)
        if answered:
            return "NONE"
        answered.append(True)
        return perfect_script(week, numbered_memory(request))

    return ScriptedModel(reply, name="scripted:perfect")


def adversary(week: Week) -> ScriptedModel:
    """The floor: a rewrite that would lose everything, and unreadable screening."""

    def reply(request: ChatRequest) -> str:
        if not is_rewrite(request):
            return "These all look fine to me, I would keep most of them."
        return adversary_script(week, numbered_memory(request))

    return ScriptedModel(reply, name="scripted:adversary")
