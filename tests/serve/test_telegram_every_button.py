"""What the owner sees is what changes, on Telegram, through the service and the strict fake
Bot API: a held week (removals, edits, an archive, facts added and replacing the owner's word)
is announced, and every button of every screen trinho shows is pressed on a fresh copy of the
workspace. Every line that appeared in or left MEMORY.md or memory/archive.md, and every fact
value that changed, was in the text of the message that carried the button; then the
decision's own take-back, pressed the same way, puts everything back byte for byte."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import FixedClock
from support.fake_bot_api import FakeBotApi
from support.review_week import review_week, review_workspace
from trinho.channels import Notification, Outbox
from trinho.facts.store import list_facts
from trinho.models import ScriptedModel
from trinho.proposals import store as proposals
from trinho.review.announce import proposal_item
from trinho.schedule.run import run_due
from trinho.serve.service import Timing, build_service
from trinho.textnorm import printable, show_hidden
from trinho.workspace import Workspace, open_workspace

OWNER = 77
FAST = Timing(scheduler_poll=0.1, outbox_poll=0.1, grace=15)
FILES = ("MEMORY.md", "memory/archive.md")
ARCHIVE_HEADING = re.compile(r"## Archived by run \S+ \(sha256 [0-9a-f]{12}\)\Z")
"""The heading an archive's section starts with: trinho's own marker (the run and a hash, for
undo and reruns), which the screen names in words."""
TITLE = "Everything that waits"
WAITING = 8
"""Two removals, two edits, an archive, a fact replacing the owner's word, two facts added."""
TAKE_BACK = ("↶ Take back this decision", "↶ Take back this approval")


@dataclass(frozen=True)
class State:
    files: dict[str, bytes | None]
    facts: dict[tuple[str, str], str]


def state(ws: Workspace) -> State:
    files = {f: ws.path(f).read_bytes() if ws.path(f).exists() else None for f in FILES}
    facts: dict[tuple[str, str], str] = {}
    for user in ("owner", "mai"):
        for fact in list_facts(ws, user).facts:
            version = fact.value_on(ws.today())
            if version is not None:  # a fact taken back is as if it never was
                facts[(user, fact.key)] = version.value
    return State(files, facts)


def changed_lines(before: State, after: State) -> list[str]:
    """Every non-blank line that appeared in or left either file (counted), and each changed
    fact value as the screens show it (`key: value`)."""
    out: list[str] = []
    for name in FILES:
        old = Counter((before.files[name] or b"").decode("utf-8").split("\n"))
        new = Counter((after.files[name] or b"").decode("utf-8").split("\n"))
        out += [line for line in (old - new) + (new - old) if line.strip()]
    for key in sorted(set(before.facts) | set(after.facts)):
        was, now = before.facts.get(key), after.facts.get(key)
        if was != now:
            out += [f"{key[1]}: {value}" for value in (was, now) if value is not None]
    return out


def off_screen(lines: list[str], screen: str) -> list[str]:
    """The lines the message did not show, as it shows a line (made printable; a held
    character made visible)."""
    return [
        line
        for line in lines
        if printable(line) not in screen
        and show_hidden(line) not in screen
        and not ARCHIVE_HEADING.match(line)
    ]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The held week, announced once more as one message listing everything that waits."""
    clock = FixedClock()
    root = tmp_path_factory.mktemp("template") / "ws"
    ws = review_workspace(root, clock, locale="en")
    review_week(ws, clock)
    ws = open_workspace(root, clock)
    run_due(ws, ws.config.jobs, lambda run: "")  # first sight: no job runs at the start
    waiting = proposals.list_proposals(ws, include_decided=False).proposals
    assert len(waiting) == WAITING
    items = tuple(proposal_item(p, ws.locale) for p in waiting)
    Outbox(ws).enqueue(Notification("review:week", TITLE, "", items))
    return root


class Phone:
    """A fresh copy of the week, served, and the owner's thumb on the message."""

    def __init__(self, api: FakeBotApi, ws: Workspace) -> None:
        self.api, self.ws = api, ws
        api.wait_for(lambda: any(TITLE in text for text, _ in api.messages.values()))
        self.message = next(m for m, (text, _) in api.messages.items() if TITLE in text)

    def screen(self) -> tuple[str, dict[str, str]]:
        text, rows = self.api.messages[self.message]
        buttons = {
            b["text"]: b.get("callback_data") or b["url"] for r in json.loads(rows) for b in r
        }
        return text, buttons

    def tap(self, label: str) -> tuple[str, list[str]]:
        """Press `label` on the message as it is: the answer, and the lines it changed that
        the message did not show."""
        text, buttons = self.screen()
        before = state(self.ws)
        query = self.api.press(
            buttons[label], user_id=OWNER, chat_id=OWNER, message_id=self.message
        )
        self.api.wait_for(
            lambda: any(
                c.params.get("callback_query_id") == query
                for c in self.api.ok_calls("answerCallbackQuery")
            )
        )
        answer = next(
            c.params.get("text", "")
            for c in self.api.ok_calls("answerCallbackQuery")
            if c.params.get("callback_query_id") == query
        )
        return str(answer), off_screen(changed_lines(before, state(self.ws)), text)


@pytest.fixture
def phone(template: Path, tmp_path: Path, clock: FixedClock) -> Iterator[Phone]:
    clock.set("2026-11-29T21:05:00+07:00")
    shutil.copytree(template, tmp_path / "copy")
    ws = open_workspace(tmp_path / "copy", clock)
    with FakeBotApi() as api:
        env = {
            "TRINHO_TELEGRAM_TOKEN": "123456:TEST-token",
            "TRINHO_TELEGRAM_OWNER_ID": str(OWNER),
            "TRINHO_TELEGRAM_BASE_URL": api.base_url,
        }
        service = build_service(ws, env=env, model=ScriptedModel([]), timing=FAST)
        with service.running():
            yield Phone(api, ws)


WITH_RUN = "taken back by undoing that week's update"
"""What the take-back of an approved archive says: not done on its own (yet)."""


def take_back(phone: Phone, before: State) -> None:
    """The decision just made is taken back from the screen it left: everything as before
    (an approved archive says it is taken back with its run, and changes nothing)."""
    _, buttons = phone.screen()
    label = next(label for label in TAKE_BACK if label in buttons)
    decided = state(phone.ws)
    answer, unseen = phone.tap(label)
    assert unseen == []
    if answer == "Taken back 0 of 1." and WITH_RUN in phone.screen()[0]:
        assert phone.screen()[0].startswith("Everything that waits\n")
        assert "✅ Archives: " in phone.screen()[0]  # only an archive, not a removal
        assert state(phone.ws) == decided
        return
    count = answer.removeprefix("Taken back ").removesuffix(".").split(" of ")
    assert len(count) == 2 and count[0] == count[1], (answer, phone.screen()[0])
    assert state(phone.ws) == before


def test_the_list_bulk_buttons_change_only_what_the_list_shows(phone: Phone) -> None:
    text, buttons = phone.screen()
    small = [label for label in buttons if label.startswith("✅ Approve the")]
    assert small == ["✅ Approve the 2 small changes"]  # the facts added; no owner line
    original = state(phone.ws)
    for label in small:
        answer, unseen = phone.tap(label)
        assert unseen == [], (label, text)
        assert answer.startswith("Approved")
        take_back(phone, original)
    keep = next(label for label in phone.screen()[1] if label.startswith("✋ Keep the"))
    _, unseen = phone.tap(keep)
    assert unseen == [] and state(phone.ws) == original  # asked once more: nothing yet
    assert phone.tap("↩️ Back to the list")[1] == [] and state(phone.ws) == original
    _, unseen = phone.tap(keep)
    confirm_text, confirm = phone.screen()
    yes = next(label for label in confirm if label.startswith("✋ Yes, keep"))
    waiting = proposals.list_proposals(phone.ws, include_decided=False).proposals
    answer, unseen = phone.tap(yes)
    assert unseen == [] and answer.startswith("Rejected")
    kept = [p for p in waiting if proposals.get_proposal(phone.ws, p.id).status == "rejected"]
    assert kept
    for p in kept:  # each was listed on the confirmation with every line it touches
        item = proposal_item(p, "en")
        sides = "\n".join(side for side in (item.old, item.new) if side is not None)
        assert off_screen([line for line in sides.split("\n") if line.strip()], confirm_text) == []
    take_back(phone, original)
    assert {p.id for p in proposals.list_proposals(phone.ws, include_decided=False).proposals} == {
        p.id for p in waiting
    }
    assert confirm_text.startswith("Keep these")


@pytest.mark.parametrize("position", range(WAITING))
def test_each_change_approved_on_its_screen_changes_only_what_it_shows(
    phone: Phone, position: int
) -> None:
    """Review one by one, keep the changes before `position` as they are (nothing changes),
    approve the one at `position`, then take it back."""
    _, unseen = phone.tap("🔍 Review one by one")
    assert unseen == []
    for _ in range(position):
        _, buttons = phone.screen()
        keep = list(buttons)[1]
        _, unseen = phone.tap(keep)
        assert unseen == []
    text, buttons = phone.screen()
    assert f"Change {position + 1} of {WAITING}" in text
    before = state(phone.ws)
    answer, unseen = phone.tap(next(iter(buttons)))
    assert unseen == [], text
    if answer.startswith("Not done"):
        assert state(phone.ws) == before
        return
    take_back(phone, before)
