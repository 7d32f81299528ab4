"""A channel that follows a script (ok, fail, or a crash after the owner got the message) and
the notifications the outbox tests enqueue."""

from __future__ import annotations

from trinho.channels.base import ChannelError, Notification, NotificationItem, SentReceipt


class Crash(BaseException):
    """The process dies here: nothing after it runs."""


class ScriptedChannel:
    """Each send follows the script: ok, fail, or crash after the owner got it."""

    name = "scripted"

    def __init__(self, script: list[str]) -> None:
        self.script = list(script)
        self.titles: list[str] = []

    def send(self, notification: Notification) -> SentReceipt:
        step = self.script.pop(0) if self.script else "ok"
        if step == "fail":
            raise ChannelError("502 Bad Gateway")
        self.titles.append(notification.title)
        if step == "crash":
            raise Crash
        return SentReceipt(self.name, f"msg-{len(self.titles)}")

    def close(self) -> None:
        pass


def notification(nid: str, items: int = 1) -> Notification:
    return Notification(
        nid,
        "Weekly condensation",
        f"{items} held",
        tuple(NotificationItem(f"p{i}", f"h{i}", "edited", "- x", None, "r") for i in range(items)),
    )
