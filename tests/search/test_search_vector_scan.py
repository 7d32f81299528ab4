"""The dense scan: int8 codes, the Hamming shortlist of sign bits, the query cache, and the
rule that leaves the query unembedded when the lexical side already fills the page."""

import sqlite3
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")

from trinho.errors import TrinhoError  # noqa: E402
from trinho.notes.store import save_note  # noqa: E402
from trinho.search import Query, SearchIndex, vectors  # noqa: E402
from trinho.search.rank import lexical_suffices  # noqa: E402
from trinho.search.vectors import VectorStore, cosines, load_vectors, shortlist  # noqa: E402
from trinho.workspace import Workspace  # noqa: E402


def unit_rows(seed: int, n: int, dim: int) -> Any:
    rows = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


class MatrixEmbedder:
    """Documents named `doc<i>` get row i of a matrix; a query is `doc<i>` too, or a vector."""

    name = "matrix:v1"

    def __init__(self, rows: Any) -> None:
        self.rows = rows
        self.queries: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.rows[int(t.rsplit("doc", 1)[1])].tolist() for t in texts]

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return self.embed_documents([text])[0]


def store_of(rows: Any, shortlist_size: int) -> tuple[VectorStore, MatrixEmbedder]:
    conn = sqlite3.connect(":memory:")
    conn.row_factory = sqlite3.Row
    conn.executescript(
        "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE docs(id INTEGER PRIMARY KEY, dense TEXT, dense_key TEXT);"
        "CREATE TABLE vectors(key TEXT PRIMARY KEY, vec BLOB NOT NULL);"
    )
    conn.executemany(
        "INSERT INTO docs(dense, dense_key) VALUES (?, ?)",
        [(f"doc{i}", f"k{i:06d}") for i in range(len(rows))],
    )
    embedder = MatrixEmbedder(rows)
    store = VectorStore(conn, embedder, shortlist=shortlist_size)
    store.sync()
    return store, embedder


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 60), dim=st.integers(2, 70))
def test_codes_give_the_cosines_within_a_hundredth(seed: int, n: int, dim: int) -> None:
    rows = unit_rows(seed, n, dim)
    loaded = load_vectors([f"k{i}" for i in range(n)], [r.tobytes() for r in rows])
    query = unit_rows(seed + 1, 1, dim)[0]
    got = cosines(loaded, query, np.arange(n))
    assert np.abs(got - rows @ query).max() < 0.01


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 400), count=st.integers(1, 400))
def test_the_shortlist_holds_at_least_what_is_asked_and_every_nearest_sign_twin(
    seed: int, n: int, count: int
) -> None:
    rows = unit_rows(seed, n, 96)
    loaded = load_vectors([f"k{i}" for i in range(n)], [r.tobytes() for r in rows])
    query = rows[seed % n]
    picked = shortlist(loaded, query, count)
    assert len(set(picked.tolist())) == len(picked) >= min(count, n)
    assert seed % n in picked.tolist()  # its own bits are at distance 0


def test_a_big_store_finds_the_near_copies_and_scores_the_lexical_keys() -> None:
    rows = unit_rows(0, 3_000, 64)
    rows[2_999] = rows[17] + 0.05 * unit_rows(1, 1, 64)[0]
    rows[2_999] /= np.linalg.norm(rows[2_999])
    store, _ = store_of(rows, shortlist_size=100)
    near = store.nearest(store.query_vector("doc17"), 2, also=["k000005"])
    assert [key for key, _ in near[:2]] == ["k000017", "k002999"]
    assert near[2][0] == "k000005"
    assert near[2][1] == pytest.approx(float(rows[5] @ rows[17]), abs=0.01)


def test_a_small_store_is_scored_whole_as_the_exact_cosines_order_it() -> None:
    rows = unit_rows(3, 200, 32)
    store, _ = store_of(rows, shortlist_size=vectors.SHORTLIST)
    near = store.nearest(store.query_vector("doc4"), 200)
    exact = rows @ rows[4]
    got = dict(near)
    assert len(got) == 200
    assert max(abs(got[f"k{i:06d}"] - exact[i]) for i in range(200)) < 0.01


def test_a_repeated_query_is_embedded_once() -> None:
    store, embedder = store_of(unit_rows(5, 20, 8), shortlist_size=vectors.SHORTLIST)
    store.nearest(store.query_vector("doc3"), 5)
    store.nearest(store.query_vector_beside("doc3").result(), 5)
    store.nearest(store.query_vector("doc4"), 5)
    assert embedder.queries == ["doc3", "doc4"]


@pytest.mark.parametrize(
    ("full", "limit", "expected"),
    [
        ([True] * 10, 10, True),
        ([True] * 12, 10, True),
        ([True] * 9, 10, False),
        ([True] * 9 + [False], 10, False),
        ([False] + [True] * 10, 10, False),
        ([], 1, False),
    ],
)
def test_lexical_suffices_only_when_the_whole_page_holds_every_term(
    full: list[bool], limit: int, expected: bool
) -> None:
    assert lexical_suffices(full, limit) is expected


class CountingEmbedder:
    name = "count:v1"

    def __init__(self) -> None:
        self.queries: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0, float(len(t))] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return [1.0, 0.0]


class HeldEmbedder(CountingEmbedder):
    """Its query embedding waits until released: a search that waits for it would hang."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def embed_query(self, text: str) -> list[float]:
        assert self.release.wait(10), "the query's embedding was never released"
        return super().embed_query(text)


def test_the_search_does_not_wait_for_the_query_when_every_first_hit_holds_every_term(
    workspace: Workspace,
) -> None:
    for i in range(3):
        save_note(workspace, f"blue fence number {i}")
    save_note(workspace, "a red fence")
    embedder = HeldEmbedder()
    with SearchIndex(workspace, embedder=embedder) as index:
        assert len(index.search(Query("blue fence", limit=3))) == 3  # the model still held
        assert embedder.queries == []
        embedder.release.set()
        assert len(index.search(Query("blue fence", limit=4))) == 4
        # Embedded once: beside the first search, then used by the second.
        assert embedder.queries == ["blue fence"]


def test_a_query_is_embedded_while_the_lexical_search_runs(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lexical search starts before the query's vector is ready: the model and SQLite
    overlap."""
    save_note(workspace, "a red fence")
    embedder = HeldEmbedder()
    with SearchIndex(workspace, embedder=embedder) as index:
        lexical = index._lexical

        def lexical_then_release(*args: Any) -> Any:
            assert embedder.queries == []  # the model has not answered yet
            rows = lexical(*args)
            embedder.release.set()
            return rows

        monkeypatch.setattr(index, "_lexical", lexical_then_release)
        assert [hit.text for hit in index.search(Query("fence colour", limit=5))] == ["a red fence"]
        assert embedder.queries == ["fence colour"]


def test_a_failing_query_embedding_fails_the_search_that_needs_it(workspace: Workspace) -> None:
    save_note(workspace, "a red fence")

    class Unreachable(CountingEmbedder):
        def embed_query(self, text: str) -> list[float]:
            raise TrinhoError.keyed("error.embed.unreachable", url="http://127.0.0.1:9", error="x")

    with (
        SearchIndex(workspace, embedder=Unreachable()) as index,
        pytest.raises(TrinhoError, match=r"127\.0\.0\.1:9"),
    ):
        index.search(Query("fence colour", limit=5))


class OneAtATime(CountingEmbedder):
    """Slow, and notes how many of its calls ever ran at once."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = 0
        self.most = 0
        self._count = threading.Lock()

    def _enter(self) -> None:
        with self._count:
            self.inside += 1
            self.most = max(self.most, self.inside)
        time.sleep(0.05)
        with self._count:
            self.inside -= 1

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self._enter()
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self._enter()
        return super().embed_query(text)


def test_the_embedder_is_never_called_twice_at_once(workspace: Workspace) -> None:
    """A query still being embedded beside a finished search, and the next search embedding
    a new note: the two calls wait for each other."""
    for i in range(3):
        save_note(workspace, f"blue fence number {i}")
    embedder = OneAtATime()
    with SearchIndex(workspace, embedder=embedder) as index:
        for i in range(3):
            assert len(index.search(Query("blue fence", limit=3))) == 3  # does not wait
            save_note(workspace, f"green gate number {i}")
            index.search(Query("green gate", limit=5))  # embeds the new note first
    assert embedder.most == 1
