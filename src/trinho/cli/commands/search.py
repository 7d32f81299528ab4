"""Commands for memory search: search (one query or a batch), get, index."""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from datetime import date
from pathlib import Path
from typing import Any

import click

from trinho.cli.app import OWNER_ENV, cli, emit, json_option, owner_option, state
from trinho.clock import parse_day
from trinho.durable import read_regular
from trinho.errors import TrinhoError
from trinho.i18n import N_, t
from trinho.search import (
    KINDS,
    Found,
    Hit,
    Kind,
    Query,
    SearchIndex,
    configured_embedder,
    memory_get,
)
from trinho.textnorm import one_line

_GET_RE = re.compile(r"^(?P<path>.*?)(?::(?P<start>\d+)(?:-(?P<end>\d+))?)?$")
_BATCH_KEYS = {"query", "limit", "since", "until", "kind", "kinds"}


def _human_hits(hits: list[Hit], locale: str, found: Found | None = None) -> str:
    """One line per hit; with `found` (--explain), the reasons of each hit under it."""
    if not hits:
        return t(locale, "search.none")
    lines = []
    if found is not None and found.entities:
        lines.append(t(locale, "search.entities", names=", ".join(found.entities)))
    for i, hit in enumerate(hits):
        text = one_line(hit.text)
        text = text if len(text) <= 160 else text[:157] + "..."
        day = hit.date.isoformat() if hit.date else "----------"
        lines.append(f"{hit.path}:{hit.line}  {day}  {hit.kind:<12} {text}")
        if found is not None:
            reasons = "; ".join(found.why[i]) or t(locale, "search.lexical_only")
            why = t(locale, "search.why", reasons=reasons)
            lines.append(f"    {why}  (score {hit.score:.4g})")
    return "\n".join(lines)


def _batch_query(record: Any, where: str) -> Query:
    """One line of a batch file as a Query; every wrong field is named with its line."""
    if not isinstance(record, dict):
        raise TrinhoError.keyed("error.batch.not_object", where=where)
    unknown = sorted(set(record) - _BATCH_KEYS)
    if unknown:
        raise TrinhoError.keyed(
            "error.batch.unknown_field",
            where=where,
            name=unknown[0],
            fields=", ".join(sorted(_BATCH_KEYS)),
        )
    text = record.get("query")
    if not isinstance(text, str):
        raise TrinhoError.keyed("error.batch.query_type", where=where)
    limit = record.get("limit", 10)
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise TrinhoError.keyed("error.batch.bad_limit", where=where)
    days: dict[str, date | None] = {}
    for key in ("since", "until"):
        value = record.get(key)
        if value is not None and not isinstance(value, str):
            raise TrinhoError.keyed("error.batch.bad_day", where=where, name=key)
        days[key] = parse_day(value, f"{where}: {key!r}") if value else None
    raw_kinds = record.get("kinds", record.get("kind", []))
    raw_kinds = [raw_kinds] if isinstance(raw_kinds, str) else raw_kinds
    if not isinstance(raw_kinds, list) or any(k not in KINDS for k in raw_kinds):
        raise TrinhoError.keyed("error.batch.bad_kind", where=where, kinds=", ".join(KINDS))
    return Query(text, limit, days["since"], days["until"], tuple(raw_kinds))


def _read_batch(file: str) -> list[Query]:
    if file == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        try:
            data = read_regular(Path(file))
        except OSError as exc:
            raise TrinhoError.keyed(
                "error.file.cannot_read", path=file, error=exc.strerror
            ) from None
        name = file
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise TrinhoError.keyed("error.file.not_utf8", path=name) from None
    queries = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TrinhoError.keyed(
                "error.batch.not_json", where=f"{name}:{number}", error=exc.msg
            ) from None
        queries.append(_batch_query(record, f"{name}:{number}"))
    return queries


@cli.command()
@click.argument("query", required=False)
@click.option("--limit", type=click.IntRange(min=1), default=10, show_default=True, help="Hits.")
@click.option("--since", "since_text", help="Only hits dated on or after this day (YYYY-MM-DD).")
@click.option("--until", "until_text", help="Only hits dated on or before this day (YYYY-MM-DD).")
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    type=click.Choice(list(KINDS)),
    help="Only this kind of hit (repeatable).",
)
@click.option(
    "--batch",
    "batch",
    metavar="FILE",
    help='JSON lines {"query", "limit", "since", "until", "kind"}: one JSON list of hits per '
    "line, in order ('-' reads stdin).",
)
@click.option(
    "--explain",
    is_flag=True,
    help="Show why each hit ranks where it does (lexical terms, dense score, boosts); "
    'with --json, a "why" list per hit and the "entities" the query named.',
)
@owner_option
@json_option
def search(
    query: str | None,
    limit: int,
    since_text: str | None,
    until_text: str | None,
    kinds: tuple[Kind, ...],
    batch: str | None,
    explain: bool,
    owner: str | None,
    as_json: bool,
) -> None:
    """memory_search: ranked hits from notes, MEMORY.md, facts and conversations."""
    records = state().records(owner)
    if batch is None and not explain:
        if query is None:
            raise TrinhoError.keyed("error.search.empty")
        since = parse_day(since_text, "--since") if since_text else None
        until = parse_day(until_text, "--until") if until_text else None
        hits = records.search(Query(query, limit, since, until, kinds))
        emit(as_json, [h.to_json() for h in hits], lambda: _human_hits(hits, state().locale()))
        return
    if batch is not None:
        if query is not None:
            raise TrinhoError.keyed("error.search.query_and_batch")
        for hits in records.search_batch(_read_batch(batch)):
            emit(True, [h.to_json() for h in hits], "")
        return
    if query is None:
        raise TrinhoError.keyed("error.search.empty")
    since = parse_day(since_text, "--since") if since_text else None
    until = parse_day(until_text, "--until") if until_text else None
    found = records.find(Query(query, limit, since, until, kinds))
    hits = found.hits
    data = {
        "entities": list(found.entities),
        "hits": [{**h.to_json(), "why": list(why)} for h, why in zip(hits, found.why, strict=True)],
    }
    emit(as_json, data, lambda: _human_hits(hits, state().locale(), found))


@cli.command()
@click.argument("target", metavar="PATH[:LINE[-LINE]]")
@owner_option
@json_option
def get(target: str, owner: str | None, as_json: bool) -> None:
    """memory_get: print lines of a workspace file (never outside the workspace)."""
    ws = state().working(owner)
    match = _GET_RE.match(target)
    assert match is not None
    start = int(match.group("start") or 1)
    end = match.group("end")
    if end is not None and int(end) < start:
        raise TrinhoError.keyed("error.get.line_order", target=target, end=end, start=start)
    lines = None if match.group("start") is None else (int(end) - start + 1 if end else 1)
    snippet = memory_get(ws, match.group("path"), start, lines)
    emit(as_json, asdict(snippet), snippet.text)


@cli.command(name="index")
@click.option("--rebuild", is_flag=True, help="Recreate the search index from the files.")
@owner_option
@json_option
def index_cmd(rebuild: bool, owner: str | None, as_json: bool) -> None:
    """Bring the search index up to date (or recreate it with --rebuild).

    With an embedder configured ([search] in the config), the entries that have no vector yet
    are embedded here, so searches do not have to. On a PostgreSQL store each write keeps the
    owner's index; --rebuild makes it again from their records.
    """
    url = state().database_url()
    if url is not None:
        _index_database(url, rebuild, owner, as_json)
        return
    if owner is not None:  # a file workspace is one owner's
        raise TrinhoError.keyed("error.owner.files", owner=owner, env=OWNER_ENV)
    ws = state().workspace()
    with SearchIndex(ws, embedder=configured_embedder(ws)) as index:
        if rebuild:
            docs = _with_progress(ws.locale, as_json, N_("index.progress"), index.rebuild)
        changed = None if rebuild else index.refresh()
        embedded = 0
        if index.vectors is not None:
            embedded = _with_progress(ws.locale, as_json, N_("index.embedding"), index.vectors.sync)
        docs = index.count()
    data = {"rebuilt": rebuild, "changed": changed, "documents": docs, "embedded": embedded}
    if rebuild:
        emit(as_json, data, _indexed(ws.locale, docs))
    else:
        emit(as_json, data, _indexed(ws.locale, docs, changed))


def _index_database(url: str, rebuild: bool, owner: str | None, as_json: bool) -> None:
    """The owner's index in the database: made again whole with `rebuild`, in one
    transaction per store, else counted (nothing is ever stale there)."""
    from trinho.pg.archive import PgArchive
    from trinho.pg.search import reindex
    from trinho.pg.transcripts import PgTranscripts

    records = state().database_records(url, owner)
    if rebuild:
        reindex(records)
        zone = str(records.tz)
        PgTranscripts(records.db, records.owner, clock=records.now, timezone=zone).reindex()
        PgArchive(records.db, records.owner).reindex()
    with records.db.owner_tx(records.owner) as conn:
        row = conn.execute(  # kept by the index's triggers: no count of every unit
            "SELECT docs FROM search_stats WHERE owner_id = %s", (records.owner,)
        ).fetchone()
    docs = int(row[0]) if row else 0
    data = {"rebuilt": rebuild, "changed": None if rebuild else 0, "documents": docs, "embedded": 0}
    locale = state().locale()
    emit(as_json, data, _indexed(locale, docs, None if rebuild else 0))


def _indexed(locale: str, documents: int, changed: int | None = None) -> str:
    """What `trinho index` says: rebuilt (no `changed`), or how many files it read again."""
    entries = t(locale, "count.entries", count=documents)
    if changed is None:
        return t(locale, "index.rebuilt", documents=entries)
    return t(
        locale,
        "index.refreshed",
        changed=t(locale, "count.files", count=changed),
        documents=entries,
    )


def _with_progress(locale: str, as_json: bool, label: str, work: Callable[..., int]) -> int:
    """Run `work(progress=...)` with a progress bar on a terminal, quietly otherwise."""
    if not sys.stderr.isatty() or as_json:
        return work()
    started = time.monotonic()
    with click.progressbar(
        length=1,
        label=t(locale, label),
        file=sys.stderr,
        show_eta=True,
        show_pos=True,
        item_show_func=lambda rate: rate,
    ) as bar:

        def step(done: int, total: int) -> None:
            bar.length = total
            bar.update(done - bar.pos, t(locale, "index.rate", rate=rate_text(done, started)))

        return work(progress=step)


def rate_text(done: int, started: float, now: float | None = None) -> str:
    """Entries per second since `started` (monotonic), shown beside the bar and its time left."""
    elapsed = (time.monotonic() if now is None else now) - started
    return f"{done / elapsed:.1f}" if elapsed > 0 else "-"
