"""The owner-facing text of announcements and review screens (pure, in the owner's locale).

Telegram refuses messages over 4096 characters, counted in UTF-16 code units, so every text
meant for it is built to fit: the counts and the decision-relevant parts are kept whole, and
long titles or lines are cut with a visible marker.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from trinho.channels.base import Notification, NotificationItem
from trinho.i18n import N_, t
from trinho.i18n.keys import CHANNEL_KIND
from trinho.textnorm import printable

TELEGRAM_LIMIT = 4096
KIND_ORDER = ("suspicious", "removed", "edited", "strange_date", "malformed", "fact")


def text_length(text: str) -> int:
    """Length as Telegram counts it: UTF-16 code units (an emoji outside the BMP counts 2)."""
    return len(text.encode("utf-16-le")) // 2


def clip(text: str, limit: int, locale: str) -> str:
    """`text` made printable (`textnorm.printable`: stored text is shown, never acted on by the
    client), then cut to at most `limit` UTF-16 units, with a marker saying it was cut. Every
    announcement and review screen is built from clipped parts."""
    text = printable(text)
    if text_length(text) <= limit:
        return text
    marker = " " + t(locale, "channel.clipped")
    if text_length(marker) >= limit:
        return _take(text, limit)
    return _take(text, limit - text_length(marker)) + marker


def _take(text: str, room: int) -> str:
    """The longest prefix of `text` that fits in `room` UTF-16 units."""
    used = 0
    for i, char in enumerate(text):
        used += text_length(char)
        if used > room:
            return text[:i]
    return text


def kind_label(kind: str, locale: str) -> str:
    if kind in CHANNEL_KIND:
        return t(locale, CHANNEL_KIND[kind])
    return t(locale, "channel.kind.other", kind=kind)


def kind_counts(items: Iterable[NotificationItem]) -> list[tuple[str, int]]:
    """How many changes of each class, known classes first in a fixed order."""
    counts = Counter(item.kind for item in items)
    known = [(kind, counts[kind]) for kind in KIND_ORDER if counts[kind]]
    others = sorted((kind, n) for kind, n in counts.items() if kind not in KIND_ORDER)
    return known + others


def counts_block(notification: Notification, locale: str) -> str:
    items = notification.items
    if not items:
        return t(locale, "channel.nothing_waiting")
    lines = [t(locale, "channel.waiting", count=len(items))]
    lines += [
        t(locale, "channel.count", label=kind_label(kind, locale), count=count)
        for kind, count in kind_counts(items)
    ]
    return "\n".join(lines)


def summary_text(notification: Notification, locale: str, limit: int = TELEGRAM_LIMIT) -> str:
    """The one message per run: title, summary, and how many changes of each class wait."""
    counts = clip(counts_block(notification, locale), limit, locale)
    head = "\n".join(part for part in (notification.title, notification.summary) if part.strip())
    if not head:
        return counts
    room = limit - text_length(counts) - 2
    if room < 20:
        return counts
    return f"{clip(head, room, locale)}\n\n{counts}"


def item_text(
    notification: Notification, index: int, locale: str, limit: int = TELEGRAM_LIMIT
) -> str:
    """The review screen of one change: its class, old -> new, and the reason."""
    item = notification.items[index]
    none = t(locale, "channel.item.none")
    header = "\n".join(
        [
            t(
                locale,
                "channel.item.header",
                index=index + 1,
                total=len(notification.items),
                label=kind_label(item.kind, locale),
            ),
            t(locale, "channel.item.proposal", id=item.proposal_id),
        ]
    )
    fields = [
        (N_("channel.item.old"), none if item.old is None else item.old),
        (N_("channel.item.new"), none if item.new is None else item.new),
        (N_("channel.item.reason"), item.reason or none),
    ]
    frame = text_length(header) + sum(text_length(t(locale, key, text="")) + 1 for key, _ in fields)
    share = max(20, (limit - frame) // len(fields))
    body = [t(locale, key, text=clip(value, share, locale)) for key, value in fields]
    return clip("\n".join([header, *body]), limit, locale)


def console_text(notification: Notification, locale: str) -> str:
    """Everything at once for a terminal: the summary, every change, how to decide."""
    parts = [summary_text(notification, locale, limit=1 << 30)]
    parts += [
        item_text(notification, i, locale, limit=1 << 30) for i in range(len(notification.items))
    ]
    if notification.items:
        parts.append(t(locale, "channel.console.decide"))
    return "\n\n".join(parts) + "\n"


def split_text(text: str, limit: int = TELEGRAM_LIMIT) -> list[str]:
    """Split a long reply (made printable first) into messages that fit, at line breaks where
    possible."""
    text = printable(text)
    chunks: list[str] = []
    current = ""
    for line in text.split("\n"):
        candidate = line if not current else f"{current}\n{line}"
        if text_length(candidate) <= limit:
            current = candidate
            continue
        if current:
            chunks.append(current)
        current = ""
        for char in line:
            if text_length(current + char) > limit:
                chunks.append(current)
                current = ""
            current += char
    if current or not chunks:
        chunks.append(current)
    return chunks
