"""`trinho serve` on PostgreSQL as a real process: one bot for two owners, each with a Telegram
user, Telegram and the model over HTTP on 127.0.0.1, then SIGTERM or SIGKILL.

The file store's promises (tests/cli/test_serve_cmd.py), owner by owner: each message answered
once, from its owner's memory, the turn in that owner's transcript and the note the model saved
in that owner's notes; an announcement not sent yet still pending in its owner's outbox; nothing
lost to a kill or a stop. The bot keeps each owner's messages in that owner's inbox in the
database before its offset (`telegram_bots`) confirms them to Telegram, so the queue a restart
answers is the database's.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import START, TZ, FixedClock
from support.fake_bot_api import Call, FakeBotApi
from support.fake_model_server import FakeServer, Reply, Seen, openai_reply, refusal_for
from support.pg_fixtures import new_owner
from support.serve_process import (
    SERVE,
    EchoModel,
    answers,
    reaped,
    run_until_answered,
    sigterm_while_building,
    terminated,
)
from trinho.channels import Notification
from trinho.channels.inbox import InboxItem
from trinho.conversations.store import read_day
from trinho.pg.connect import Database
from trinho.pg.inbox import PgInbox
from trinho.pg.outbox import PgOutbox
from trinho.pg.owners import set_telegram_user, telegram_users
from trinho.pg.store import PgRecords
from trinho.pg.telegram import TURNS, bot_id
from trinho.pg.transcripts import PgTranscripts
from trinho.workspace import init_workspace, open_workspace

pytestmark = pytest.mark.slow  # each test runs `trinho serve` as a process for seconds

TOKEN = "123456:TEST-token"
X_USER, Y_USER, STRANGER = 1001, 2002, 3003
DIGEST = "digest:2026-11-29"
SECRETS = ("alpha-secret", "bravo-secret")


@dataclass(frozen=True)
class Site:
    """A database with two owners, X and Y, each with a Telegram user and a word only their
    MEMORY.md holds; `root` the config `trinho serve` reads (the model, the bot)."""

    db: Database
    root: Path
    x: str
    y: str

    def owner_of(self, user: int) -> str:
        return self.x if user == X_USER else self.y


def make_site(db: Database, root: Path, model_url: str, api: FakeBotApi, clock: FixedClock) -> Site:
    init_workspace(root, timezone=TZ)
    config = root / ".trinho" / "config.toml"
    config.write_text(
        config.read_text("utf-8")
        + f'\n[model]\nname = "ollama:test"\nbase_url = "{model_url}/v1"\n'
        + f'\n[telegram]\ntoken = "{TOKEN}"\nbase_url = "{api.base_url}"\n',
        "utf-8",
    )
    owners = []
    for user, secret in zip((X_USER, Y_USER), SECRETS, strict=True):
        name = new_owner(db, TZ)
        set_telegram_user(db, name, user)
        records = PgRecords(db, name, clock=clock, timezone=TZ)
        records.write_memory(f"# Memory\n\n- 2026-11-01: the word is {secret}\n")
        owners.append(name)
    return Site(db, root, *owners)


def serve(site: Site, code: str = SERVE, **extra: str) -> subprocess.Popen[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("TRINHO_", "OPENAI_", "ANTHROPIC_", "OLLAMA_"))
    }
    env.update(
        {
            "TRINHO_HOME": str(site.root),
            "TRINHO_NOW": START.isoformat(),
            "TRINHO_DATABASE_URL": site.db.url,
            **extra,
        }
    )
    return subprocess.Popen(
        [sys.executable, "-c", code, "serve"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def turns_of(site: Site, owner: str, clock: FixedClock) -> list[tuple[str, str]]:
    transcripts = PgTranscripts(site.db, owner, clock=clock, timezone=TZ)
    return [(s.turn.role, s.turn.text) for s in transcripts.read_day(START.date())]


def sent_to(api: FakeBotApi, chat: int) -> list[str]:
    calls = api.ok_calls("sendMessage")
    return [str(c.params["text"]) for c in calls if c.params["chat_id"] == str(chat)]


def nothing_in_the_files(site: Site) -> bool:
    """The workspace folder holds the config only: no owner's turn was written there."""
    return read_day(open_workspace(site.root), START.date()) == []


# -- a turn with a tool, two owners, and an announcement Telegram refused ----------------------

REMEMBER = re.compile(r"nhớ giùm: (.+)")


class OwnersModel(FakeServer):
    """What a tool-calling model does with "nhớ giùm: X": `memory_save` of X, then a reply
    naming the owners' words the request carried (the memory it was given)."""

    def __init__(self) -> None:
        super().__init__(Reply(openai_reply("unused")))

    def _next(self, seen: Seen) -> Reply:
        if not seen.path.startswith("/v1"):
            return super()._next(seen)
        with self._lock:
            self.requests.append(seen)
        refused = refusal_for(seen.path, seen.body, self.context_tokens)
        if refused is not None:
            return refused
        messages = seen.body["messages"]
        if messages[-1]["role"] == "tool":
            said = json.dumps(messages, ensure_ascii=False)
            seen_words = ",".join(w for w in SECRETS if w in said)
            return Reply(openai_reply(f"Đã ghi nhớ. seen: {seen_words}"))
        match = REMEMBER.search(str(messages[-1]["content"]))
        assert match is not None, messages[-1]
        asked = match.group(1)
        text = json.dumps({"text": asked[0].upper() + asked[1:]}, ensure_ascii=False)
        function = {"name": "memory_save", "arguments": text}
        save = {"id": "call_1", "type": "function", "function": function}
        return Reply(openai_reply(None, [save]))


def test_serve_answers_each_owner_from_their_memory_and_stops_cleanly_on_sigterm(
    api: BotApi, own_database: Database, tmp_path: Path, clock: FixedClock
) -> None:
    model = OwnersModel()
    refused: list[dict[str, Any]] = []

    def refuse_xs_announcement(method: str, params: dict[str, Any]) -> bool:
        """Telegram fails X's first message (the announcement) with a 502."""
        if method != "sendMessage" or params.get("chat_id") != str(X_USER) or refused:
            return False
        refused.append(params)
        return True

    with model:
        site = make_site(own_database, tmp_path / "ws", model.url, api, clock)
        for owner, city in ((site.x, "Huế"), (site.y, "Đà Lạt")):
            outbox = PgOutbox(own_database, owner, clock=clock, timezone=TZ)
            outbox.enqueue(Notification(DIGEST, "Nightly jobs", f"nothing ({city})"))
        api.before = refuse_xs_announcement
        with reaped(serve(site)) as proc:
            api.wait_for(
                lambda: proc.poll() is not None or any(c.method == "getUpdates" for c in api.calls),
                timeout=60,
            )
            assert proc.poll() is None, proc.communicate()
            api.wait_for(lambda: bool(refused) and sent_to(api, Y_USER) != [], timeout=60)
            api.say("nhớ giùm: mai đi Đà Lạt", user_id=X_USER, chat_id=X_USER)
            api.say("nhớ giùm: mai đi Huế", user_id=Y_USER, chat_id=Y_USER)
            api.say("nhớ giùm: mai đi Sapa", user_id=STRANGER, chat_id=STRANGER)
            api.wait_for(lambda: len(sent_to(api, X_USER)) == 1, timeout=60)
            api.wait_for(lambda: len(sent_to(api, Y_USER)) == 2, timeout=60)
            api.wait_for(lambda: api.updates == [], timeout=60)  # the stranger's was read too
            out, err = terminated(proc)
    assert proc.returncode == 0, err
    assert out == ""
    events = [json.loads(line) for line in err.splitlines()]
    names = [e.get("event") for e in events]
    assert names[0] == "serve.start"
    assert {"serve.signal", "serve.stopping", "serve.stopped"} <= set(names)
    stopped = next(e for e in events if e.get("event") == "serve.stopped")
    assert stopped["pending_announcements"] == [f"{site.x}:{DIGEST}"]
    assert sent_to(api, X_USER) == ["Đã ghi nhớ. seen: alpha-secret"]
    announcement, reply = sent_to(api, Y_USER)
    assert "Đà Lạt" in announcement and "Huế" not in announcement
    assert reply == "Đã ghi nhớ. seen: bravo-secret"
    day = START.date()
    for owner, said, reply, note in (
        (site.x, "nhớ giùm: mai đi Đà Lạt", "Đã ghi nhớ. seen: alpha-secret", "Mai đi Đà Lạt"),
        (site.y, "nhớ giùm: mai đi Huế", "Đã ghi nhớ. seen: bravo-secret", "Mai đi Huế"),
    ):
        assert turns_of(site, owner, clock) == [("user", said), ("assistant", reply)]
        records = PgRecords(own_database, owner, clock=clock, timezone=TZ)
        assert [e.text for e in records.read_notes(day).entries] == [note]
    (x_entry,) = PgOutbox(own_database, site.x, clock=clock, timezone=TZ).entries()
    assert (x_entry.status, x_entry.attempts, x_entry.in_flight) == ("pending", 1, False)
    (y_entry,) = PgOutbox(own_database, site.y, clock=clock, timezone=TZ).entries()
    assert (y_entry.status, y_entry.in_flight) == ("sent", False)
    assert sent_to(api, STRANGER) == []
    assert len(model.posts) == 4  # two turns of two requests: none for the stranger
    assert nothing_in_the_files(site)


EARLY_SIGTERM = sigterm_while_building("trinho.pg.telegram", "OwnersBot")
"""`trinho serve` on a database receiving SIGTERM as it builds its bot, before anything runs."""


def test_sigterm_while_starting_exits_0_with_json_lines(
    api: BotApi, own_database: Database, tmp_path: Path, clock: FixedClock
) -> None:
    site = make_site(own_database, tmp_path / "ws", "http://127.0.0.1:9", api, clock)
    with reaped(serve(site, EARLY_SIGTERM)) as proc:
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out == ""
    events = [json.loads(line) for line in err.splitlines()]
    assert [e["event"] for e in events] == ["serve.signal", "serve.stopping", "serve.stopped"]
    assert events[0]["signal"] == "SIGTERM"
    assert events[-1]["pending_announcements"] == []
    assert api.calls == []
    with own_database.tx() as conn:
        assert conn.execute("SELECT count(*) FROM telegram_bots").fetchone() == (0,)


# -- faults: SIGKILL and SIGTERM with both owners' messages queued ------------------------------


class Kills:
    """Kills the running service at given counts of an event (a model request, a reply sent):
    at the first such event at or past each count while the service runs. Two owners' turns
    run at once, so a count may come when the other trigger has just killed the service: that
    kill waits for the next run, and each count given is one kill.

    A kill comes when every reply Telegram took is recorded as sent (`settled`), no reply
    being sent meanwhile (`BotApi` sends under `lock`): a service killed between Telegram
    taking a reply and recording it sends it again, as nothing can tell it Telegram has it,
    and an owner's kill must not land in that moment of another owner's turn."""

    def __init__(self) -> None:
        self.victim: subprocess.Popen[str] | None = None
        self.killed = 0
        self.lock = threading.RLock()
        self.settled: Callable[[], bool] = lambda: True

    def fire(self, due: list[int], count: int) -> bool:
        with self.lock:
            victim = self.victim
            if not due or count < due[0] or victim is None or victim.poll() is not None:
                return False
            deadline = time.monotonic() + 30
            while not self.settled() and time.monotonic() < deadline:
                time.sleep(0.02)
            victim.kill()
            victim.wait()
            due.pop(0)
            self.killed += 1
            return True


class BotApi(FakeBotApi):
    """The fake Bot API taking one reply at a time, none while `kills` is killing: a reply
    that came in while the service was being killed is its last words, and is refused (Telegram
    would take a request that reached it whole, and the service, dead, would send it again)."""

    def __init__(self) -> None:
        super().__init__()
        self.kills = Kills()

    def _handle(self, method: str, params: dict[str, Any]) -> tuple[int, Any]:
        if method != "sendMessage":
            return super()._handle(method, params)
        killed = self.kills.killed
        with self.kills.lock:
            if self.kills.killed != killed:  # from the service killed while this one waited
                with self._cond:
                    self.calls.append(Call(method, params, 502))
                return 502, {"ok": False, "error_code": 502, "description": "Bad Gateway"}
            return super()._handle(method, params)


@pytest.fixture
def api() -> Iterator[BotApi]:
    server = BotApi()
    with server:
        yield server


def watch(api: BotApi, site: Site, clock: FixedClock) -> Kills:
    """`api`'s kills, settled when every message Telegram took is in an owner's inbox as
    sent."""

    def settled() -> bool:
        with api._cond:
            taken = set(api.messages)
        recorded = {
            message
            for owner in telegram_users(site.db)
            for item in PgInbox(site.db, owner, clock=clock).state().items
            for message in item.sent
        }
        return taken <= recorded

    api.kills.settled = settled
    return api.kills


class KillingEcho(EchoModel):
    """The echo model that kills the service at the `kill_at` model requests (see `Kills`),
    after the turn started and before its reply exists."""

    def __init__(self, kills: Kills) -> None:
        super().__init__()
        self.kills = kills
        self.due: list[int] = []
        self.counted = itertools.count(1)

    def _next(self, seen: Seen) -> Reply:
        if seen.path.startswith("/v1") and self.kills.fire(self.due, next(self.counted)):
            return Reply(openai_reply("never read"))
        return super()._next(seen)


def say_all(api: FakeBotApi, count: int) -> None:
    """`msg-1` .. `msg-N`, the odd ones from X's user, the even ones from Y's."""
    for n in range(1, count + 1):
        user = X_USER if n % 2 else Y_USER
        api.say(f"msg-{n}", user_id=user, chat_id=user)


def numbers_of(user: int, count: int) -> list[int]:
    return [n for n in range(1, count + 1) if (n % 2 == 1) == (user == X_USER)]


def assert_answered_once_in_order(
    api: FakeBotApi, site: Site, clock: FixedClock, count: int
) -> None:
    """Each owner's messages answered once each, in their order, to their chat, and in their
    transcript only."""
    for user in (X_USER, Y_USER):
        numbers = numbers_of(user, count)
        assert sent_to(api, user) == [f"re: msg-{n}" for n in numbers]
        assert turns_of(site, site.owner_of(user), clock) == [
            pair for n in numbers for pair in (("user", f"msg-{n}"), ("assistant", f"re: msg-{n}"))
        ]
    assert len(answers(api)) == count
    assert nothing_in_the_files(site)


def restarted(site: Site, kills: Kills, code: str = SERVE, **extra: str) -> subprocess.Popen[str]:
    """`serve` on the database again, the process `kills` kills when told to."""
    proc = serve(site, code, **extra)
    kills.victim = proc
    return proc


def open_items(site: Site, owner: str, clock: FixedClock) -> list[InboxItem]:
    return [i for i in PgInbox(site.db, owner, clock=clock).state().items if not i.done]


def test_sigkill_with_ten_messages_queued_loses_none(
    api: BotApi, own_database: Database, tmp_path: Path, clock: FixedClock
) -> None:
    kills = api.kills
    model = KillingEcho(kills)
    with model:
        site = make_site(own_database, tmp_path / "ws", model.url, api, clock)
        watch(api, site, clock)
        say_all(api, 10)
        model.due = [2]
        assert run_until_answered(api, lambda: restarted(site, kills), 10) == 1
    assert kills.killed == 1
    assert api.updates == []  # all confirmed: Telegram has forgotten them
    assert_answered_once_in_order(api, site, clock, 10)
    with own_database.tx() as conn:
        row = conn.execute(
            "SELECT next_offset FROM telegram_bots WHERE bot_id = %s", (bot_id(TOKEN),)
        ).fetchone()
    assert row == (11,)
    assert open_items(site, site.x, clock) == [] and open_items(site, site.y, clock) == []


KILL_AFTER_CHECKIN = """
import os, signal, sys
from pathlib import Path
import trinho.pg.inbox

record = trinho.pg.inbox.PgInbox.record_reply
marker = Path(os.environ["KILLED_AT"])

def killed_once(self, item, text):
    if not marker.exists():
        marker.write_text(item.text, "utf-8")
        os.kill(os.getpid(), signal.SIGKILL)
    return record(self, item, text)

trinho.pg.inbox.PgInbox.record_reply = killed_once
from trinho.cli import main
sys.exit(main())
"""
"""`trinho serve` killed once, when a turn is in its owner's transcript and its reply is not
yet in the inbox (the turn's check-in is one transaction, the inbox's record another)."""


def test_sigkill_after_a_turn_is_saved_and_before_its_reply_is_recorded_asks_no_model_again(
    api: BotApi, own_database: Database, tmp_path: Path, clock: FixedClock
) -> None:
    kills = api.kills
    model = KillingEcho(kills)
    marker = tmp_path / "killed-at"
    with model:
        site = make_site(own_database, tmp_path / "ws", model.url, api, clock)
        watch(api, site, clock)
        say_all(api, 10)
        restarts = run_until_answered(
            api, lambda: restarted(site, kills, KILL_AFTER_CHECKIN, KILLED_AT=str(marker)), 10
        )
        assert restarts == 1
    killed_at = marker.read_text("utf-8")
    asked = [s for s in model.posts if s.body["messages"][-1]["content"] == killed_at]
    assert len(asked) == 1  # the reply sent after the restart is the transcript's
    assert_answered_once_in_order(api, site, clock, 10)


def test_repeated_sigkills_during_a_burst_lose_nothing_and_answer_once(
    api: BotApi, own_database: Database, tmp_path: Path, clock: FixedClock
) -> None:
    kills = api.kills
    model = KillingEcho(kills)
    sends = itertools.count(1)
    kill_sends = [3, 9, 15]

    def before(method: str, params: dict[str, Any]) -> bool:
        """Kill the service when a reply reaches Telegram, before Telegram takes it."""
        return method == "sendMessage" and kills.fire(kill_sends, next(sends))

    with model:
        site = make_site(own_database, tmp_path / "ws", model.url, api, clock)
        watch(api, site, clock)
        say_all(api, 30)
        model.due = [5, 12, 20]
        api.before = before
        assert run_until_answered(api, lambda: restarted(site, kills), 30) == 6
    assert kills.killed == 6 and kill_sends == [] and model.due == []
    assert_answered_once_in_order(api, site, clock, 30)


def test_sigterm_with_a_long_queue_exits_0_and_keeps_the_queue(
    api: BotApi, own_database: Database, tmp_path: Path, clock: FixedClock
) -> None:
    kills = api.kills
    model = KillingEcho(kills)
    with model:
        site = make_site(own_database, tmp_path / "ws", model.url, api, clock)
        watch(api, site, clock)
        say_all(api, 20)
        with reaped(serve(site)) as proc:
            api.wait_for(lambda: len(answers(api)) >= 2, 60)
            out, err = terminated(proc)
        assert proc.returncode == 0, err
        assert out == ""
        names = [json.loads(line)["event"] for line in err.splitlines()]
        assert names[-1] == "serve.stopped"
        done = len(answers(api))
        assert done < 20
        for user in (X_USER, Y_USER):  # what was not answered waits in its owner's inbox
            waiting = [i.text for i in open_items(site, site.owner_of(user), clock)]
            answered = len(sent_to(api, user))
            assert waiting == [f"msg-{n}" for n in numbers_of(user, 20)[answered:]]
        assert run_until_answered(api, lambda: restarted(site, kills), 20) == 0
    assert kills.killed == 0
    assert_answered_once_in_order(api, site, clock, 20)


def test_repeated_sigkills_with_more_owners_than_turns_at_once_lose_nothing_and_answer_once(
    api: BotApi, own_database: Database, tmp_path: Path, clock: FixedClock
) -> None:
    """Seven owners, more than the bot answers at once: some wait for a free turn, and the
    kills land in any of the turns running."""
    kills = api.kills
    model = KillingEcho(kills)
    users = [5000 + n for n in range(TURNS + 3)]
    sends = itertools.count(1)
    kill_sends = [7, 30, 61]

    def before(method: str, params: dict[str, Any]) -> bool:
        return method == "sendMessage" and kills.fire(kill_sends, next(sends))

    with model:
        site = make_site(own_database, tmp_path / "ws", model.url, api, clock)
        owners = {user: new_owner(own_database, TZ) for user in users}
        for user, owner in owners.items():
            set_telegram_user(own_database, owner, user)
        watch(api, site, clock)
        count = 12 * len(users)
        for n in range(1, count + 1):
            api.say(f"msg-{n}", user_id=users[n % len(users)], chat_id=users[n % len(users)])
        model.due = [4, 11, 40, 70]
        api.before = before
        assert run_until_answered(api, lambda: restarted(site, kills), count) == 7
    for user, owner in owners.items():
        numbers = [n for n in range(1, count + 1) if users[n % len(users)] == user]
        assert sent_to(api, user) == [f"re: msg-{n}" for n in numbers]
        assert turns_of(site, owner, clock) == [
            pair for n in numbers for pair in (("user", f"msg-{n}"), ("assistant", f"re: msg-{n}"))
        ]
    assert len(answers(api)) == count
