"""One Telegram bot for many owners of a PostgreSQL store, over real HTTP (the strict fake Bot
API): each user reads, answers with and decides only their own owner's memory; a stranger is
refused; each owner's announcement reaches only their chat."""

from __future__ import annotations

import concurrent.futures
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from conftest import FixedClock
from support.fake_bot_api import FakeBotApi
from support.pg_fixtures import new_owner
from trinho.channels import Notification, NotificationItem, TelegramSettings
from trinho.channels.callbacks import CallbackAction, callback_secret, encode, short_hash
from trinho.channels.inbox import InboxItem, InboxState
from trinho.config import Config
from trinho.errors import TrinhoError
from trinho.i18n import t
from trinho.models import ChatRequest, ScriptedModel
from trinho.pg.connect import Database
from trinho.pg.outbox import PgOutbox
from trinho.pg.owners import owner_rows, set_telegram_user, telegram_owner
from trinho.pg.store import PgRecords
from trinho.pg.telegram import OwnersBot, OwnersService, bot_id
from trinho.pg.transcripts import PgTranscripts

TOKEN = "123456:TEST-token"
X_USER, Y_USER, STRANGER = 1001, 2002, 3003
DIGEST = "digest:2026-11-29"


@dataclass(frozen=True)
class Owner:
    name: str
    user: int
    secret: str
    """A word only this owner's MEMORY.md holds."""
    records: PgRecords
    proposal: str
    content_hash: str


def words_seen(request: ChatRequest) -> str:
    """The model's reply: which owners' secret words the request carried."""
    seen = " ".join(m.text for m in request.messages)
    return "seen: " + ",".join(w for w in ("alpha-secret", "bravo-secret") if w in seen)


def make_owner(db: Database, clock: FixedClock, user: int, secret: str, city: str) -> Owner:
    name = new_owner(db)
    set_telegram_user(db, name, user)
    records = PgRecords(db, name, clock=clock, timezone="UTC")
    records.write_memory(f"# Memory\n\n- 2026-11-01: the word is {secret}\n")
    fact = {"user": "owner", "key": "city", "value": city}
    proposal = records.submit("fact", fact, reason="said so", origin="chat").proposal
    item = NotificationItem(proposal.id, proposal.content_hash, "fact", None, city, "said so")
    note = Notification(DIGEST, "Digest", f"one change waits ({city})", (item,))
    PgOutbox(db, name, clock=clock, timezone="UTC").enqueue(note)
    return Owner(name, user, secret, records, proposal.id, proposal.content_hash)


@pytest.fixture
def api() -> Iterator[FakeBotApi]:
    with FakeBotApi() as server:
        yield server


@pytest.fixture
def owners(own_database: Database, clock: FixedClock) -> tuple[Owner, Owner]:
    x = make_owner(own_database, clock, X_USER, "alpha-secret", "Huế")
    y = make_owner(own_database, clock, Y_USER, "bravo-secret", "Đà Lạt")
    return x, y


@pytest.fixture
def model() -> ScriptedModel:
    return ScriptedModel(words_seen)


def make_bot(api: FakeBotApi, db: Database, clock: FixedClock, model: ScriptedModel) -> OwnersBot:
    settings = TelegramSettings(token=TOKEN, owner_id=0, base_url=api.base_url)
    return OwnersBot(
        settings, db, config=Config(), config_text=None, clock=clock, locale="en", model=model,
        timeout=10,
    )  # fmt: skip


@pytest.fixture
def bot(
    api: FakeBotApi, own_database: Database, clock: FixedClock, model: ScriptedModel
) -> Iterator[OwnersBot]:
    channel = make_bot(api, own_database, clock, model)
    try:
        yield channel
    finally:
        channel.close()


def sent_to(api: FakeBotApi, chat: int) -> list[str]:
    calls = api.ok_calls("sendMessage")
    return [c.params["text"] for c in calls if c.params["chat_id"] == str(chat)]


def summary_of(api: FakeBotApi, chat: int) -> dict[str, str]:
    call = next(c for c in api.ok_calls("sendMessage") if c.params["chat_id"] == str(chat))
    return dict(api.buttons(call))


def press(api: FakeBotApi, data: str, user: int) -> str:
    """Press a button in `user`'s private chat; the bot's answer to it."""
    query = api.press(data, user_id=user, chat_id=user)

    def answer() -> list[str]:
        return [
            str(c.params.get("text", ""))
            for c in api.ok_calls("answerCallbackQuery")
            if c.params["callback_query_id"] == query
        ]

    api.wait_for(lambda: bool(answer()))
    return answer()[0]


def status(owner: Owner) -> str:
    return owner.records.get_proposal(owner.proposal).status


def test_each_owners_announcement_reaches_only_their_chat(
    api: FakeBotApi, bot: OwnersBot, owners: tuple[Owner, Owner]
) -> None:
    x, y = owners
    done = bot.deliver()
    assert sorted(done.sent) == sorted([f"{x.name}:{DIGEST}", f"{y.name}:{DIGEST}"])
    (to_x,), (to_y,) = sent_to(api, X_USER), sent_to(api, Y_USER)
    assert "Huế" in to_x and "Đà Lạt" not in to_x
    assert "Đà Lạt" in to_y and "Huế" not in to_y
    assert {c.params["chat_id"] for c in api.ok_calls("sendMessage")} == {str(X_USER), str(Y_USER)}
    assert bot.deliver().sent == ()  # announced once


def test_a_press_decides_only_the_pressing_users_owners_proposal(
    api: FakeBotApi, bot: OwnersBot, owners: tuple[Owner, Owner]
) -> None:
    x, y = owners
    bot.deliver()
    bot.start(poll_timeout=1)
    x_buttons, y_buttons = summary_of(api, X_USER), summary_of(api, Y_USER)
    review = next(data for label, data in x_buttons.items() if "Review" in label)
    press(api, review, X_USER)
    shown = api.ok_calls("editMessageText")[-1]
    approve = api.buttons(shown)[0][1]

    # Y presses X's button: looked for among Y's announcements, where the same key names Y's
    # own change, whose hash is not the one the button carries: nothing is decided.
    assert press(api, approve, Y_USER) == t("en", "channel.cb.stale")
    assert status(x) == "pending" and status(y) == "pending"

    assert press(api, approve, X_USER) == t("en", "channel.cb.approved")
    assert status(x) == "approved" and status(y) == "pending"
    assert x.records.load_fact("city") is not None
    assert y.records.load_fact("city") is None
    y_review = next(data for label, data in y_buttons.items() if "Review" in label)
    press(api, y_review, Y_USER)
    y_approve = api.buttons(api.ok_calls("editMessageText")[-1])[0][1]
    assert press(api, y_approve, Y_USER) == t("en", "channel.cb.approved")
    assert status(y) == "approved"


def test_a_forged_button_naming_another_owners_proposal_decides_nothing(
    api: FakeBotApi, bot: OwnersBot, owners: tuple[Owner, Owner]
) -> None:
    x, y = owners
    bot.deliver()
    bot.start(poll_timeout=1)
    secret = callback_secret(TOKEN)
    key = Notification(DIGEST, "t", "s").key
    forged = [
        encode(secret, CallbackAction("y", key, 0, short_hash(y.content_hash))),
        encode(secret, CallbackAction("n", key, 0, short_hash(y.content_hash))),
        encode(secret, CallbackAction("A", key, 0, "")),
        encode(secret, CallbackAction("R", key, 0, "")),
    ]
    answers = [press(api, data, X_USER) for data in forged[:2]]
    assert answers == [t("en", "channel.cb.stale")] * 2
    assert status(x) == "pending" and status(y) == "pending"
    press(api, forged[3], X_USER)  # keep what waits as it is: X's own only, asked once more
    assert status(x) == "pending" and status(y) == "pending"
    ask = dict(api.buttons(api.ok_calls("editMessageText")[-1]))
    press(api, next(d for label, d in ask.items() if label.startswith("✋ Yes, keep")), X_USER)
    assert status(x) == "rejected" and status(y) == "pending"
    texts = [c.params["text"] for c in api.ok_calls("editMessageText")]
    assert texts and not any("Đà Lạt" in text for text in texts)


def test_a_stranger_is_refused_and_nothing_of_any_owner_is_read_or_decided(
    api: FakeBotApi, bot: OwnersBot, owners: tuple[Owner, Owner], model: ScriptedModel
) -> None:
    x, y = owners
    bot.deliver()
    bot.start(poll_timeout=1)
    approve_all = next(d for label, d in summary_of(api, X_USER).items() if "Approve" in label)
    assert press(api, approve_all, STRANGER) == t("en", "channel.cb.not_owner")
    api.say("what is the word?", user_id=STRANGER, chat_id=STRANGER)
    api.say("and yours?", user_id=X_USER, chat_id=X_USER)
    api.wait_for(lambda: len(sent_to(api, X_USER)) == 2)
    assert sent_to(api, STRANGER) == []
    assert [r.messages[-1].text for r in model.requests] == ["and yours?"]
    assert status(x) == "pending" and status(y) == "pending"


def test_each_user_chats_with_their_own_owners_memory_only(
    api: FakeBotApi,
    bot: OwnersBot,
    owners: tuple[Owner, Owner],
    clock: FixedClock,
    model: ScriptedModel,
) -> None:
    x, y = owners
    bot.start(poll_timeout=1)
    api.say("what is the word?", user_id=X_USER, chat_id=X_USER)
    api.say("what is the word?", user_id=Y_USER, chat_id=Y_USER)
    api.say("in a group", user_id=X_USER, chat_id=-5)
    api.wait_for(lambda: sent_to(api, X_USER) != [] and sent_to(api, Y_USER) != [])
    assert sent_to(api, X_USER) == ["seen: alpha-secret"]
    assert sent_to(api, Y_USER) == ["seen: bravo-secret"]
    assert sent_to(api, -5) == []
    for owner, reply in ((x, "seen: alpha-secret"), (y, "seen: bravo-secret")):
        turns = PgTranscripts(owner.records.db, owner.name, clock=clock, timezone="UTC")
        said = [(s.turn.role, s.turn.text) for day in turns.days() for s in turns.read_day(day)]
        assert said == [("user", "what is the word?"), ("assistant", reply)]
    api.say("and again?", user_id=Y_USER, chat_id=Y_USER)
    api.wait_for(lambda: len(sent_to(api, Y_USER)) == 2)
    follow_up = [(m.role, m.text) for m in model.requests[-1].messages if m.role != "system"]
    assert follow_up == [
        ("user", "what is the word?"),
        ("assistant", "seen: bravo-secret"),
        ("user", "and again?"),
    ]


class Submitted(concurrent.futures.Executor):
    """A pool that runs nothing: what the dispatcher started, each turn's item."""

    def __init__(self) -> None:
        self.items: list[InboxItem] = []

    def submit(  # type: ignore[override]
        self, fn: Callable[..., None], owner: str, channel: object, item: InboxItem
    ) -> concurrent.futures.Future[None]:
        self.items.append(item)
        return concurrent.futures.Future()


def test_a_message_recorded_while_the_dispatcher_looks_is_answered(
    bot: OwnersBot, owners: tuple[Owner, Owner], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dispatcher found Y's inbox empty; before it could forget Y, Y's message was recorded
    and Y opened again: Y stays open, and the next look starts Y's turn."""
    _, y = owners
    bot._opened({y.name: Y_USER})
    inbox = bot.line(y.name, Y_USER).channel.inbox
    looked = inbox.state

    def looked_then_recorded() -> InboxState:
        empty = looked()
        inbox.add([(50, "what is the word?")])
        bot._opened({y.name: Y_USER})
        return empty

    monkeypatch.setattr(inbox, "state", looked_then_recorded)
    pool = Submitted()
    assert bot._dispatch(pool) is None and pool.items == []
    monkeypatch.setattr(inbox, "state", looked)
    bot._dispatch(pool)
    assert [(item.update_id, item.text) for item in pool.items] == [(50, "what is the word?")]


def test_a_restart_asks_telegram_for_what_came_after_and_answers_each_message_once(
    api: FakeBotApi,
    bot: OwnersBot,
    owners: tuple[Owner, Owner],
    own_database: Database,
    clock: FixedClock,
    model: ScriptedModel,
) -> None:
    bot.start(poll_timeout=1)
    api.say("first", user_id=X_USER, chat_id=X_USER)
    api.say("hello", user_id=STRANGER, chat_id=STRANGER)
    api.wait_for(lambda: len(sent_to(api, X_USER)) == 1)
    bot.close()
    with own_database.tx() as conn:
        row = conn.execute(
            "SELECT next_offset FROM telegram_bots WHERE bot_id = %s", (bot_id(TOKEN),)
        ).fetchone()
    assert row == (3,)  # past the stranger's update too
    again = make_bot(api, own_database, clock, model)
    try:
        again.start(poll_timeout=1)
        api.say("second", user_id=X_USER, chat_id=X_USER)
        api.wait_for(lambda: len(sent_to(api, X_USER)) == 2)
    finally:
        again.close()
    assert [r.messages[-1].text for r in model.requests] == ["first", "second"]
    offsets = [c.params.get("offset") for c in api.ok_calls("getUpdates")]
    assert "3" in offsets and "1" not in offsets


def test_the_registry_maps_each_user_to_one_owner(own_database: Database) -> None:
    a, b = new_owner(own_database), new_owner(own_database)
    set_telegram_user(own_database, a, 42)
    with pytest.raises(TrinhoError, match="already another owner's"):
        set_telegram_user(own_database, b, 42)
    with pytest.raises(TrinhoError, match="no owner"):
        set_telegram_user(own_database, "nobody", 43)
    assert telegram_owner(own_database, 42) == a and telegram_owner(own_database, 43) is None
    set_telegram_user(own_database, a, None)
    assert telegram_owner(own_database, 42) is None
    set_telegram_user(own_database, b, 42)
    assert [(o, u) for o, _, u in owner_rows(own_database)] == sorted([(a, None), (b, 42)])


def test_a_token_must_name_its_bot() -> None:
    assert bot_id(TOKEN) == 123456
    with pytest.raises(TrinhoError, match="BotFather"):
        bot_id("not-a-token")


def test_the_operator_gives_and_takes_an_owners_telegram_user(
    own_database: Database,
    cli_env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from trinho.cli import main

    monkeypatch.setenv("TRINHO_DATABASE_URL", own_database.url)  # the operator's role

    def run(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    assert run("owners", "add", "an")[0] == 0 and run("owners", "add", "binh")[0] == 0
    code, out, _ = run("owners", "telegram", "an", "1001")
    assert code == 0 and "1001" in out and "an" in out
    code, out, err = run("owners", "telegram", "binh", "1001")
    assert code != 0 and out == "" and err.count("\n") == 1 and "another owner's" in err
    assert run("owners", "telegram", "binh")[0] != 0  # neither a user nor --unset
    assert run("owners", "telegram", "binh", "5", "--unset")[0] != 0
    assert run("owners", "telegram", "an", "0")[0] != 0
    assert "1001" in run("owners", "list")[1]
    listed = json.loads(run("owners", "list", "--json")[1])
    assert listed == [
        {"owner": "an", "timezone": "UTC", "telegram_user_id": 1001},
        {"owner": "binh", "timezone": "UTC", "telegram_user_id": None},
    ]
    assert run("owners", "telegram", "an", "--unset")[0] == 0
    assert telegram_owner(own_database, 1001) is None


def test_serve_on_a_database_without_a_bot_token_is_refused_in_one_line(
    own_database: Database,
    cli_env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from trinho.cli import main

    monkeypatch.delenv("TRINHO_TELEGRAM_TOKEN", raising=False)
    assert main(["serve"]) != 0
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "TRINHO_TELEGRAM_TOKEN" in err


def test_the_service_delivers_each_owners_outbox_and_answers_until_stopped(
    api: FakeBotApi, bot: OwnersBot, owners: tuple[Owner, Owner]
) -> None:
    with OwnersService(bot, outbox_poll=0.1, grace=5).running():
        api.wait_for(lambda: sent_to(api, X_USER) != [] and sent_to(api, Y_USER) != [])
        api.say("hi", user_id=Y_USER, chat_id=Y_USER)
        api.wait_for(lambda: len(sent_to(api, Y_USER)) == 2)
    assert sent_to(api, Y_USER)[1] == "seen: bravo-secret"
    assert len(sent_to(api, X_USER)) == 1


def test_a_batch_the_database_could_not_take_is_recorded_once_it_can(
    api: FakeBotApi,
    bot: OwnersBot,
    owners: tuple[Owner, Owner],
    model: ScriptedModel,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []

    def flaky(db: Database, user_id: int) -> str | None:
        calls.append(user_id)
        if len(calls) == 1:
            raise OSError("the database went away")
        return telegram_owner(db, user_id)

    monkeypatch.setattr("trinho.pg.telegram.telegram_owner", flaky)
    bot.start(poll_timeout=1)
    api.say("still there?", user_id=X_USER, chat_id=X_USER)
    api.wait_for(lambda: sent_to(api, X_USER) != [])
    assert sent_to(api, X_USER) == ["seen: alpha-secret"]
    assert [r.messages[-1].text for r in model.requests] == ["still there?"]
    assert len(calls) == 2


def test_one_owners_slow_turn_does_not_hold_back_anothers(
    api: FakeBotApi, own_database: Database, clock: FixedClock, owners: tuple[Owner, Owner]
) -> None:
    def slow_for_x(request: ChatRequest) -> str:
        reply = words_seen(request)
        if "alpha" in reply:  # X's turn lasts until Y's reply has been sent
            api.wait_for(lambda: sent_to(api, Y_USER) != [])
        return reply

    model = ScriptedModel(slow_for_x)
    bot = make_bot(api, own_database, clock, model)
    try:
        bot.start(poll_timeout=1)
        api.say("first", user_id=X_USER, chat_id=X_USER)
        api.wait_for(lambda: len(model.requests) == 1)
        api.say("second", user_id=Y_USER, chat_id=Y_USER)
        api.wait_for(lambda: sent_to(api, X_USER) != [] and sent_to(api, Y_USER) != [])
    finally:
        bot.close()
    order = [c.params["chat_id"] for c in api.ok_calls("sendMessage")]
    assert order == [str(Y_USER), str(X_USER)]
    assert sent_to(api, X_USER) == ["seen: alpha-secret"]
