"""The Telegram channel, through the real python-telegram-bot, against a fake Bot API server."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from conftest import FixedClock
from support.fake_bot_api import FakeBotApi
from trinho.channels import (
    DecisionOutcome,
    Notification,
    NotificationItem,
    Outbox,
    TelegramSettings,
)
from trinho.channels.callbacks import CallbackAction, callback_secret, encode
from trinho.channels.telegram import TelegramChannel
from trinho.workspace import Workspace

OWNER = 77
TOKEN = "123456:TEST-token"

NOTE = Notification(
    id="condense:2026-W48",
    title="Weekly condensation 2026-W48",
    summary="12 lines kept, 2 added; 3 changes wait.",
    items=(
        NotificationItem(
            "p-1", "sha256:aaaa1111", "removed", "- 2026-10-01: likes tea", None, "gone"
        ),
        NotificationItem(
            "p-2",
            "sha256:bbbb2222",
            "edited",
            "- 2026-11-01: ở Hà Nội",
            "- 2026-11-28: ở Huế",
            "moved",
        ),
        NotificationItem(
            "p-3", "sha256:cccc3333", "strange_date", None, "- 2027-01-01: x", "future"
        ),
    ),
)


@dataclass
class RecordingDecider:
    """Stands in for the proposals queue: refuses a hash it does not hold, and a second decision."""

    hashes: dict[str, str] = field(
        default_factory=lambda: {item.proposal_id: item.content_hash for item in NOTE.items}
    )
    calls: list[tuple[str, str, bool, str]] = field(default_factory=list)

    def decide(
        self, proposal_id: str, content_hash: str, approve: bool, by: str
    ) -> DecisionOutcome:
        self.calls.append((proposal_id, content_hash, approve, by))
        if self.hashes.get(proposal_id) != content_hash:
            return DecisionOutcome(False, f"proposal {proposal_id} changed since; it is stale")
        del self.hashes[proposal_id]
        return DecisionOutcome(True, "done")


@pytest.fixture
def api() -> Iterator[FakeBotApi]:
    with FakeBotApi() as server:
        yield server


@pytest.fixture
def decider() -> RecordingDecider:
    return RecordingDecider()


def make_channel(
    api: FakeBotApi, ws: Workspace, decider: RecordingDecider, **kw: object
) -> TelegramChannel:
    settings = TelegramSettings(token=TOKEN, owner_id=OWNER, base_url=api.base_url)
    return TelegramChannel(
        settings,
        locale=ws.locale,
        lookup=Outbox(ws),
        decider=decider,
        timeout=10,
        **kw,  # type: ignore[arg-type]
    )


@pytest.fixture
def running(
    api: FakeBotApi, workspace: Workspace, decider: RecordingDecider
) -> Iterator[TelegramChannel]:
    """A started channel whose notification was announced through the outbox."""
    box = Outbox(workspace)
    box.enqueue(NOTE)
    channel = make_channel(api, workspace, decider)
    try:
        assert box.deliver(channel).sent == (NOTE.id,)
        channel.start(poll_timeout=1)
        yield channel
    finally:
        channel.close()


def summary_buttons(api: FakeBotApi) -> dict[str, str]:
    call = api.ok_calls("sendMessage")[0]
    return dict(api.buttons(call))


def press_and_wait(api: FakeBotApi, data: str, user_id: int = OWNER, chat_id: int = OWNER) -> str:
    """Press a button; wait until the bot answered it; return the answer text."""
    query_id = api.press(data, user_id=user_id, chat_id=chat_id)
    api.wait_for(
        lambda: any(
            c.params.get("callback_query_id") == query_id
            for c in api.ok_calls("answerCallbackQuery")
        )
    )
    answer = next(
        c for c in api.ok_calls("answerCallbackQuery") if c.params["callback_query_id"] == query_id
    )
    return str(answer.params.get("text", ""))


def test_sent_once_across_5xx_retries_and_restarts(
    api: FakeBotApi, workspace: Workspace, clock: FixedClock, decider: RecordingDecider
) -> None:
    api.fail("getMe", 1, status=500)
    api.fail("sendMessage", 2, status=502)
    box = Outbox(workspace)
    box.enqueue(NOTE)
    reports = []
    for _ in range(4):
        channel = make_channel(api, workspace, decider)  # a restart each time
        try:
            box = Outbox(workspace)
            box.enqueue(NOTE)  # the run is retried too: still one entry
            reports.append(box.deliver(channel))
        finally:
            channel.close()
        clock.advance(hours=1)
    assert [bool(r.failed) for r in reports] == [True, True, True, False]
    assert reports[3].sent == (NOTE.id,)
    for _ in range(2):
        channel = make_channel(api, workspace, decider)
        try:
            assert Outbox(workspace).deliver(channel).sent == ()
        finally:
            channel.close()
        clock.advance(days=1)
    assert len(api.ok_calls("sendMessage")) == 1
    sent = api.ok_calls("sendMessage")[0]
    assert sent.params["chat_id"] == str(OWNER)
    assert "3 changes wait for your approval:" in sent.params["text"]
    assert sent.params["text"].splitlines()[-3:] == [
        "🗑 Removes: - 2026-10-01: likes tea",
        "✏️ Edits: - 2026-11-01: ở Hà Nội → - 2026-11-28: ở Huế",
        "➕ Adds: - 2027-01-01: x",
    ]
    assert [label for label, _ in api.buttons(sent)] == [
        "🔍 Review one by one",
        "✅ Approve the 1 small change",
        "✋ Keep the 3 waiting as they are",
    ]
    assert all(len(data.encode()) <= 64 for _, data in api.buttons(sent))


def test_the_bulk_approval_never_covers_a_removal_or_an_edit_of_an_owner_line(
    api: FakeBotApi, running: TelegramChannel, decider: RecordingDecider
) -> None:
    answer = press_and_wait(api, summary_buttons(api)["✅ Approve the 1 small change"])
    assert answer == "Approved 1 of 1."
    assert decider.calls == [
        (item.proposal_id, item.content_hash, True, f"telegram:{OWNER}") for item in NOTE.items[2:]
    ]
    edited = api.ok_calls("editMessageText")[-1].params
    assert edited["message_id"] == "1"  # the summary itself, updated in place
    assert "2 of 3 changes still wait for you:" in edited["text"]
    assert "✅ Adds: - 2027-01-01: x (approved)" in edited["text"]
    assert "Approved 1 of 1." in edited["text"]
    assert "12 lines kept" not in edited["text"]  # the run's count of what waited then
    labels = [label for label, _ in FakeBotApi.buttons(api.ok_calls("editMessageText")[-1])]
    assert labels == ["🔍 Review one by one", "✋ Keep the 2 waiting as they are"]


def test_reject_all_then_a_second_press_is_refused_by_the_queue(
    api: FakeBotApi, running: TelegramChannel, decider: RecordingDecider
) -> None:
    reject_all = summary_buttons(api)["✋ Keep the 3 waiting as they are"]
    assert press_and_wait(api, reject_all) == "Confirm to keep 3 changes as they are"
    assert decider.calls == []  # asked once more first, with every line it keeps as it is
    ask = api.ok_calls("editMessageText")[-1]
    assert ask.params["text"].splitlines() == [
        "Keep these 3 changes as they are? Your memory stays exactly as it is, and these no "
        "longer wait:",
        "",
        "• Removes",
        "  − - 2026-10-01: likes tea",
        "• Edits",
        "  − - 2026-11-01: ở Hà Nội",
        "  + - 2026-11-28: ở Huế",
        "• Adds",
        "  + - 2027-01-01: x",
    ]
    buttons = dict(api.buttons(ask))
    assert list(buttons) == ["✋ Yes, keep these 3 as they are", "↩️ Back to the list"]
    confirm = buttons["✋ Yes, keep these 3 as they are"]
    assert press_and_wait(api, confirm) == "Rejected 3 of 3."
    assert {approve for *_, approve, _ in decider.calls} == {False}
    final = api.ok_calls("editMessageText")[-1]
    assert "Review finished: 0 approved, 3 kept as they were, 0 left." in final.params["text"]
    assert FakeBotApi.buttons(final) == []  # nothing waits: no button to press again
    changed = "The list changed since you saw it; here it is again. Nothing was done."
    assert press_and_wait(api, confirm) == changed
    assert press_and_wait(api, reject_all) == "This button is out of date; nothing was done."
    assert len(decider.calls) == 3  # nothing is asked twice, nothing refused item by item
    assert "Not done" not in api.ok_calls("editMessageText")[-1].params["text"]


def test_review_one_by_one(
    api: FakeBotApi, running: TelegramChannel, decider: RecordingDecider
) -> None:
    assert press_and_wait(api, summary_buttons(api)["🔍 Review one by one"]) == "Review: 3 changes"
    assert len(api.ok_calls("sendMessage")) == 1  # every screen is the same message, edited
    first = api.ok_calls("editMessageText")[-1]
    assert first.params["text"].splitlines()[:4] == [
        "Change 1 of 3: lines removed",
        "Old: - 2026-10-01: likes tea",
        "New: (nothing)",
        "Reason: gone",
    ]
    assert [label for label, _ in api.buttons(first)] == [
        "✅ Approve",
        "❌ Reject",
        "↩️ Back to the list",
    ]
    assert press_and_wait(api, dict(api.buttons(first))["❌ Reject"]) == "Rejected."
    second = api.ok_calls("editMessageText")[-1]
    assert second.params["text"].startswith(
        "↩️ Removes: - 2026-10-01: likes tea (kept as it was)\n→ Rejected.\n\nChange 2 of 3"
    )
    assert "Old: - 2026-11-01: ở Hà Nội\nNew: - 2026-11-28: ở Huế" in second.params["text"]
    assert press_and_wait(api, dict(api.buttons(second))["✅ Approve"]) == "Approved."
    third = api.ok_calls("editMessageText")[-1]
    decider.hashes["p-3"] = "sha256:changed"  # the proposal changed after it was announced
    answer = press_and_wait(api, dict(api.buttons(third))["✅ Approve"])
    assert answer.startswith("Not done: proposal p-3 changed since")
    final = api.ok_calls("editMessageText")[-1].params["text"]
    assert "Review finished: 1 approved, 1 kept as they were, 1 left." in final
    assert "✅ Edits: - 2026-11-01: ở Hà Nội → - 2026-11-28: ở Huế (approved)" in final
    assert [(pid, approve) for pid, _, approve, _ in decider.calls] == [
        ("p-1", False),
        ("p-2", True),
        ("p-3", True),
    ]


def test_a_press_from_another_user_or_chat_is_refused_and_logged(
    api: FakeBotApi,
    running: TelegramChannel,
    decider: RecordingDecider,
    caplog: pytest.LogCaptureFixture,
) -> None:
    approve_all = summary_buttons(api)["✅ Approve the 1 small change"]
    with caplog.at_level(logging.WARNING, logger="trinho.channels.telegram"):
        stranger = press_and_wait(api, approve_all, user_id=666, chat_id=666)
        in_group = press_and_wait(api, approve_all, user_id=OWNER, chat_id=-100123)
    assert stranger == in_group == "Only the owner can decide; nothing was done."
    assert decider.calls == []
    assert "refused a button press from user 666 in chat 666" in caplog.text
    assert "from user 77 in chat -100123" in caplog.text


@pytest.mark.parametrize(
    "data",
    [
        "A|0000000000000000|0||AAAAAAAAAAA",  # well-formed, wrong signature
        "approve p-1",
        "",
        "y|" + "f" * 16 + "|0|sha2560|" + "x" * 11,
        "A|0000000000000000|٠||AAAAAAAAAAA",  # a non-ASCII digit
        "A|0000000000000000|0||ÀAAAAAAAAAA",  # a non-ASCII letter in the MAC
    ],
)
def test_a_forged_button_does_nothing_and_says_so(
    api: FakeBotApi, running: TelegramChannel, decider: RecordingDecider, data: str
) -> None:
    assert press_and_wait(api, data) == "This button is not valid; nothing was done."
    assert decider.calls == []


def test_a_stale_button_does_nothing_and_says_so(
    api: FakeBotApi, running: TelegramChannel, decider: RecordingDecider
) -> None:
    secret = callback_secret(TOKEN)
    unknown = encode(secret, CallbackAction("A", "0123456789abcdef", 0, ""))
    wrong_hash = encode(secret, CallbackAction("y", NOTE.key, 0, "sha256bbbb"))
    out_of_range = encode(secret, CallbackAction("y", NOTE.key, 9, "sha256aaaa"))
    for data in (unknown, wrong_hash, out_of_range):
        assert press_and_wait(api, data) == "This button is out of date; nothing was done."
    assert decider.calls == []


def test_every_press_is_answered(api: FakeBotApi, running: TelegramChannel) -> None:
    buttons = summary_buttons(api)
    ids = [
        api.press(buttons["🔍 Review one by one"], user_id=OWNER, chat_id=OWNER),
        api.press("junk", user_id=OWNER, chat_id=OWNER),
        api.press(buttons["✅ Approve the 1 small change"], user_id=5, chat_id=5),
        api.press(buttons["✅ Approve the 1 small change"], user_id=OWNER, chat_id=OWNER),
    ]
    api.wait_for(lambda: len(api.ok_calls("answerCallbackQuery")) == len(ids))
    answered = [c.params["callback_query_id"] for c in api.ok_calls("answerCallbackQuery")]
    assert sorted(answered) == sorted(ids)


def test_a_press_is_answered_even_when_the_decider_breaks(
    api: FakeBotApi, workspace: Workspace
) -> None:
    class Broken:
        def decide(
            self, proposal_id: str, content_hash: str, approve: bool, by: str
        ) -> DecisionOutcome:
            raise OSError("disk full")

    Outbox(workspace).enqueue(NOTE)
    settings = TelegramSettings(token=TOKEN, owner_id=OWNER, base_url=api.base_url)
    with TelegramChannel(
        settings, lookup=Outbox(workspace), decider=Broken(), timeout=10
    ) as channel:
        Outbox(workspace).deliver(channel)
        channel.start(poll_timeout=1)
        answer = press_and_wait(api, summary_buttons(api)["✅ Approve the 1 small change"])
    assert answer == "Approved 0 of 1."
    assert "OSError: disk full" in api.ok_calls("editMessageText")[-1].params["text"]


def test_owner_messages_reach_the_hook_and_others_do_not(
    api: FakeBotApi, workspace: Workspace, decider: RecordingDecider
) -> None:
    heard: list[str] = []

    def on_message(text: str, ref: str | None = None) -> str:
        heard.append(text)
        return "Đã nhớ: " + text + "\n" + "x" * 5000

    with make_channel(api, workspace, decider, on_message=on_message) as channel:
        channel.start(poll_timeout=1)
        api.say("hello from a stranger", user_id=666, chat_id=666)
        api.say("nhớ giùm: mai đi Đà Lạt", user_id=OWNER, chat_id=OWNER)
        api.wait_for(lambda: len(api.ok_calls("sendMessage")) >= 3)
    assert heard == ["nhớ giùm: mai đi Đà Lạt"]
    replies = api.ok_calls("sendMessage")
    assert replies[0].params["text"] == "Đã nhớ: nhớ giùm: mai đi Đà Lạt"
    assert all(c.params["chat_id"] == str(OWNER) for c in replies)
    assert all(len(c.params["text"]) <= 4096 for c in replies)


def test_vietnamese_owner_gets_vietnamese_buttons(
    api: FakeBotApi, workspace: Workspace, decider: RecordingDecider
) -> None:
    settings = TelegramSettings(token=TOKEN, owner_id=OWNER, base_url=api.base_url)
    with TelegramChannel(settings, locale="vi", lookup=Outbox(workspace), timeout=10) as channel:
        channel.send(NOTE)
    sent = api.ok_calls("sendMessage")[0]
    assert "3 thay đổi đang chờ bạn duyệt:" in sent.params["text"]
    assert "🗑 Xoá: - 2026-10-01: likes tea" in sent.params["text"]
    assert [label for label, _ in api.buttons(sent)] == [
        "🔍 Xem từng mục",
        "✅ Duyệt 1 thay đổi nhỏ",
        "✋ Giữ nguyên 3 thay đổi đang chờ",
    ]


def test_a_press_is_answered_while_a_chat_turn_is_in_progress(
    api: FakeBotApi, workspace: Workspace, decider: RecordingDecider
) -> None:
    """The turn cannot finish before the press is answered (it waits for that answer), so the
    order of the two on the wire shows the press did not queue behind the turn."""
    turn_started, press_answered = threading.Event(), threading.Event()

    def slow_turn(text: str, ref: str | None = None) -> str:
        turn_started.set()
        press_answered.wait(60)
        return "xong" if press_answered.is_set() else "the press waited"

    box = Outbox(workspace)
    box.enqueue(NOTE)
    with make_channel(api, workspace, decider, on_message=slow_turn) as channel:
        assert box.deliver(channel).sent == (NOTE.id,)
        channel.start(poll_timeout=1)
        api.say("một câu hỏi dài", user_id=OWNER, chat_id=OWNER)
        assert turn_started.wait(15)
        answer = press_and_wait(api, summary_buttons(api)["✅ Approve the 1 small change"])
        press_answered.set()
        api.wait_for(lambda: len(api.ok_calls("sendMessage")) == 2)
    assert answer == "Approved 1 of 1."
    order = [c.method for c in api.calls if c.method in ("answerCallbackQuery", "sendMessage")]
    assert order == ["sendMessage", "answerCallbackQuery", "sendMessage"]
    assert api.ok_calls("sendMessage")[1].params["text"] == "xong"


# --- the review over the real queue: risk, what still waits, the page's link ----------------


def queued_review(ws: Workspace) -> Notification:
    """Five held changes as the queue holds them: a removal, an owner's fact replaced (one at
    a time), two fact edits and one new fact (small changes)."""
    from trinho.facts import save_fact
    from trinho.proposals import store as proposals
    from trinho.review.announce import proposal_item

    save_fact(ws, "coffee", "black, no sugar", basis="user", actor="chat")
    save_fact(ws, "city", "Hà Nội", basis="inferred", actor="chat")
    save_fact(ws, "gym", "Mondays", basis="inferred", actor="chat")
    removal = {"class": "removed", "action": "held", "old": "- 2026-09-14: Allergic to shrimp",
               "new": None, "reason": "gone", "reason_code": "removed_entry"}  # fmt: skip
    made = [
        proposals.submit(
            ws,
            "memory",
            removal,
            reason="gone",
            origin="condense:2026-W48",
            why="duplicate of the food line",
        ).proposal,
        save_fact(
            ws,
            "coffee",
            "flat white",
            basis="inferred",
            actor="job",
            origin="job:facts",
            why="ordered one at the airport",
        ).proposal,
        save_fact(ws, "city", "Huế", basis="inferred", actor="job", origin="job:facts").proposal,
        save_fact(
            ws, "gym", "Tuesdays", basis="inferred", actor="job", origin="job:facts"
        ).proposal,
        save_fact(ws, "tea", "green", basis="inferred", actor="job", origin="job:facts").proposal,
    ]
    items = tuple(proposal_item(p, ws.locale) for p in made if p is not None)
    return Notification("digest:2026-11-29", "Changes that wait", "5 changes wait.", items)


def queue_channel(api: FakeBotApi, ws: Workspace, review_url: str | None = None) -> TelegramChannel:
    from trinho.review.service import QueueDecider

    settings = TelegramSettings(token=TOKEN, owner_id=OWNER, base_url=api.base_url)
    return TelegramChannel(
        settings,
        locale=ws.locale,
        lookup=Outbox(ws),
        decider=QueueDecider(ws),
        timeout=10,
        review_url=review_url,
    )


def test_over_the_queue_the_bulk_approval_covers_only_what_still_waits_and_is_small(
    api: FakeBotApi, workspace: Workspace
) -> None:
    from trinho.proposals import store as proposals

    note = queued_review(workspace)
    box = Outbox(workspace)
    box.enqueue(note)
    with queue_channel(api, workspace, review_url="https://trinho.example.org") as channel:
        box.deliver(channel)
        channel.start(poll_timeout=1)
        sent = api.ok_calls("sendMessage")[0]
        lines = sent.params["text"].splitlines()
        assert lines[-5:] == [
            "🗑 Removes: - 2026-09-14: Allergic to shrimp",
            "✋ Replaces what you said: coffee: black, no sugar → coffee: flat white",
            "✏️ Edits: city: Hà Nội → city: Huế",
            "✏️ Edits: gym: Mondays → gym: Tuesdays",
            "➕ Adds: tea: green",
        ]
        buttons = dict(api.buttons(sent))
        markup = sent.params["reply_markup"]
        assert "https://trinho.example.org" in markup  # the page, one tap away
        # the owner keeps one small change on the page meanwhile
        city = note.items[2].proposal_id
        proposals.reject(workspace, city, "web")
        changed = "The list changed since you saw it; here it is again. Nothing was done."
        assert press_and_wait(api, buttons["✅ Approve the 3 small changes"]) == changed
        assert proposals.get_proposal(workspace, note.items[3].proposal_id).status == "pending"
        again = dict(api.buttons(api.ok_calls("editMessageText")[-1]))
        answer = press_and_wait(api, again["✅ Approve the 2 small changes"])
        assert answer == "Approved 2 of 2."
        edited = api.ok_calls("editMessageText")[-1].params["text"]
        assert "already" not in edited and "Not done" not in edited
        assert "2 of 5 changes still wait for you:" in edited and "5 changes wait" not in edited
        assert "↩️ Edits: city: Hà Nội → city: Huế (kept as it was)" in edited
        statuses = {p.id: p.status for p in proposals.list_proposals(workspace).proposals}
        assert [statuses[i.proposal_id] for i in note.items] == [
            "pending", "pending", "rejected", "approved", "approved",
        ]  # fmt: skip
        # one at a time: the removal first, its buttons saying what they do, why and from whom
        press_and_wait(api, buttons["🔍 Review one by one"])
        screen = api.ok_calls("editMessageText")[-1]
        assert "Its own reason: “duplicate of the food line”" in screen.params["text"]
        assert "Proposed by: the weekly condensation" in screen.params["text"]
        assert "condense:" not in screen.params["text"]
        labels = [label for label, _ in api.buttons(screen)]
        assert labels == [
            "Remove this line", "Keep it", "↩️ Back to the list", "↶ Take back this approval",
        ]  # fmt: skip
        press_and_wait(api, dict(api.buttons(screen))["Keep it"])
        coffee = api.ok_calls("editMessageText")[-1]
        assert [label for label, _ in api.buttons(coffee)][:2] == [
            "Replace what you said with “flat white”?",
            "Keep what you said",
        ]
        press_and_wait(api, dict(api.buttons(coffee))["Keep what you said"])
        final = api.ok_calls("editMessageText")[-1]
        assert "Review finished: 2 approved, 3 kept as they were, 0 left." in final.params["text"]
        assert [label for label, _ in api.buttons(final)] == [
            "↶ Take back this decision",
            "🌐 Open the review page",
        ]


def test_a_screen_shown_again_unchanged_is_refused_by_telegram_and_the_press_still_answered(
    api: FakeBotApi, running: TelegramChannel, decider: RecordingDecider
) -> None:
    review = summary_buttons(api)["🔍 Review one by one"]
    press_and_wait(api, review)
    back = dict(api.buttons(api.ok_calls("editMessageText")[-1]))["↩️ Back to the list"]
    assert press_and_wait(api, back) == "The list of changes"
    assert press_and_wait(api, back) == "The list of changes"  # same list: Telegram says 400
    refused = [c for c in api.calls if c.method == "editMessageText" and c.status == 400]
    assert len(refused) == 1


def test_the_fake_refuses_what_telegram_refuses(api: FakeBotApi) -> None:
    """The double is as strict as the server: a test cannot pass on what Telegram refuses."""
    import json as _json

    def markup(**button: str) -> str:
        return _json.dumps({"inline_keyboard": [[{"text": "x", **button}]]})

    def send(**button: str) -> str | None:
        return api._refusal("sendMessage", {"text": "a", "reply_markup": markup(**button)})

    assert api._refusal("sendMessage", {"text": ""}) == "message text is empty"
    assert api._refusal("sendMessage", {"text": "😀" * 2049}) == "message is too long"
    assert send(callback_data="x" * 65) == "BUTTON_DATA_INVALID"
    assert "Wrong HTTP URL" in str(send(url="http://127.0.0.1:8766"))
    assert send(url="https://x.org") is None
    edit = api._refusal("editMessageText", {"text": "a", "message_id": 99})
    assert edit == "message to edit not found"
    assert api._refusal("answerCallbackQuery", {"text": "x" * 201}) == "MESSAGE_TOO_LONG"


def test_without_a_public_address_the_review_has_no_page_button(
    api: FakeBotApi, workspace: Workspace
) -> None:
    from trinho.channels import channel_from_config
    from trinho.config.files import parse_config
    from trinho.errors import TrinhoError
    from trinho.workspace import open_workspace

    config = workspace.internal / "config.toml"
    config.write_text(
        config.read_text() + '\n[web]\nenabled = true\npublic_url = "https://r.example.org/"\n'
    )
    ws = open_workspace(workspace.root)
    env = {"TRINHO_TELEGRAM_TOKEN": TOKEN, "TRINHO_TELEGRAM_OWNER_ID": str(OWNER)}
    channel = channel_from_config(ws, env=env)
    assert getattr(channel, "review_url", None) == "https://r.example.org"
    channel.close()
    for bad in ("http://127.0.0.1:8766", "ftp://x.org", "https://localhost/"):
        with pytest.raises(TrinhoError, match="public_url"):
            parse_config(f'[web]\npublic_url = "{bad}"\n', "cfg")


def test_a_bulk_approval_is_taken_back_from_the_summary_it_updated(
    api: FakeBotApi, workspace: Workspace, clock: FixedClock
) -> None:
    from trinho.facts.store import fact_on
    from trinho.proposals import store as proposals

    note = queued_review(workspace)
    box = Outbox(workspace)
    box.enqueue(note)
    with queue_channel(api, workspace) as channel:
        box.deliver(channel)
        channel.start(poll_timeout=1)
        buttons = dict(api.buttons(api.ok_calls("sendMessage")[0]))
        assert "↶ Take back this approval" not in buttons
        assert press_and_wait(api, buttons["✅ Approve the 3 small changes"]) == "Approved 3 of 3."
        assert fact_on(workspace, "city").value == "Huế"
        summary = api.ok_calls("editMessageText")[-1]
        assert "You can take it back for 15 minutes." in summary.params["text"]
        take_back = dict(api.buttons(summary))["↶ Take back this approval"]
        clock.advance(minutes=2)
        assert press_and_wait(api, take_back) == "Taken back 3 of 3."
        assert fact_on(workspace, "city").value == "Hà Nội"
        assert fact_on(workspace, "gym").value == "Mondays"
        statuses = {p.id: p.status for p in proposals.list_proposals(workspace).proposals}
        assert [statuses[i.proposal_id] for i in note.items] == [
            "pending", "pending", "reverted", "reverted", "reverted",
        ]  # fmt: skip
        after = api.ok_calls("editMessageText")[-1]
        assert "Taken back 3 of 3." in after.params["text"]
        assert "↶ Take back this approval" not in dict(api.buttons(after))
        assert press_and_wait(api, take_back) == "This button is out of date; nothing was done."
        assert fact_on(workspace, "city").value == "Hà Nội"
