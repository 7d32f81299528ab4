"""Search in PostgreSQL over trinho's own terms: the same documents and the same folding as
the SQLite index (`trinho.search.documents`, `trinho.search.tokenize`: NFC, case, diacritics,
`đ`, English stemming), ranked by BM25 computed in SQL over the owner's counts, which the
index's triggers keep (`search_stats`, `search_people`: migration 0009).

The matches are found through a GIN index on `(owner_id, tsv)`, in `search_terms`, and
ranked there by `search_matches` (migrations 0009, 0012), which returns the best few with
their scores. Under a forced row-level security policy the planner may test `tsv @@ query`
in an index condition only if `ts_match_vq` were leakproof, which it is not: on `search_docs`
itself each search would read every unit of the owner's, a cost that grows with the owner's
years of history (9.4 ms at p50 for 10,000 notes, 2.1 through the index: docs/benchmarks.md).
The units it returns are joined to `search_docs`, where the policy is forced, so no other
owner's unit reaches a result. The whole search is one statement, `search_units`, which names
its owner for that statement alone; it reads the pool of candidates beyond the limit only
when a ranking rule may reorder them (`Asked.pool`), as the file index does.

The terms are computed in Python and written as a tsvector literal (each term a lexeme, the
text's positions weighted A and its neighbours' D), so no PostgreSQL text search parser or
dictionary decides what a word is: `Hà Nội`, `ha noi` and `HÀ NỘI` meet exactly as they do in
the files' index. BM25 follows SQLite FTS5's (k1 1.2, b 0.75, the same idf floor, the
neighbours' words weighted `CONTEXT_WEIGHT`), so both indexes rank alike; then the file index's
own ranking rules reorder the candidates (`trinho.search.rank`): a match that also has the
query's diacritics is raised, and what a person named in the question said, or a line that
says when, for a "when" question, and the turn after a question found gains its share.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from trinho.openclaw.markers import day_of_name
from trinho.search.dates import Span, asked_span, said_days, span_tokens
from trinho.search.documents import (
    OPEN_END,
    Doc,
    fact_docs,
    is_current_fact,
    memory_docs,
    note_docs,
    said_text,
)
from trinho.search.rank import (
    CURRENT_WHY,
    Candidate,
    Scored,
    Tuning,
    asks_question,
    current_first,
    fuse,
    has_time_cue,
    is_when_question,
    named_people,
    pool_size,
    rerank,
)
from trinho.search.tokenize import accented_words, fold, query_terms
from trinho.workspace import MEMORY_FILE

if TYPE_CHECKING:
    import psycopg

    from trinho.pg.connect import Database


class Indexed(Protocol):
    """What searching and indexing read of one owner's records (`trinho.pg.store.PgRecords`),
    named here so the index does not import the store that writes into it."""

    @property
    def db(self) -> Database: ...

    @property
    def owner(self) -> str: ...

    def today(self) -> date: ...

    def note_files(self) -> dict[str, str]: ...

    def memory_text(self) -> str: ...

    def fact_keys(self) -> list[tuple[str, str]]: ...

    def fact_file_text(self, user: str, key: str) -> str | None: ...


CONTEXT_WEIGHT = 0.3
"""The neighbours' words against a text's own, as in `trinho.search.index`."""
MAX_POSITIONS = 256
"""PostgreSQL keeps at most this many positions of one lexeme."""
MAX_POSITION = 16_383


def _lexeme(term: str) -> str:
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def tsvector_literal(body: str, context: str, dates: str = "") -> str:
    """The tsvector of a document's terms (space-joined, as `Doc.body` and `Doc.context`):
    the body's positions weighted A, the context's D, the day tokens (`Doc.dates`) B. Pure, so
    a test can read it. BM25 counts only the query's terms, so the day tokens weigh nothing
    but let a search of the span a question names (`dates.span_tokens`) match them."""
    positions: dict[str, list[str]] = defaultdict(list)
    at = 0
    for weight, text in (("A", body), ("D", context), ("B", dates)):
        for term in text.split():
            at = min(at + 1, MAX_POSITION)
            if len(positions[term]) < MAX_POSITIONS:
                positions[term].append(f"{at}{weight}")
    return " ".join(f"{_lexeme(term)}:{','.join(found)}" for term, found in positions.items())


def tsquery_literal(terms: Sequence[str], days: Sequence[str] = ()) -> str:
    """Any of the terms, as a tsquery literal (no parser); with `days`, only among the units
    that carry one of those day tokens."""
    found = " | ".join(_lexeme(term) for term in terms)
    if not days:
        return found
    return f"({found}) & ({' | '.join(_lexeme(day) for day in days)})"


def doc_id(doc: Doc) -> str:
    return f"{doc.path}:{doc.line}"


def owner_docs(records: Indexed) -> list[Doc]:
    """Every searchable unit of an owner's records, as the file index makes them."""
    docs: list[Doc] = []
    for name, body in records.note_files().items():
        found = day_of_name(name.rsplit("/", 1)[-1])
        if found is not None:
            docs.extend(note_docs(name, found[0], body))
    docs.extend(memory_docs(MEMORY_FILE, records.memory_text()))
    for user, key in records.fact_keys():
        text = records.fact_file_text(user, key)
        if text is not None:
            docs.extend(fact_docs(fact_path(user, key), key, text))
    return docs


def replace_path_docs(conn: psycopg.Connection, owner: str, path: str, docs: Sequence[Doc]) -> None:
    """One file's units become `docs`, in the caller's transaction: a store calls this in the
    transaction that writes the record, so what is saved is found at once, or neither."""
    conn.execute("DELETE FROM search_docs WHERE owner_id = %s AND path = %s", (owner, path))
    add_docs(conn, owner, docs)


def fact_path(user: str, key: str) -> str:
    return f"users/{user}/facts/{key}.md"


def replace_docs(conn: psycopg.Connection, owner: str, docs: Sequence[Doc]) -> None:
    """The owner's index becomes `docs`, in the caller's transaction (all or nothing)."""
    conn.execute("DELETE FROM search_docs WHERE owner_id = %s", (owner,))
    add_docs(conn, owner, docs)


def add_docs(conn: psycopg.Connection, owner: str, docs: Sequence[Doc]) -> None:
    """Insert `docs` and their terms (those already there are left) in one statement, so
    the index's triggers count a file's or an owner's units once, not once per unit, and no
    unit is without its terms (0009), which carry what ranking them reads: the unit's
    length, kind and day (0012)."""
    if not docs:
        return
    from psycopg.types.json import Jsonb

    first: dict[str, Doc] = {}
    for d in docs:  # a unit given twice: its first, as an insert of each in turn kept
        first.setdefault(doc_id(d), d)
    rows = [
        {
            "doc_id": key, "kind": d.kind, "path": d.path, "line": d.line,
            "day": d.day.isoformat() if d.day else None, "shown": d.text,
            "speaker": d.speaker, "refs": list(d.refs),
            "tokens": len(d.body.split()) + len(d.context.split()),
            "tsv": tsvector_literal(d.body, d.context, d.dates),
        }
        for key, d in first.items()
    ]  # fmt: skip
    conn.execute(
        "WITH r AS (SELECT * FROM jsonb_to_recordset(%(rows)s) AS r(doc_id text, kind text,"
        " path text, line integer, day date, shown text, speaker text, refs text[],"
        " tokens integer, tsv tsvector)),"
        " added AS (INSERT INTO search_docs (owner_id, doc_id, kind, path, line, day, shown,"
        " speaker, refs, tokens) SELECT %(owner)s, doc_id, kind, path, line, day, shown,"
        " speaker, refs, tokens FROM r ON CONFLICT (owner_id, doc_id) DO NOTHING"
        " RETURNING doc_id)"
        " INSERT INTO search_terms (owner_id, doc_id, tsv, tokens, kind, day)"
        " SELECT %(owner)s, r.doc_id, r.tsv, r.tokens, r.kind, r.day"
        " FROM r JOIN added USING (doc_id)",
        {"owner": owner, "rows": Jsonb(rows)},
    )


def reindex(records: Indexed) -> int:
    """Rebuild the owner's index from their records, in one transaction; how many units."""
    docs = owner_docs(records)
    with records.db.owner_tx(records.owner) as conn:
        replace_docs(conn, records.owner, docs)
    return len(docs)


class PgHit(NamedTuple):
    """One unit found. A tuple, not a dataclass: a search builds one for each candidate of
    its pool, and a frozen dataclass's construction cost as much as the ranking."""

    doc_id: str
    kind: str
    path: str
    line: int
    day: date | None
    text: str
    speaker: str
    refs: tuple[str, ...]
    score: float
    why: tuple[str, ...] = ()
    """The reasons it ranks where it does, when the who/when rules weighed it (`--explain`)."""


SEARCH_UNITS = (
    "SELECT * FROM search_units(%(owner)s, %(query)s::tsquery, %(terms)s, %(cw)s, %(pool)s,"
    " %(kinds)s, %(since)s, %(until)s)"
)
"""BM25 in SQL, in one statement (migration 0009's `search_units`), with `units_params`'."""


def units_params(
    owner: str,
    terms: Sequence[str],
    pool: int,
    kinds: Sequence[str] = (),
    since: date | None = None,
    until: date | None = None,
) -> dict[str, Any]:
    """`SEARCH_UNITS`' parameters: the best `pool` matches (`Asked.pool`)."""
    return {
        "owner": owner,
        "query": tsquery_literal(terms),
        "terms": list(terms),
        "cw": CONTEXT_WEIGHT,
        "pool": pool,
        "kinds": list(kinds) or None,
        "since": since,
        "until": until,
    }


@dataclass(frozen=True)
class Asked:
    """What a search reads of its question, worked out once: the terms, the query's
    diacritics, whether it asks when, the days it names (`asked`)."""

    terms: list[str]
    accented: frozenset[str]
    when: bool
    span: Span | None

    def pool(self, limit: int) -> int:
        """How many matches a search reads (`rank.pool_size`): a person the query names is known
        only from the owner's people, which the statement itself returns, so `find` reads
        the pool again when one is named."""
        return pool_size(limit, bool(self.accented) or self.when or self.span is not None)


def asked(text: str, tuning: Tuning, today: date) -> Asked:
    """The question `text` as a search reads it, on `today` (pure)."""
    span = asked_span(text, today, tuning.date_margin) if tuning.date_weight > 0 else None
    return Asked(query_terms(text), accented_words(text), is_when_question(text), span)


def search(
    records: Indexed,
    text: str,
    limit: int = 10,
    tuning: Tuning | None = None,
    *,
    since: date | None = None,
    until: date | None = None,
    kinds: Sequence[str] = (),
) -> list[PgHit]:
    """The owner's best units for `text`, best first; with `since`, `until` (inclusive) and
    `kinds`, only the units dated and of the kind asked for, as the file index filters them:
    a unit without a day is left out by a day bound. The filters choose among the matches;
    the statistics BM25 weighs a term by stay those of every match, as in SQLite FTS5."""
    hits, _ = find(
        records, text, limit, tuning, since=since, until=until, kinds=kinds, explain=False
    )
    return hits


def find(
    records: Indexed,
    text: str,
    limit: int = 10,
    tuning: Tuning | None = None,
    *,
    since: date | None = None,
    until: date | None = None,
    kinds: Sequence[str] = (),
    today: date | None = None,
    explain: bool = True,
) -> tuple[list[PgHit], list[str]]:
    """`search`, with the people of the owner's the query named (for a second search). A
    question naming a day or a month (`Asked.span`) also searches that span, as the file
    index does (`SearchIndex._with_span`). Without `explain`, no hit says why it ranks where
    it does: what a day says is worked out only for `--explain` (the file index keeps it with
    the line)."""
    tuning = tuning or Tuning()
    question = asked(text, tuning, today or records.today())
    terms, span = question.terms, question.span
    if not terms:
        return [], []
    pool = question.pool(limit)
    params = units_params(records.owner, terms, pool, kinds, since, until)
    rows = _units(records, params)
    named = _named(text, rows)
    if named and pool == limit:  # the people named are known now: the ranking reads the pool
        params["pool"] = pool = pool_size(limit, True)
        rows = _units(records, params)
    spanned = []
    if span is not None:
        spanned = _units(records, {**params, "query": tsquery_literal(terms, span_tokens(span))})
        named = named or _named(text, spanned)
    hits, in_span = _with_span(rows, spanned, tuning.date_weight)
    order = rerank(
        [Scored(i, hit.text, hit.score) for i, hit in enumerate(hits)], question.accented
    )
    when = question.when
    if named or when:
        people_named = {fold(p) for p in named}
        at = {(hit.path, hit.line): i for i, hit in enumerate(hits)}
        candidates = [
            Candidate(
                doc_id=s.doc_id,
                text=s.text,
                session=hits[s.doc_id].path,
                lexical=s.score,
                lexical_rank=rank,
                speaker_named=bool(people_named) and fold(hits[s.doc_id].speaker) in people_named,
                time_cue=when and has_time_cue(s.text),
                asks=hits[s.doc_id].kind == "conversation" and asks_question(s.text),
                previous=_turn_before(hits[s.doc_id], at),
            )
            for rank, s in enumerate(order, 1)
        ]
        ranked = [(r.doc_id, r.score, r.why) for r in fuse(candidates, tuning, when)]
    else:
        ranked = [(s.doc_id, s.score, ()) for s in order]
    ranked = _current_first(records, ranked, hits, since, until)[:limit]
    if not explain:
        return [hits[i]._replace(score=score) for i, score, _ in ranked], list(named)
    return [
        hits[i]._replace(score=score, why=(*why, *_dated_why(hits[i], span, i in in_span, tuning)))
        for i, score, why in ranked
    ], list(named)


def _named(text: str, rows: Sequence[Sequence[Any]]) -> list[str]:
    """The owner's people `text` names, of those the first row of `search_units` carries."""
    people = rows[0][9] if rows else None
    return named_people(text, people) if people else []


def _units(records: Indexed, params: dict[str, Any]) -> list[Any]:
    with records.db.statement(records.owner) as conn:
        return conn.execute(SEARCH_UNITS, params).fetchall()


_CURRENT = (
    "SELECT doc_id, kind, path, line, day, shown, speaker, refs FROM search_docs"
    " WHERE owner_id = %(owner)s AND kind = 'fact' AND path = ANY(%(paths)s)"
    " AND shown LIKE %(open)s AND (%(since)s::date IS NULL OR day >= %(since)s)"
    " AND (%(until)s::date IS NULL OR day <= %(until)s)"
)
"""The current versions of the facts whose past versions a search found (`OPEN_END`)."""


def _current_first(
    records: Indexed,
    ranked: list[tuple[int, float, tuple[str, ...]]],
    hits: list[PgHit],
    since: date | None,
    until: date | None,
) -> list[tuple[int, float, tuple[str, ...]]]:
    """A fact's past version found brings its current one first, fetched when the search
    did not find it (and the days asked let it in), as the file index does: the same rule,
    `rank.current_first`. A fetched version is added to `hits`."""
    past = {i: hits[i].path for i, _, _ in ranked if _is_past_fact(hits[i])}
    if not past:
        return ranked
    at = {hit.doc_id: i for i, hit in enumerate(hits)}
    with records.db.owner_tx(records.owner) as conn:
        rows = conn.execute(
            _CURRENT,
            {
                "owner": records.owner,
                "paths": sorted(set(past.values())),
                "open": "%" + OPEN_END,  # it holds no % or _ to escape
                "since": since,
                "until": until,
            },
        ).fetchall()
    by_path: dict[str, int] = {}
    for doc, kind, path, line, day, shown, speaker, refs in rows:
        if doc not in at:
            at[doc] = len(hits)
            hits.append(PgHit(doc, kind, path, line, day, shown, speaker, tuple(refs), 0.0))
        by_path[path] = at[doc]
    current_of = {i: by_path[path] for i, path in past.items() if path in by_path}
    scored = {i: (score, why) for i, score, why in ranked}
    out = []
    for i, by in current_first([i for i, _, _ in ranked], current_of):
        score, why = scored[i if by is None else by]
        out.append((i, score, why if by is None else (*why, CURRENT_WHY)))
    return out


def _is_past_fact(hit: PgHit) -> bool:
    return hit.kind == "fact" and not is_current_fact(hit.text)


def _with_span(
    rows: Sequence[Sequence[Any]], spanned: Sequence[Sequence[Any]], weight: float
) -> tuple[list[PgHit], set[int]]:
    """The hits of the search and of its span merged, best first: a unit in the span gains
    `weight` times its score there. The span's BM25 weighs a term by the span's matches
    (`search_units` counts a term among the units its query matched), so a span score is on
    a near scale to the first search's, not the same one."""
    found: dict[str, PgHit] = {}
    for doc, kind, path, line, day, shown, speaker, refs, score, _ in rows:
        found[str(doc)] = PgHit(
            doc, kind, path, line, day, shown, speaker, tuple(refs), float(score)
        )  # fmt: skip
    spanned_ids = set()
    for doc, kind, path, line, day, shown, speaker, refs, score, _ in spanned:
        key = str(doc)
        spanned_ids.add(key)
        own = found.get(key)
        base = own.score if own is not None else float(score)
        found[key] = PgHit(
            key, kind, path, line, day, shown, speaker, tuple(refs), base + weight * float(score)
        )  # fmt: skip
    hits = sorted(found.values(), key=lambda h: -h.score)  # stable: ties as the rows give them
    return hits, {i for i, h in enumerate(hits) if h.doc_id in spanned_ids}


def _dated_why(hit: PgHit, span: Span | None, in_span: bool, tuning: Tuning) -> tuple[str, ...]:
    """What `--explain` says of a hit's days, as the file index says it."""
    out: list[str] = []
    if span is not None and in_span:
        out.append(
            f"in the days asked ({span.words}: {span.first.isoformat()}..{span.last.isoformat()},"
            f" +{tuning.date_weight:g} of its score)"
        )
    said = said_text(said_days(hit.text, hit.day)) if hit.day is not None else ""
    if said:
        out.append(f"says {said}")
    return tuple(out)


def _turn_before(hit: PgHit, at: dict[tuple[str, int], int]) -> int | None:
    """The candidate that is the turn just before `hit` in its transcript (its line before),
    so the reply after a question found gains as in the file index (`rank.fuse`)."""
    return at.get((hit.path, hit.line - 1)) if hit.kind == "conversation" else None
