"""Commands for shared facts and the proposals queue: fact set|get|history, facts, proposals,
approve, reject, undo. Deciding a proposal is for a person at the CLI, never for an agent tool."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

import click

from trinho.cli.app import cli, emit, json_option, owner_option, say, state
from trinho.clock import parse_day
from trinho.errors import NotFound, TrinhoError
from trinho.facts.format import check_basis, clean_value
from trinho.facts.render import DEFAULT_INDEX_CHARS, FactsIndex, build_index
from trinho.facts.rules import ACTORS, BASES, Fact, FactVersion, check_actor
from trinho.i18n import N_, t
from trinho.i18n.keys import FACT_OUTCOME
from trinho.review import decide
from trinho.review.render import fact_history_text, fact_version_line, proposals_text
from trinho.textnorm import shown_id
from trinho.workspace import validate_slug

if TYPE_CHECKING:
    from trinho.records.protocol import Records

user_option = click.option(
    "--user", "user", default=None, help="User id under users/ (default: the owner, `owner`)."
)


def _day(text: str | None, where: str) -> date | None:
    return parse_day(text, where) if text else None


def _version_json(key: str, v: FactVersion) -> dict[str, Any]:
    return {
        "key": key,
        "value": v.value,
        "basis": v.basis,
        "valid_from": v.valid_from.isoformat(),
        "valid_to": v.valid_to.isoformat() if v.valid_to else None,
    }


def _decider(records: Records) -> str:
    return f"{records.user} (cli)"


def _fact(records: Records, key: str, user: str | None) -> Fact:
    """The fact, or one line saying there is none (as `trinho.facts.store.get_fact`)."""
    fact = records.load_fact(key, user)
    if fact is None:
        raise NotFound.keyed("error.fact.not_found", key=key, user=user or records.user)
    return fact


@cli.group()
def fact() -> None:
    """One shared fact: set (user_memory_save), get, history."""


@fact.command(name="set")
@click.argument("key")
@click.argument("value")
@click.option("--basis", type=click.Choice(BASES), default="user", show_default=True)
@click.option(
    "--as",
    "actor",
    type=click.Choice(ACTORS),
    default="owner",
    show_default=True,
    help="owner: your own word (the default); chat: as a chat model answering you would; "
    "job: unattended, every change becomes a proposal.",
)
@click.option("--valid-from", "valid_from", help="First day the value holds (YYYY-MM-DD).")
@click.option("--valid-to", "valid_to", help="Day the value stops holding (YYYY-MM-DD).")
@click.option("--source", help="Where the value came from (default: the actor).")
@click.option("--origin", help="Who proposes, when it becomes a proposal (default: the actor).")
@user_option
@owner_option
@json_option
def fact_set(
    key: str,
    value: str,
    basis: str,
    actor: str,
    valid_from: str | None,
    valid_to: str | None,
    source: str | None,
    origin: str | None,
    user: str | None,
    owner: str | None,
    as_json: bool,
) -> None:
    """Save KEY = VALUE, reconciled with what is recorded."""
    records = state().records(owner)
    locale = state().locale()
    saved = records.save_fact(
        key,
        value,
        user=user,
        basis=check_basis(basis),
        actor=check_actor(actor),
        valid_from=_day(valid_from, "--valid-from"),
        valid_to=_day(valid_to, "--valid-to"),
        source=source,
        origin=origin,
    )
    proposal = saved.proposal
    data = {"outcome": saved.outcome, "proposal_id": proposal.id if proposal else None}

    def human() -> str:
        shown = clean_value(value, key)
        if proposal is None:
            return t(locale, FACT_OUTCOME[saved.outcome], fact=key, value=shown)
        if saved.proposal_created:
            message_key = "fact.outcome.proposed"
        elif proposal.status == "rejected":
            message_key = N_("fact.proposal_rejected")
        else:
            message_key = N_("fact.proposal_pending")
        return t(locale, message_key, id=shown_id(proposal.id), fact=key, value=shown)

    emit(as_json, data, human)


@fact.command(name="get")
@click.argument("key")
@click.option("--on", "on", help="The value that held on this day (YYYY-MM-DD); default today.")
@user_option
@owner_option
@json_option
def fact_get(key: str, on: str | None, user: str | None, owner: str | None, as_json: bool) -> None:
    """Print the value of KEY today, or on a given day."""
    records = state().records(owner)
    day = _day(on, "--on") or records.today()
    version = _fact(records, key, user).value_on(day)
    if version is None:
        raise NotFound.keyed("error.fact.no_value_on", key=key, day=day)
    data = _version_json(key, version)
    emit(as_json, data, lambda: fact_version_line(state().locale(), key, version))


@fact.command(name="history")
@click.argument("key")
@user_option
@owner_option
@json_option
def fact_history(key: str, user: str | None, owner: str | None, as_json: bool) -> None:
    """Every version of KEY, oldest first, with the days each held."""
    versions = _fact(state().records(owner), key, user).versions()
    data = [
        {k: v for k, v in _version_json(key, version).items() if k != "key"} for version in versions
    ]
    emit(as_json, data, lambda: fact_history_text(state().locale(), key, versions))


@cli.command(name="facts")
@click.option("--max-chars", type=click.IntRange(min=1), default=DEFAULT_INDEX_CHARS)
@user_option
@owner_option
@json_option
def facts_cmd(max_chars: int, user: str | None, owner: str | None, as_json: bool) -> None:
    """The facts index the prompt gets: current facts by key, capped in size."""
    records = state().records(owner)
    locale = state().locale()
    listing = records.list_facts(user)
    entries, lines, omitted = build_index(listing.facts, records.today(), locale, max_chars)
    index = FactsIndex(tuple(entries), tuple(lines), omitted, tuple(listing.broken), locale)
    for broken in index.broken:
        say(t(locale, "facts.broken", error=broken.error), err=True)
    data = {
        "user": user or records.user,
        "facts": [
            {
                "key": e.key,
                "value": e.value,
                "basis": e.basis,
                "valid_from": e.valid_from.isoformat(),
                "valid_to": e.valid_to.isoformat() if e.valid_to else None,
            }
            for e in index.entries
        ],
        "lines": list(index.lines),
        "omitted": index.omitted,
        "broken": [{"path": b.path, "error": b.error} for b in index.broken],
    }
    emit(as_json, data, lambda: index.text or t(locale, "facts.none"))


def _about(records: Records, proposal_id: str, user: str | None) -> None:
    """With --user, refuse to decide a proposal about someone else: nothing is decided."""
    if user is None:
        return
    validate_slug(user, "user id")
    about = records.get_proposal(proposal_id).user_or(records.user)
    if about != user:
        raise TrinhoError.keyed("error.proposal.other_user", id=proposal_id, about=about, user=user)


@cli.command(name="proposals")
@click.argument("proposal_id", metavar="[ID]", required=False)
@click.option("--all", "show_all", is_flag=True, help="Include decided proposals.")
@click.option(
    "--user", "user", default=None, help="Only the proposals about this user (default: all)."
)
@owner_option
@json_option
def proposals_cmd(
    proposal_id: str | None, show_all: bool, user: str | None, owner: str | None, as_json: bool
) -> None:
    """The proposals waiting for your decision (with --all: decided ones too); with ID (or
    its first 6 or more characters, as listed), that one, whatever its status."""
    records = state().records(owner)
    locale = state().locale()
    if user is not None:
        validate_slug(user, "user id")
    listing = records.list_proposals(include_decided=show_all or proposal_id is not None)
    for broken in listing.broken:
        say(t(locale, "proposals.broken", error=broken.error), err=True)
    every = [p.id for p in listing.proposals]
    if proposal_id is not None:
        shown = [records.get_proposal(records.resolve_id(proposal_id))]
    else:
        shown = [p for p in listing.proposals if user is None or p.user_or(records.user) == user]
    data = [p.to_json() for p in shown]

    emit(as_json, data, lambda: proposals_text(locale, shown, every))


@cli.command()
@click.argument("proposal_id", metavar="ID")
@click.option("--user", "user", default=None, help="Refuse unless ID is about this user.")
@owner_option
@json_option
def approve(proposal_id: str, user: str | None, owner: str | None, as_json: bool) -> None:
    """Approve proposal ID (or its first 6+ characters, as listed): its change is applied (a fact
    is saved as the owner's word)."""
    records = state().records(owner)
    proposal_id = records.resolve_id(proposal_id)
    _about(records, proposal_id, user)
    decided, applied = decide.approve(records, proposal_id, _decider(records))
    key = N_("proposal.approved") if applied.ok else N_("proposal.stale")
    text = t(state().locale(), key, id=shown_id(decided.id), message=applied.message)
    emit(as_json, decided.to_json(), text)


@cli.command()
@click.argument("proposal_id", metavar="ID")
@click.argument("why", metavar="[REASON]", required=False)
@click.option("--reason", help="Why; kept with the decision (the same as REASON).")
@click.option("--user", "user", default=None, help="Refuse unless ID is about this user.")
@owner_option
@json_option
def reject(
    proposal_id: str,
    why: str | None,
    reason: str | None,
    user: str | None,
    owner: str | None,
    as_json: bool,
) -> None:
    """Reject proposal ID (or its first 6+ characters, as listed): nothing is applied, and its
    origin will not propose it again. REASON, or --reason, is kept with the decision."""
    if why is not None and reason is not None and why != reason:
        raise TrinhoError.keyed("error.proposal.two_reasons")
    records = state().records(owner)
    proposal_id = records.resolve_id(proposal_id)
    _about(records, proposal_id, user)
    decided = records.reject(proposal_id, _decider(records), reason or why)
    emit(
        as_json,
        decided.to_json(),
        t(state().locale(), "proposal.rejected", id=shown_id(decided.id)),
    )


@cli.command(name="undo")
@click.argument("proposal_id", metavar="ID")
@owner_option
@json_option
def undo_cmd(proposal_id: str, owner: str | None, as_json: bool) -> None:
    """Take back your decision on proposal ID (or its first 6+ characters, as listed), made in the
    last 15 minutes: an approved change is put back as it was, a rejected one waits again."""
    from trinho.proposals import store as proposals
    from trinho.review.appliers import TAKERS

    ws = state().working(owner)
    locale = state().locale()
    pid = proposals.resolve_id(ws, proposal_id)
    by = f"{ws.config.owner} (cli)"
    if proposals.get_proposal(ws, pid).status in ("rejected", "pending"):
        done = proposals.reopen(ws, pid, by)
        emit(as_json, done.to_json(), t(locale, "proposal.reopened", id=shown_id(pid)))
        return
    done, result = proposals.take_back(ws, pid, by, takers=TAKERS)
    if not result.ok:
        raise TrinhoError.keyed("error.proposal.not_taken_back", id=pid, message=result.message)
    emit(
        as_json,
        done.to_json(),
        t(locale, "proposal.taken_back", id=shown_id(pid), message=result.message),
    )
