"""Shared facts about a user: reconciliation in code, end-dated history, and reading them back.

One file per fact under `users/<user>/facts/<key>.md`: front matter holds the latest version,
a `## History` list holds every earlier one, each with its interval `[valid_from, valid_to)`.
`reconcile` is the pure rule table of the design (section 4); `save_fact` applies its decision
under the fact's lock, so two writers never lose each other's update.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import Literal

from trinho import proposals
from trinho.durable import atomic_write_text, sibling_lock
from trinho.errors import BrokenFile, NotFound, TrinhoError
from trinho.i18n import t
from trinho.textnorm import nfc, one_line, unify_breaks
from trinho.workspace import Workspace, parse_day, validate_slug

Basis = Literal["user", "inferred"]
Actor = Literal["chat", "job"]
Outcome = Literal["created", "unchanged", "superseded", "proposed", "historical"]
ProposalReason = Literal["job", "contradicts_user"]

BASES: tuple[Basis, ...] = ("user", "inferred")
ACTORS: tuple[Actor, ...] = ("chat", "job")
MAX_VALUE_BYTES = 16 * 1024
"""A fact is a short statement; anything longer belongs in notes or MEMORY.md."""
MAX_SOURCE_CHARS = 200
FACTS_DIR = "facts"
_BAD_CHARS_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class FactConflict(TrinhoError):
    """The incoming dates would make two versions of a fact hold on the same day."""


@dataclass(frozen=True)
class FactVersion:
    """One value of a fact over the half-open interval [valid_from, valid_to)."""

    value: str
    basis: Basis
    valid_from: date
    valid_to: date | None
    recorded_at: datetime
    source: str
    confirmed_on: date | None = None
    line: int = field(default=0, compare=False)
    """Line of `value:` in the fact file (0 when the version was not read from a file)."""

    def covers(self, day: date) -> bool:
        return self.valid_from <= day and (self.valid_to is None or day < self.valid_to)

    def ended_by(self, day: date) -> bool:
        return self.valid_to is not None and self.valid_to <= day


@dataclass(frozen=True)
class Fact:
    """A fact: its latest version (`head`, which may have ended) and earlier versions."""

    key: str
    head: FactVersion | None
    history: tuple[FactVersion, ...] = ()

    def versions(self) -> list[FactVersion]:
        """Every version, oldest first."""
        every = [*self.history, *([self.head] if self.head else [])]
        return sorted(every, key=lambda v: (v.valid_from, v.recorded_at))

    def value_on(self, day: date) -> FactVersion | None:
        """What was true on `day`: of the versions covering it, the one recorded last."""
        covering = [v for v in self.versions() if v.covers(day)]
        return max(covering, key=lambda v: v.recorded_at) if covering else None

    def live_head(self, today: date) -> FactVersion | None:
        """The head unless its end date has passed: the version saves are compared with."""
        head = self.head
        return head if head is not None and not head.ended_by(today) else None


@dataclass(frozen=True)
class Incoming:
    """A value someone wants saved. No `valid_from` means from the day it is saved."""

    key: str
    value: str
    basis: Basis
    recorded_at: datetime
    source: str
    valid_from: date | None = None
    valid_to: date | None = None


@dataclass(frozen=True)
class Decision:
    """What `reconcile` decided. `after` is the fact to write (None: write nothing)."""

    outcome: Outcome
    after: Fact | None
    proposal_reason: ProposalReason | None = None


def reconcile(current: Fact | None, incoming: Incoming, actor: Actor, today: date) -> Decision:
    """The reconciliation table of the design, row by row. Pure: no I/O, no clock.

    Raises FactConflict when the incoming dates would overlap versions already recorded.
    """
    fact = current or Fact(incoming.key, None)
    start, end = check_dates(incoming.key, incoming.valid_from, incoming.valid_to, today)
    new = FactVersion(
        incoming.value, incoming.basis, start, end, incoming.recorded_at, incoming.source
    )
    live = fact.live_head(today)
    if live is not None and _same(live, incoming):
        if actor == "chat" and incoming.basis == "user":
            refreshed = replace(live, basis="user", confirmed_on=today)
            if refreshed != live:
                return Decision("unchanged", replace(fact, head=refreshed))
        return Decision("unchanged", None)
    if actor == "job":
        return Decision("proposed", None, "job")
    if end is not None and end <= today:
        _no_overlap(fact, new, fact.versions())
        return Decision("historical", replace(fact, history=_sorted(*fact.history, new)))
    if live is None:
        earlier = fact.versions()
        _no_overlap(fact, new, earlier)
        floor = max((v.valid_to for v in earlier if v.valid_to), default=None)
        if floor is not None and start < floor:
            raise FactConflict.keyed(
                "error.fact.before_history", key=incoming.key, start=start, floor=floor
            )
        moved = (fact.head,) if fact.head else ()
        return Decision("created", Fact(fact.key, new, _sorted(*fact.history, *moved)))
    if live.basis == "user" and incoming.basis == "inferred":
        return Decision("proposed", None, "contradicts_user")
    if start < live.valid_from:
        raise FactConflict.keyed(
            "error.fact.before_current", key=incoming.key, since=live.valid_from, start=start
        )
    ended = replace(live, valid_to=min(live.valid_to, start) if live.valid_to else start)
    return Decision("superseded", Fact(fact.key, new, _sorted(*fact.history, ended)))


def check_dates(
    key: str, valid_from: date | None, valid_to: date | None, today: date
) -> tuple[date, date | None]:
    """The interval a save means: from `valid_from` (default today) to `valid_to`, non-empty."""
    start = valid_from or today
    if valid_to is not None and valid_to <= start:
        which = "error.fact.dates_order" if valid_from else "error.fact.dates_order_today"
        raise FactConflict.keyed(which, key=key, end=valid_to, start=start)
    return start, valid_to


def _same(live: FactVersion, incoming: Incoming) -> bool:
    return (
        live.value == incoming.value
        and incoming.valid_to in (None, live.valid_to)
        and incoming.valid_from in (None, live.valid_from)
    )


def _sorted(*versions: FactVersion) -> tuple[FactVersion, ...]:
    return tuple(sorted(versions, key=lambda v: (v.valid_from, v.recorded_at)))


def _no_overlap(fact: Fact, new: FactVersion, others: list[FactVersion]) -> None:
    for other in others:
        if _overlaps(new, other):
            until = other.valid_to or "now"
            raise FactConflict.keyed(
                "error.fact.overlap",
                key=fact.key,
                start=new.valid_from,
                end=new.valid_to,
                value=other.value,
                since=other.valid_from,
                until=until,
            )


def _overlaps(a: FactVersion, b: FactVersion) -> bool:
    def empty(v: FactVersion) -> bool:
        return v.valid_to is not None and v.valid_to <= v.valid_from

    if empty(a) or empty(b):
        return False
    a_end, b_end = a.valid_to or date.max, b.valid_to or date.max
    return a.valid_from < b_end and b.valid_from < a_end


# ---- validation of what comes in --------------------------------------------------------------


def clean_value(value: str, key: str) -> str:
    """NFC, one kind of line break, no control characters, at most MAX_VALUE_BYTES."""
    cleaned = unify_breaks(nfc(value)).strip()
    if not cleaned:
        raise TrinhoError.keyed("error.fact.empty_value", key=key)
    size = len(cleaned.encode("utf-8"))
    if size > MAX_VALUE_BYTES:
        raise TrinhoError.keyed(
            "error.fact.value_too_long", key=key, size=size, limit=MAX_VALUE_BYTES
        )
    bad = _BAD_CHARS_RE.search(cleaned)
    if bad:
        raise TrinhoError.keyed("error.fact.control_char", key=key, code=ord(bad.group()))
    return cleaned


def check_basis(value: str) -> Basis:
    if value not in BASES:
        raise TrinhoError(f"basis {value!r} must be one of {', '.join(BASES)}")
    return value


def check_actor(value: str) -> Actor:
    if value not in ACTORS:
        raise TrinhoError(f"actor {value!r} must be one of {', '.join(ACTORS)}")
    return value


# ---- the file format --------------------------------------------------------------------------

_FIELDS = ("value", "basis", "valid_from", "valid_to", "recorded_at", "confirmed_on", "source")
_OPTIONAL = ("valid_to", "confirmed_on")


def render_fact(fact: Fact) -> str:
    """The fact file: front matter for the latest version, then the history, oldest first."""
    lines = ["---", f"key: {fact.key}"]
    if fact.head:
        lines += _version_lines(fact.head, "")
    lines.append("---")
    if fact.history:
        lines += ["", "## History", ""]
        for version in fact.history:
            first, *rest = _version_lines(version, "  ")
            lines += ["- " + first.lstrip(), *rest]
    return "\n".join(lines) + "\n"


def _version_lines(v: FactVersion, indent: str) -> list[str]:
    values: dict[str, str | None] = {
        "value": json.dumps(v.value, ensure_ascii=False),
        "basis": v.basis,
        "valid_from": v.valid_from.isoformat(),
        "valid_to": v.valid_to.isoformat() if v.valid_to else None,
        "recorded_at": v.recorded_at.isoformat(),
        "confirmed_on": v.confirmed_on.isoformat() if v.confirmed_on else None,
        "source": json.dumps(v.source, ensure_ascii=False),
    }
    return [f"{indent}{name}: {text}" for name, text in values.items() if text is not None]


def parse_fact(text: str, where: str, expected_key: str | None = None) -> Fact:
    """Read a fact file; any problem names the file and line and says how to fix it."""
    lines = unify_breaks(text).split("\n")
    if not lines or lines[0].strip() != "---":
        raise TrinhoError(f"{where}:1: a fact file starts with a '---' front matter line")
    try:
        close = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise TrinhoError(f"{where}: the front matter is not closed by a '---' line") from None
    front: dict[str, tuple[str, int]] = {}
    for number in range(2, close + 1):
        _field_into(front, lines[number - 1], number, where)
    key_field = front.pop("key", None)
    if key_field is None:
        raise TrinhoError(f"{where}: the front matter has no 'key:' line")
    key = key_field[0]
    validate_slug(key, f"{where}:{key_field[1]}: fact key")
    if expected_key is not None and key != expected_key:
        raise TrinhoError(
            f"{where}:{key_field[1]}: key {key!r} does not match the file name {expected_key!r}"
        )
    head = _version(front, where, close + 1) if front else None
    history: list[FactVersion] = []
    current: dict[str, tuple[str, int]] | None = None
    for number in range(close + 2, len(lines) + 1):
        line = lines[number - 1]
        if line.startswith("- "):
            if current is not None:
                history.append(_version(current, where, number))
            current = {}
            _field_into(current, line[2:], number, where)
        elif line.startswith("  ") and line.strip() and current is not None:
            _field_into(current, line, number, where)
        elif line.strip() and not line.lstrip().startswith("#"):
            raise TrinhoError(
                f"{where}:{number}: expected a history item ('- value: ...'), its indented "
                "fields, a '#' heading or a blank line"
            )
    if current is not None:
        history.append(_version(current, where, len(lines)))
    for version in history:
        if version.valid_to is None:
            raise TrinhoError(f"{where}:{version.line}: a history version needs a valid_to")
    return Fact(key, head, tuple(history))


def _field_into(target: dict[str, tuple[str, int]], line: str, number: int, where: str) -> None:
    name, sep, rest = line.strip().partition(":")
    if not sep or (name not in _FIELDS and name != "key"):
        raise TrinhoError(
            f"{where}:{number}: expected 'field: value' with a field among "
            f"{', '.join(('key', *_FIELDS))}"
        )
    if name in target:
        raise TrinhoError(f"{where}:{number}: field {name!r} appears twice")
    target[name] = (rest.strip(), number)


def _version(raw: dict[str, tuple[str, int]], where: str, end_line: int) -> FactVersion:
    for name in _FIELDS:
        if name not in raw and name not in _OPTIONAL:
            first = min((n for _, n in raw.values()), default=end_line)
            raise TrinhoError(f"{where}:{first}: this version has no {name!r} field")

    def text(name: str) -> str:
        value, number = raw[name]
        try:
            decoded = json.loads(value)
        except json.JSONDecodeError:
            decoded = None
        if not isinstance(decoded, str):
            raise TrinhoError(f'{where}:{number}: {name} must be a "quoted" JSON string')
        return decoded

    def day(name: str) -> date | None:
        if name not in raw:
            return None
        value, number = raw[name]
        return parse_day(value, f"{where}:{number}: {name}")

    recorded_text, recorded_line = raw["recorded_at"]
    try:
        recorded_at = datetime.fromisoformat(recorded_text)
    except ValueError:
        recorded_at = None
    if recorded_at is None or recorded_at.tzinfo is None:
        raise TrinhoError(
            f"{where}:{recorded_line}: recorded_at must be an ISO 8601 time with a UTC offset"
        )
    basis_text, basis_line = raw["basis"]
    if basis_text not in BASES:
        raise TrinhoError(f"{where}:{basis_line}: basis must be one of {', '.join(BASES)}")
    valid_from = day("valid_from")
    assert valid_from is not None
    valid_to = day("valid_to")
    if valid_to is not None and valid_to < valid_from:
        raise TrinhoError(f"{where}:{raw['valid_to'][1]}: valid_to is before valid_from")
    return FactVersion(
        value=text("value"),
        basis=basis_text,
        valid_from=valid_from,
        valid_to=valid_to,
        recorded_at=recorded_at,
        source=text("source"),
        confirmed_on=day("confirmed_on"),
        line=raw["value"][1],
    )


# ---- the store --------------------------------------------------------------------------------


def facts_dir(ws: Workspace, user: str | None = None) -> Path:
    return ws.user_dir(user or ws.config.owner) / FACTS_DIR


def fact_path(ws: Workspace, key: str, user: str | None = None) -> Path:
    validate_slug(key, "fact key")
    return facts_dir(ws, user) / f"{key}.md"


def shown_path(ws: Workspace, path: Path) -> str:
    """Workspace-relative when inside it, absolute when users/ lives elsewhere."""
    try:
        return ws.relative(path)
    except ValueError:
        return str(path)


def load_fact(ws: Workspace, key: str, user: str | None = None) -> Fact | None:
    """The fact, or None when it has no file yet."""
    path = fact_path(ws, key, user)
    if not path.exists():
        return None
    return _read(path, shown_path(ws, path), key)


_PARSED: dict[Path, tuple[tuple[int, int, int], Fact]] = {}
"""Facts already parsed by this process, keyed by file identity, so building the index every
turn costs a stat per file. An atomic replace gives a new inode, so no stale entry survives."""


def _read_cached(path: Path, where: str, key: str) -> Fact:
    info = path.stat()
    stamp = (info.st_ino, info.st_mtime_ns, info.st_size)
    hit = _PARSED.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    fact = _read(path, where, key)
    _PARSED[path] = (stamp, fact)
    return fact


def _read(path: Path, where: str, key: str) -> Fact:
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise TrinhoError.keyed("error.fact.not_utf8", where=where) from None
    return parse_fact(text, where, expected_key=key)


@dataclass(frozen=True)
class Saved:
    """What a save did: the outcome, the fact as it is now, and the proposal when one was made."""

    outcome: Outcome
    fact: Fact | None
    proposal: proposals.Proposal | None = None
    proposal_created: bool = False


def save_fact(
    ws: Workspace,
    key: str,
    value: str,
    *,
    user: str | None = None,
    basis: Basis = "user",
    actor: Actor = "chat",
    valid_from: date | None = None,
    valid_to: date | None = None,
    source: str | None = None,
    origin: str | None = None,
) -> Saved:
    """user_memory_save: reconcile under the fact's lock and apply the decision durably.

    `origin` names who proposes when the decision is a proposal (e.g. "agent:main",
    "job:nightly"); it defaults to the actor.
    """
    user = user or ws.config.owner
    validate_slug(user, "user id")
    path = fact_path(ws, key, user)
    incoming = Incoming(
        key=key,
        value=clean_value(value, key),
        basis=check_basis(basis),
        recorded_at=ws.now(),
        source=_source(source or actor),
        valid_from=valid_from,
        valid_to=valid_to,
    )
    check_actor(actor)
    check_dates(key, valid_from, valid_to, ws.today())
    with sibling_lock(path):
        current = _read(path, shown_path(ws, path), key) if path.exists() else None
        decision = reconcile(current, incoming, actor, ws.today())
        if decision.outcome == "proposed":
            assert decision.proposal_reason is not None
            submitted = proposals.submit(
                ws,
                "fact",
                _change(user, incoming, current, ws.today()),
                reason=t(ws.locale, f"fact.reason.{decision.proposal_reason}", fact=key),
                origin=origin or actor,
                context=CHANGE_CONTEXT,
            )
            return Saved("proposed", current, submitted.proposal, submitted.created)
        if decision.after is not None:
            atomic_write_text(path, render_fact(decision.after))
            _reindex(ws, path)
        return Saved(decision.outcome, decision.after or current)


def _reindex(ws: Workspace, path: Path) -> None:
    """Let the search index see the new version at once (imported late: search reads facts)."""
    from trinho.search import notify_written

    notify_written(ws, [shown_path(ws, path)])


def _source(text: str) -> str:
    cleaned = one_line(nfc(text))
    if not cleaned or len(cleaned) > MAX_SOURCE_CHARS:
        raise TrinhoError(f"fact source must be 1-{MAX_SOURCE_CHARS} characters")
    return cleaned


def fact_digest(fact: Fact | None) -> str | None:
    """Identifies the fact's stored state, so an approval can tell that it changed since.

    The owner restating the same value only moves `confirmed_on`: that is not a change that
    makes a pending proposal stale.
    """
    if fact is None:
        return None

    def plain(v: FactVersion) -> FactVersion:
        return replace(v, confirmed_on=None)

    state = Fact(fact.key, plain(fact.head) if fact.head else None, tuple(map(plain, fact.history)))
    return hashlib.sha256(render_fact(state).encode("utf-8")).hexdigest()[:16]


CHANGE_CONTEXT = ("current_value", "current_basis", "base")
"""The keys of a fact proposal that describe the fact when it was proposed, not the change."""


def _change(user: str, incoming: Incoming, current: Fact | None, today: date) -> dict[str, object]:
    live = current.live_head(today) if current else None
    return {
        "user": user,
        "key": incoming.key,
        "value": incoming.value,
        "basis": incoming.basis,
        "valid_from": incoming.valid_from.isoformat() if incoming.valid_from else None,
        "valid_to": incoming.valid_to.isoformat() if incoming.valid_to else None,
        "current_value": live.value if live else None,
        "current_basis": live.basis if live else None,
        "base": fact_digest(current),
    }


def apply_fact_proposal(ws: Workspace, proposal: proposals.Proposal) -> proposals.ApplyResult:
    """Approving speaks as the owner: save with basis `user`, unless the fact changed since."""
    change = proposal.change
    where = str(proposals.proposal_path(ws, proposal.id))
    try:
        user = validate_slug(str(change["user"]), f"{where}: user")
        key = validate_slug(str(change["key"]), f"{where}: key")
        value = clean_value(str(change["value"]), key)
        valid_from, valid_to = (
            parse_day(str(change[name]), f"{where}: {name}") if change.get(name) else None
            for name in ("valid_from", "valid_to")
        )
    except KeyError as missing:
        raise TrinhoError(f"{where}: the change has no {missing} field") from None
    path = fact_path(ws, key, user)
    source = f"proposal:{proposal.id}"
    with sibling_lock(path):
        current = _read(path, shown_path(ws, path), key) if path.exists() else None
        if current is not None and any(v.source == source for v in current.versions()):
            # applied by an approval that died before it could mark the proposal approved
            return proposals.ApplyResult(
                True, t(ws.locale, "fact.already_applied", fact=key, value=value)
            )
        if fact_digest(current) != change.get("base"):
            return proposals.ApplyResult(False, t(ws.locale, "fact.stale", fact=key))
        incoming = Incoming(key, value, "user", ws.now(), source, valid_from, valid_to)
        try:
            decision = reconcile(current, incoming, "chat", ws.today())
        except FactConflict as exc:
            return proposals.ApplyResult(False, str(exc))
        if decision.after is not None:
            atomic_write_text(path, render_fact(decision.after))
            _reindex(ws, path)
    return proposals.ApplyResult(
        True, t(ws.locale, f"fact.outcome.{decision.outcome}", fact=key, value=value)
    )


# ---- reading ----------------------------------------------------------------------------------


def get_fact(ws: Workspace, key: str, user: str | None = None) -> Fact:
    fact = load_fact(ws, key, user)
    if fact is None:
        raise NotFound.keyed("error.fact.not_found", key=key, user=user or ws.config.owner)
    return fact


def fact_on(
    ws: Workspace, key: str, day: date | None = None, user: str | None = None
) -> FactVersion:
    """The value on `day` (default today); NotFound when nothing held then."""
    day = day or ws.today()
    version = get_fact(ws, key, user).value_on(day)
    if version is None:
        raise NotFound.keyed("error.fact.no_value_on", key=key, day=day)
    return version


@dataclass(frozen=True)
class FactListing:
    facts: list[Fact]
    broken: list[BrokenFile]


def list_facts(ws: Workspace, user: str | None = None) -> FactListing:
    """Every fact of the user, by key; a broken file is reported and the others still read."""
    folder = facts_dir(ws, user)
    facts: list[Fact] = []
    broken: list[BrokenFile] = []
    if folder.is_dir():
        base = shown_path(ws, folder)
        for path in sorted(folder.glob("*.md")):
            where = f"{base}/{path.name}"
            try:
                key = validate_slug(path.stem, f"{where}: file name")
                facts.append(_read_cached(path, where, key))
            except TrinhoError as exc:
                broken.append(BrokenFile(where, str(exc)))
    return FactListing(facts, broken)


@dataclass(frozen=True)
class VersionRef:
    """One version of one fact, with where it is written (for search hits to point at)."""

    key: str
    value: str
    basis: Basis
    valid_from: date
    valid_to: date | None
    recorded_at: datetime
    source: str
    path: str
    line: int
    current: bool


def iter_fact_versions(ws: Workspace, user: str | None = None) -> Iterator[VersionRef]:
    """Every version (history and head) of every readable fact, by key, oldest first."""
    base = shown_path(ws, facts_dir(ws, user))
    today = ws.today()
    for fact in list_facts(ws, user).facts:
        path = f"{base}/{fact.key}.md"
        now = fact.value_on(today)
        for v in fact.versions():
            yield VersionRef(
                fact.key,
                v.value,
                v.basis,
                v.valid_from,
                v.valid_to,
                v.recorded_at,
                v.source,
                path,
                v.line,
                v is now,
            )


@dataclass(frozen=True)
class IndexLine:
    key: str
    value: str
    basis: Basis
    valid_from: date
    valid_to: date | None


@dataclass(frozen=True)
class FactsIndex:
    """The compact facts index for the prompt; `omitted` facts did not fit in the cap."""

    entries: tuple[IndexLine, ...]
    lines: tuple[str, ...]
    omitted: int
    broken: tuple[BrokenFile, ...]
    locale: str

    @property
    def text(self) -> str:
        tail = [t(self.locale, "facts.omitted", count=self.omitted)] if self.omitted else []
        return "\n".join([*self.lines, *tail])


DEFAULT_INDEX_CHARS = 4000


def index_line(entry: IndexLine, locale: str) -> str:
    value = one_line(entry.value)
    if entry.valid_to:
        return t(
            locale,
            "facts.line_until",
            fact=entry.key,
            value=value,
            basis=entry.basis,
            since=entry.valid_from,
            until=entry.valid_to,
        )
    return t(
        locale,
        "facts.line",
        fact=entry.key,
        value=value,
        basis=entry.basis,
        since=entry.valid_from,
    )


def build_index(
    facts: list[Fact], today: date, locale: str, max_chars: int = DEFAULT_INDEX_CHARS
) -> tuple[list[IndexLine], list[str], int]:
    """Pure: the current facts by key, as many whole lines as fit in `max_chars`."""
    current = []
    for fact in sorted(facts, key=lambda f: f.key):
        v = fact.value_on(today)
        if v is not None:
            current.append(IndexLine(fact.key, v.value, v.basis, v.valid_from, v.valid_to))
    kept: list[IndexLine] = []
    lines: list[str] = []
    used = 0
    for position, entry in enumerate(current):
        line = index_line(entry, locale)
        left = len(current) - position - 1
        tail = len(t(locale, "facts.omitted", count=left)) + 1 if left else 0
        if used + len(line) + 1 + tail > max_chars:
            break
        kept.append(entry)
        lines.append(line)
        used += len(line) + 1
    return kept, lines, len(current) - len(kept)


def facts_index(
    ws: Workspace, user: str | None = None, max_chars: int = DEFAULT_INDEX_CHARS
) -> FactsIndex:
    """The facts index for the prompt: `key: value (basis, since D)`, by key, capped."""
    listing = list_facts(ws, user)
    entries, lines, omitted = build_index(listing.facts, ws.today(), ws.locale, max_chars)
    return FactsIndex(tuple(entries), tuple(lines), omitted, tuple(listing.broken), ws.locale)
