"""Search in PostgreSQL, what the database alone does: the GIN index and its plan under the
owner's policy, the literals it is given, the counts its triggers keep, one owner's units
only; and the same hits, in the same order, as the file index. The search rules both
backends keep (folding, ranking, what a write changes) run on both in
tests/search/test_search_backends.py."""

from __future__ import annotations

from datetime import date
from unittest.mock import patch

import psycopg
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import TZ, FixedClock
from support.pg_fixtures import new_owner
from support.pgserver import Urls
from support.reply_talk import QUESTION, REPLY, SAID, turns
from trinho.pg.connect import Database
from trinho.pg.search import (
    Asked,
    add_docs,
    asked,
    find,
    reindex,
    replace_docs,
    replace_path_docs,
    search,
    tsquery_literal,
    tsvector_literal,
)
from trinho.pg.store import PgRecords
from trinho.search import Query, SearchIndex
from trinho.search.documents import Doc
from trinho.search.rank import CANDIDATES, Tuning
from trinho.workspace import Workspace


@pytest.fixture
def pg(pg_app: Database, owner: str, clock) -> PgRecords:
    return PgRecords(pg_app, owner, clock=clock, timezone=TZ)


def test_one_owner_never_finds_another_owners_units(
    pg_app: Database, pg_admin: Database, owner: str, clock
) -> None:
    from trinho.pg.owners import add_owner

    add_owner(pg_admin, owner + "-x")
    mine = PgRecords(pg_app, owner, clock=clock, timezone=TZ)
    theirs = PgRecords(pg_app, owner + "-x", clock=clock, timezone=TZ)
    theirs.save_note("secret plan")
    reindex(theirs)
    reindex(mine)
    assert search(mine, "secret plan") == []
    assert [h.text for h in search(theirs, "secret plan")] == ["secret plan"]


def test_the_index_is_gin_led_by_the_owner(pg_urls: Urls) -> None:
    with psycopg.connect(pg_urls.admin) as conn:
        row = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'search_terms_tsv'"
        ).fetchone()
    assert row is not None and "USING gin (owner_id, tsv)" in row[0]
    assert "WITH (fastupdate=off)" in row[0]  # no pending list every search reads through


def _plan(conn: psycopg.Connection, table: str) -> str:
    """How `table`'s units matching a term are found, a scan of the whole table ruled out."""
    conn.execute("SET LOCAL enable_seqscan = off")
    rows = conn.execute(f"EXPLAIN SELECT doc_id FROM {table} WHERE tsv @@ 'pho'::tsquery")
    return "\n".join(r[0] for r in rows.fetchall())


def test_the_matches_are_found_through_the_gin_index_where_a_forced_policy_forbids_it(
    pg_urls: Urls, pg: PgRecords
) -> None:
    """Where the policy holds (the application role) the planner may not test `@@`, which is
    not leakproof, in an index condition before the policy's; as the schema's owner, which
    `search_matches` runs as, it does, through the GIN index."""
    pg.save_note("ăn phở bò")
    with psycopg.connect(pg_urls.admin) as conn:
        definer = _plan(conn, "search_terms")
    assert "on search_terms_tsv" in definer and "Index Cond: (tsv @@ " in definer
    with psycopg.connect(pg_urls.app) as conn:
        conn.execute("SELECT set_config('trinho.owner', %s, true)", (pg.owner,))
        held = _plan(conn, "search_terms")
    assert "Index Cond: (tsv" not in held and "Filter: (tsv @@ " in held


def test_the_same_notes_give_the_same_hits_as_the_file_index(
    pg: PgRecords, workspace: Workspace
) -> None:
    from trinho.notes.store import save_note

    texts = ["bought rice at the market", "fish soup for dinner", "rice cooker broke",
             "đi chợ mua cá", "Mai's birthday party", "market closed on Monday"]  # fmt: skip
    for text in texts:
        save_note(workspace, text)
        pg.save_note(text)
    reindex(pg)
    with SearchIndex(workspace) as index:
        for query in ["rice", "market", "cá", "birthday Mai", "soup dinner"]:
            files = [h.text for h in index.search(Query(query, limit=5))]
            assert [h.text for h in search(pg, query, 5)] == files, query


@given(st.lists(st.text(alphabet="aáđ'\\:b|&!", min_size=1, max_size=8), max_size=6))
def test_a_tsvector_literal_is_read_by_postgresql_as_written(
    pg_urls: Urls, words: list[str]
) -> None:
    """Every term, quotes, backslashes and operators too, is one lexeme with its weights."""
    literal = tsvector_literal(" ".join(words), "ctx")
    with psycopg.connect(pg_urls.app) as conn:
        rows = conn.execute(
            "SELECT lexeme, weights FROM unnest(%s::tsvector)", (literal,)
        ).fetchall()
        found = conn.execute(
            "SELECT %s::tsvector @@ %s::tsquery", (literal, tsquery_literal(words or ["ctx"]))
        ).fetchone()
    weights: dict[str, list[str]] = dict(rows)
    assert set(weights) == {*words, "ctx"}
    if "ctx" not in words:
        assert weights["ctx"] == ["D"]
    assert all(weights[w] and "A" in weights[w] for w in words)
    assert found == (True,)


def test_a_reply_is_found_by_the_question_it_answers_as_in_the_file_index(
    pg: PgRecords, workspace: Workspace, clock: object
) -> None:
    from trinho.conversations.store import import_turns
    from trinho.pg.transcripts import PgTranscripts

    talk = turns(*SAID)
    import_turns(workspace, talk)
    PgTranscripts(pg.db, pg.owner, clock=workspace.now, timezone=TZ).import_turns(talk)
    question, reply = QUESTION, REPLY
    with SearchIndex(workspace) as index:
        files = [h.text for h in index.search(Query(question, limit=3))]
    found = [h.text for h in search(pg, question, 3)]
    assert reply in files and found == files
    assert reply not in [h.text for h in search(pg, question, 3, Tuning(answer_weight=0.0))]


_PATHS = ("memory/2026-11-28.md", "memory/2026-11-29.md", "conversations/2026-11-29.jsonl")
_UNIT = st.tuples(
    st.integers(1, 4),
    st.sampled_from(["", "Mai", "Minh", "Bà Lan"]),
    st.lists(st.sampled_from(["phở", "bò", "đi", "hue"]), min_size=1, max_size=4),
)
_CHANGE = st.tuples(
    st.sampled_from(["add", "replace_path", "replace_all"]),
    st.sampled_from(_PATHS),
    st.lists(_UNIT, max_size=4),
)


def _docs(path: str, units: list[tuple[int, str, list[str]]]) -> list[Doc]:
    return [
        Doc("note", path, line, None, " ".join(words), (), " ".join(words), speaker=speaker)
        for line, speaker, words in units
    ]


@given(st.lists(_CHANGE, max_size=6))
def test_the_searchs_counts_are_those_of_the_owners_units_after_any_changes(
    pg_admin: Database, changes: list[tuple[str, str, list[tuple[int, str, list[str]]]]]
) -> None:
    """What BM25 weighs by (the owner's units, their length, the speakers named) and the
    terms the GIN index finds matches by are kept by the index's triggers: after any
    sequence of adds (some already there), a file's units replaced and the whole index
    replaced, the kept counts are the counts of the units there are and the kept terms their
    terms, with their units' length, kind and day; another owner's stay their own."""
    owner, other = new_owner(pg_admin), new_owner(pg_admin)
    with pg_admin.owner_tx(other) as conn:
        add_docs(conn, other, _docs(_PATHS[0], [(1, "Mai", ["phở"])]))
    expected: dict[str, dict[str, str]] = {owner: {}, other: {f"{_PATHS[0]}:1": "phở"}}
    for action, path, units in changes:
        docs = _docs(path, units)
        model = expected[owner]
        if action == "replace_path":
            model = {k: v for k, v in model.items() if not k.startswith(path + ":")}
        elif action == "replace_all":
            model = {}
        for d in docs:
            model.setdefault(f"{d.path}:{d.line}", d.body)
        expected[owner] = model
        with pg_admin.owner_tx(owner) as conn:
            if action == "add":
                add_docs(conn, owner, docs)
            elif action == "replace_path":
                replace_path_docs(conn, owner, path, docs)
            else:
                replace_docs(conn, owner, docs)
    for who in (owner, other):
        with pg_admin.owner_tx(who) as conn:
            counted = conn.execute(
                "SELECT count(*), coalesce(sum(tokens), 0) FROM search_docs WHERE owner_id = %s",
                (who,),
            ).fetchone()
            kept = conn.execute(
                "SELECT docs, tokens FROM search_stats WHERE owner_id = %s", (who,)
            ).fetchone()
            people = conn.execute(
                "SELECT speaker, count(*) FROM search_docs WHERE owner_id = %s"
                " AND speaker <> '' GROUP BY speaker ORDER BY speaker",
                (who,),
            ).fetchall()
            kept_people = conn.execute(
                "SELECT speaker, docs FROM search_people WHERE owner_id = %s ORDER BY speaker",
                (who,),
            ).fetchall()
            unit_ids = conn.execute(
                "SELECT doc_id FROM search_docs WHERE owner_id = %s", (who,)
            ).fetchall()
            terms = conn.execute(
                "SELECT doc_id, tsv = tsvector_literal FROM search_terms"
                " JOIN unnest(%s::text[], %s::tsvector[]) AS m(doc_id, tsvector_literal)"
                " USING (doc_id) WHERE owner_id = %s ORDER BY doc_id",
                (
                    list(expected[who]),
                    [tsvector_literal(body, "") for body in expected[who].values()],
                    who,
                ),
            ).fetchall()
            all_terms = conn.execute(
                "SELECT count(*) FROM search_terms WHERE owner_id = %s", (who,)
            ).fetchone()
            ranked_as_units = conn.execute(  # what ranking a match reads, as its unit says
                "SELECT count(*) FROM search_terms AS t JOIN search_docs AS d"
                " USING (owner_id, doc_id) WHERE t.owner_id = %s"
                " AND (t.tokens, t.kind, t.day) IS NOT DISTINCT FROM (d.tokens, d.kind, d.day)",
                (who,),
            ).fetchone()
        assert (kept or (0, 0)) == counted
        assert kept_people == people
        assert {u[0] for u in unit_ids} == set(expected[who])
        assert set(terms) == {(k, True) for k in expected[who]}
        assert all_terms == ranked_as_units == (len(expected[who]),)


def test_an_indexed_unit_is_never_updated_in_place(pg_app: Database, owner: str) -> None:
    """The counts follow inserts and deletes: an UPDATE, which would leave them stale, is
    refused by the database itself."""
    with pg_app.owner_tx(owner) as conn:
        add_docs(conn, owner, _docs(_PATHS[0], [(1, "Mai", ["phở"])]))
    with pytest.raises(psycopg.errors.RaiseException), pg_app.owner_tx(owner) as conn:
        conn.execute("UPDATE search_docs SET speaker = 'Minh' WHERE owner_id = %s", (owner,))


_UNITS = "SELECT doc_id FROM search_units(%s, 'pho'::tsquery, '{pho}', 0.3, 10, NULL, NULL, NULL)"


def test_a_search_names_its_owner_for_its_own_statement_only(
    pg_urls: Urls, pg: PgRecords, pg_admin: Database
) -> None:
    """`search_units` sets the owner for the statement's own transaction: the next statement
    on the same connection names nobody and sees no row; inside a transaction that names
    another owner it refuses, rather than change whose rows the rest of it reads."""
    pg.save_note("ăn phở bò")
    other = new_owner(pg_admin)
    with psycopg.connect(pg_urls.app, autocommit=True) as conn:
        assert len(conn.execute(_UNITS, (pg.owner,)).fetchall()) == 1
        assert conn.execute("SELECT current_setting('trinho.owner', true)").fetchone() == ("",)
        assert conn.execute("SELECT count(*) FROM search_docs").fetchone() == (0,)
        assert conn.execute(_UNITS, (other,)).fetchall() == []
    with psycopg.connect(pg_urls.app) as conn:
        conn.execute("SELECT set_config('trinho.owner', %s, true)", (other,))
        with pytest.raises(psycopg.errors.RaiseException, match="another owner"):
            conn.execute(_UNITS, (pg.owner,))
        conn.rollback()
        conn.execute("SELECT set_config('trinho.owner', %s, true)", (pg.owner,))
        assert len(conn.execute(_UNITS, (pg.owner,)).fetchall()) == 1


def test_a_day_asked_finds_what_was_said_of_it_as_in_the_file_index(
    pg: PgRecords, workspace: Workspace
) -> None:
    """`yesterday`, said on 5 December, is 4 December: a question naming that day finds the
    turn in both indexes, first, and `--explain` says why; without the rule it is not first."""
    from datetime import UTC, date, datetime

    from trinho.conversations.store import Turn, import_turns
    from trinho.pg.search import find
    from trinho.pg.transcripts import PgTranscripts

    def at(day: int, hour: int = 10) -> datetime:
        return datetime(2023, 11 if day > 5 else 12, day, hour, tzinfo=UTC)

    talk = [
        Turn(at(5), "Sam", "Yesterday I tried the pottery class.", "a"),
        *[Turn(at(d), "Sam", f"At the pottery shop, {d + 100}.", f"p{d}") for d in range(6, 20)],
    ]
    import_turns(workspace, talk)
    PgTranscripts(pg.db, pg.owner, clock=workspace.now, timezone=TZ).import_turns(talk)
    question = "What was Sam doing at pottery on December 4, 2023?"
    today = date(2023, 12, 31)
    with SearchIndex(workspace) as index:
        files = index.find(Query(question, limit=3, today=today))
    found, _ = find(pg, question, 3, today=today)
    assert files.hits[0].refs == ("a",) == found[0].refs
    assert [h.refs for h in files.hits] == [h.refs for h in found]
    assert any("yesterday = 2023-12-04" in why for why in found[0].why)
    assert any("in the days asked" in why for why in found[0].why)
    before, _ = find(pg, question, 3, Tuning(date_weight=0.0), today=today)
    assert before[0].refs != ("a",)


def test_a_search_reads_the_pool_beyond_its_limit_only_when_a_rule_may_reorder_it() -> None:
    """As the file index: the query's diacritics, a "when" question or the days it names
    read `CANDIDATES` more candidates; a plain question reads its limit."""
    today = date(2026, 6, 1)
    assert asked("rice market", Tuning(), today).pool(10) == 10
    assert asked("phở bò", Tuning(), today).pool(10) == 10 + CANDIDATES
    assert asked("when did I buy rice", Tuning(), today).pool(5) == 5 + CANDIDATES
    assert asked("what did I do on 3 March", Tuning(), today).pool(10) == 10 + CANDIDATES
    assert asked("what did I do on 3 March", Tuning(date_weight=0.0), today).pool(10) == 10


_PLAIN = ["rice", "market", "fish", "soup", "dinner", "cooker", "closed", "bowl"]


@given(
    notes=st.lists(st.lists(st.sampled_from(_PLAIN), min_size=1, max_size=5), max_size=25),
    rice=st.lists(st.sampled_from(["jasmine", "sticky", "brown", "red"]), max_size=4),
    query=st.lists(st.sampled_from([*_PLAIN, "rice", "Mai"]), min_size=1, max_size=3),
    limit=st.integers(1, 5),
)
def test_reading_the_limit_alone_finds_what_the_whole_pool_would(
    pg_app: Database,
    pg_admin: Database,
    notes: list[list[str]],
    rice: list[str],
    query: list[str],
    limit: int,
) -> None:
    """For a query no rule reorders, the best `limit` matches are the first `limit` of the
    pool, score for score, a fact's current value brought before its past one as when the
    pool held it; a person the query names (known from the first answer) reads the pool."""
    records = PgRecords(pg_app, new_owner(pg_admin), clock=FixedClock(), timezone=TZ)
    for words in notes:
        records.save_note(" ".join(words))
    for kind in rice:  # each a new value of one fact: the others are its past
        records.save_fact("favourite_rice", f"{kind} rice")
    text = " ".join(query)
    assert asked(text, Tuning(), records.today()).pool(limit) == limit
    read, named = find(records, text, limit)
    with patch.object(Asked, "pool", lambda _asked, n: n + CANDIDATES):
        pooled, named_pooled = find(records, text, limit)
    assert [(h.doc_id, h.score, h.why) for h in read] == [
        (h.doc_id, h.score, h.why) for h in pooled
    ]
    assert named == named_pooled


def test_the_owners_speakers_come_with_the_first_row_alone(pg_app: Database, owner: str) -> None:
    """The people a question may name are read from the answer's first row; the other rows
    carry none, so an owner of many speakers does not send them with every candidate."""
    units = [
        (1, "Mai", ["phở"]),
        (2, "Minh", ["phở", "bò"]),
        (3, "", ["phở"]),
        (4, "Bà Lan", ["bò"]),
    ]
    with pg_app.owner_tx(owner) as conn:
        add_docs(conn, owner, _docs(_PATHS[0], units))
    with pg_app.statement(owner) as conn:
        rows = conn.execute(
            "SELECT people FROM search_units(%s, %s::tsquery, %s, 0.3, 10, NULL, NULL, NULL)",
            (owner, tsquery_literal(["phở"]), ["phở"]),
        ).fetchall()
    assert [r[0] for r in rows] == [["Bà Lan", "Mai", "Minh"], None, None]
