"""The owner-facing text of announcements and review screens (pure, in the owner's locale).

Telegram refuses messages over 4096 characters, counted in UTF-16 code units, so every text
meant for it is built to fit: the counts and the decision-relevant parts are kept whole, and
long titles or lines are cut with a visible marker.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from trinho.channels.base import Notification, NotificationItem
from trinho.channels.screen import Shown, covered_keep, covered_small
from trinho.i18n import N_, t
from trinho.i18n.keys import CHANNEL_KIND, DECIDED_LABEL, RISK_LABEL
from trinho.textnorm import printable, show_hidden, show_hidden_lines, shown_id

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
    notification: Notification,
    index: int,
    locale: str,
    limit: int = TELEGRAM_LIMIT,
    *,
    for_owner: bool = False,
) -> str:
    """The review screen of one change, numbered in review order (riskiest first): its
    class, old -> new with every hidden character made visible, and the reason. Without
    `for_owner` (the console, which the owner answers with the CLI) it ends with the
    commands that decide it; `for_owner` (the chat review, answered by buttons) never shows
    the id, and an archive's new side says where the lines go instead of "(nothing)"."""
    item = notification.items[index]
    none = t(locale, "channel.item.none")
    number = review_indices(notification).index(index)
    header = t(
        locale,
        "channel.item.header",
        index=number + 1,
        total=len(notification.items),
        label=kind_label(item.kind, locale),
    )
    new_none = t(locale, "channel.item.archived") if item_risk(item) == 1 else none
    fields = [
        (N_("channel.item.old"), none if item.old is None else show_hidden_lines(item.old)),
        (N_("channel.item.new"), new_none if item.new is None else show_hidden_lines(item.new)),
        (N_("channel.item.reason"), item.reason or none),
    ]
    frame = text_length(header) + sum(text_length(t(locale, key, text="")) + 1 for key, _ in fields)
    share = max(20, (limit - frame) // len(fields))
    body = [t(locale, key, text=clip(value, share, locale)) for key, value in fields]
    if not for_owner:
        body += [
            *_about(item, locale),
            t(locale, "channel.item.proposal", id=shown_id(item.proposal_id)),
        ]
    return clip("\n".join([header, *body]), limit, locale)


def _about(item: NotificationItem, locale: str) -> list[str]:
    """Who proposed the change and where it came from, when the item says."""
    lines = []
    if item.who:
        lines.append(t(locale, "channel.item.who", text=clip(item.who, 200, locale)))
    if item.source:
        source = clip(show_hidden_lines(item.source), 300, locale)
        lines.append(t(locale, "channel.item.source", text=source))
    return lines


def console_text(notification: Notification, locale: str) -> str:
    """Everything at once for a terminal: the summary, then every change riskiest first, the
    same order and words as the chat review, each with the commands that decide it."""
    parts = [summary_text(notification, locale, limit=1 << 30)]
    parts += [
        item_text(notification, i, locale, limit=1 << 30) for i in review_indices(notification)
    ]
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


# --- the review: one line per change, riskiest first, updated as the owner decides -----------

ONE_AT_A_TIME_RISKS = frozenset({0, 1, 2})
"""Risks (`trinho.review.risk.ONE_AT_A_TIME`) never decided in bulk: removing a line,
archiving lines, replacing what the owner said."""
_KIND_RISK = {"removed": 0, "suspicious": 0, "archive": 1, "fact": 2}
"""The risk of an item announced before items carried one: a fact is taken as replacing the
owner's word (decided one at a time), as it may."""
_RISK_MARK = {0: "🗑", 1: "📦", 2: "✋", 3: "✏️", 4: "➕"}
_STATE_MARK = {"approved": "✅", "rejected": "↩️", "stale": "⌛", "reverted": "⏪"}
LINE_CHARS = 90
"""How much of a change's text its summary line shows."""
BUTTON_CHARS = 60


def item_risk(item: NotificationItem) -> int:
    """The item's risk: as announced, or from its kind for an item announced without one."""
    if item.risk is not None:
        return item.risk
    if item.kind in _KIND_RISK:
        return _KIND_RISK[item.kind]
    if item.new is None:
        return 0
    return 4 if item.old is None else 3


def item_state(item: NotificationItem, states: Mapping[str, str]) -> str:
    return states.get(item.proposal_id, "pending")


def review_indices(notification: Notification) -> list[int]:
    """The items' indices riskiest first, then in the order announced (oldest first)."""
    items = notification.items
    return sorted(range(len(items)), key=lambda i: (item_risk(items[i]), i))


def pending_indices(notification: Notification, states: Mapping[str, str]) -> list[int]:
    """What still waits, in review order."""
    return [
        i
        for i in review_indices(notification)
        if item_state(notification.items[i], states) == "pending"
    ]


def shown_item(item: NotificationItem) -> Shown:
    """The item as the bulk rule sees it. It edits or removes an owner's line when it is
    decided one at a time, or replaces an existing MEMORY.md line (every line there is the
    owner's); only a fact the agent inferred may be replaced in bulk, both values shown."""
    owner_line = item_risk(item) in ONE_AT_A_TIME_RISKS or (
        item.old is not None and item.kind != "fact"
    )
    return Shown(item.old, item.new, owner_line)


def bulk_indices(notification: Notification, states: Mapping[str, str], screen: str) -> list[int]:
    """What one bulk approval from `screen` covers: what still waits, every line of it on the
    screen, and edits or removes no owner's line (`trinho.channels.screen`), in review order."""
    items = notification.items
    covered = set(covered_small([shown_item(item) for item in items], screen))
    return [i for i in pending_indices(notification, states) if i in covered]


def keep_indices(notification: Notification, states: Mapping[str, str], screen: str) -> list[int]:
    """What one "keep as they are" from `screen` covers: what still waits and is whole on it."""
    items = notification.items
    covered = set(covered_keep([shown_item(item) for item in items], screen))
    return [i for i in pending_indices(notification, states) if i in covered]


def change_line(item: NotificationItem, locale: str, state: str = "pending") -> str:
    """One change in one line: its mark, what it does and the text it touches; a decided one
    says how it was decided."""
    risk = item_risk(item)
    if risk in (0, 1) or item.new is None:
        text = _first_line(item.old, locale)
    elif item.old is None:
        text = _first_line(item.new, locale)
    else:  # an edit shows what it replaces and with what
        text = f"{_first_line(item.old, locale)} → {_first_line(item.new, locale)}"
    label = t(locale, RISK_LABEL.get(risk, RISK_LABEL[3]))
    mark = _STATE_MARK.get(state) or _RISK_MARK.get(risk, "•")
    line = f"{mark} {label}: {text}"
    if state in DECIDED_LABEL:
        line += f" ({t(locale, DECIDED_LABEL[state])})"
    return line


def _first_line(text: str | None, locale: str) -> str:
    """A side of a change in one line: its first line, clipped, counting the others."""
    lines = [line for line in (text or "").split("\n") if line.strip()]
    first = (
        clip(show_hidden(lines[0]), LINE_CHARS, locale) if lines else t(locale, "channel.item.none")
    )
    if len(lines) > 1:
        return t(locale, "channel.line.more", text=first, count=len(lines) - 1)
    return first


def keep_text(
    notification: Notification, indices: list[int], locale: str, limit: int = TELEGRAM_LIMIT
) -> str:
    """The confirmation asked before keeping many changes as they are: what it does, then each
    change with every line it touches (old, then new), as many as fit whole."""
    head = t(locale, "channel.keep.confirm", count=len(indices))
    body: list[str] = []
    for n, i in enumerate(indices):
        item = notification.items[i]
        label = t(locale, RISK_LABEL.get(item_risk(item), RISK_LABEL[3]))
        block = [f"• {label}"]
        for mark, side in (("−", item.old), ("+", item.new)):
            block += [f"  {mark} {clip(line, 600, locale)}" for line in (side or "").split("\n")
                      if line.strip()]  # fmt: skip
        more = t(locale, "channel.line.others", count=len(indices) - n)
        if text_length("\n".join([head, *body, *block, more])) > limit - 8:
            body.append(more)
            break
        body += block
    return "\n".join([head, "", *body])


def tally(notification: Notification, states: Mapping[str, str], locale: str) -> str:
    """How the review ended: how many approved, kept (rejected), left (still waiting or out
    of date)."""
    found = Counter(item_state(item, states) for item in notification.items)
    approved, kept = found["approved"], found["rejected"]
    left = len(notification.items) - approved - kept
    return t(locale, "channel.tally", approved=approved, kept=kept, left=left)


def review_text(
    notification: Notification,
    locale: str,
    states: Mapping[str, str] | None = None,
    headline: str = "",
    limit: int = TELEGRAM_LIMIT,
) -> str:
    """The summary message: the title; the announcement's own summary until a decision is
    made (it counts what waited then); how many changes still wait; one line per change,
    riskiest first; and when nothing waits any more, the tally."""
    states = states or {}
    items = notification.items
    waiting = pending_indices(notification, states)
    decided = len(waiting) < len(items)
    head = [notification.title] if notification.title.strip() else []
    if notification.summary.strip() and not decided:
        head.append(notification.summary)
    if not items:
        count = t(locale, "channel.nothing_waiting")
    elif not waiting:
        count = tally(notification, states, locale)
    elif decided:
        count = t(locale, "channel.still_waiting", count=len(waiting), total=len(items))
    else:
        count = t(locale, "channel.waiting", count=len(items))
    lines = [
        change_line(items[i], locale, item_state(items[i], states))
        for i in review_indices(notification)
    ]
    tail = [headline] if headline else []
    fixed = "\n".join([count, *tail])
    room = limit - text_length(fixed) - 4
    body: list[str] = []
    for n, line in enumerate(lines):
        more = t(locale, "channel.line.others", count=len(lines) - n)
        if text_length("\n".join([*body, line, more])) > room * 3 // 4:
            body.append(more)
            break
        body.append(line)
    block = "\n".join([count, *body, *(["", *tail] if tail else [])])
    if not head:
        return clip(block, limit, locale)
    head_room = limit - text_length(block) - 2
    if head_room < 20:
        return clip(block, limit, locale)
    return f"{clip(chr(10).join(head), head_room, locale)}\n\n{block}"


def review_item_text(
    notification: Notification, index: int, locale: str, limit: int = TELEGRAM_LIMIT
) -> str:
    """One change's review screen: what it does, old and new, why, who proposed, from where."""
    item = notification.items[index]
    screen = item_text(notification, index, locale, limit=limit * 3 // 4, for_owner=True)
    return clip("\n".join([screen, *_about(item, locale)]), limit, locale)


def button_label(text: str, locale: str) -> str:
    """A button's label cut to fit on a phone's button."""
    return clip(" ".join(text.split()), BUTTON_CHARS, locale)
