"""The optional semantic layer: an `Embedder` seam, its adapters, and vectors kept in SQLite.

Vectors are float32 blobs in the index's own database (table `vectors`). In memory a search
holds them smaller: int8 codes with a scale per vector (a quarter of the bytes, cosines within
about 0.001), and one sign bit per dimension of the vector minus the mean vector. A search over
more vectors than `SHORTLIST` first ranks them all by the Hamming distance of those bits (a
millisecond for 150,000), then scores the shortlist and the lexical candidates with the int8
codes: the float scan it replaces read 235 MB per query at ten years. sqlite-vec would need
`enable_load_extension`, which many Python builds (this one included) leave out.
numpy is imported only when the semantic layer is used.
"""

from __future__ import annotations

import bisect
import concurrent.futures
import hashlib
import json
import sqlite3
import threading
import urllib.error
import urllib.request
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from trinho.errors import TrinhoError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]

BATCH = 64
"""Texts per embeddings request."""

MAX_EMBED_CHARS = 2_000
"""Longer texts are cut before embedding: small models see about 256 tokens anyway."""

SHORTLIST = 8_192
"""The fewest vectors scored with their codes after the Hamming ranking (or 16 per nearest
asked, if more): below this many vectors, every one is scored and nothing is approximate.
On the e5 vectors of the LoCoMo and Vietnamese sets a shortlist of 1.3% of the vectors kept
0.85 of the exact ten nearest, 5% kept 0.96 (docs/benchmarks.md); 8,192 is 5% of ten years."""

QUERY_CACHE = 256
"""Query vectors kept in memory: an assistant asks the same thing again within a
conversation, and a model's query embedding costs more than the whole lexical search."""


class Embedder(Protocol):
    """Turns texts into vectors. `name` identifies the model, so vectors of two models never mix.

    A question and a stored line are embedded apart: asymmetric models (e5) prefix them
    differently; a symmetric one embeds both alike. A search embeds its question on a worker
    thread, beside the lexical search: one store calls its embedder from more than one
    thread, but never twice at once."""

    @property
    def name(self) -> str: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


class OpenAIEmbedder:
    """Any OpenAI-compatible `/v1/embeddings` endpoint: OpenAI, Ollama, llama.cpp, vLLM."""

    def __init__(
        self, base_url: str, model: str, api_key: str | None = None, timeout: float = 60.0
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout = timeout

    @property
    def name(self) -> str:
        return f"openai:{self.model}"

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self.embed(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), BATCH):
            out.extend(self._request([t[:MAX_EMBED_CHARS] for t in texts[start : start + BATCH]]))
        return out

    def _request(self, batch: list[str]) -> list[list[float]]:
        body = json.dumps({"model": self.model, "input": batch}).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        url = f"{self.base_url}/embeddings"
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload: Any = json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise TrinhoError.keyed("error.embed.http", url=url, code=exc.code) from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise TrinhoError.keyed("error.embed.unreachable", url=url, error=str(exc)) from None
        except json.JSONDecodeError:
            raise TrinhoError.keyed("error.embed.not_json", url=url) from None
        return _vectors_of(payload, len(batch), url)


def _vectors_of(payload: Any, expected: int, url: str) -> list[list[float]]:
    """The vectors of an embeddings answer, in input order, checked."""
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list) or len(data) != expected:
        raise TrinhoError.keyed("error.embed.count", url=url, expected=expected)
    ordered = sorted(data, key=lambda item: item.get("index", 0) if isinstance(item, dict) else 0)
    vectors = []
    for item in ordered:
        vector = item.get("embedding") if isinstance(item, dict) else None
        if not isinstance(vector, list) or not vector:
            raise TrinhoError.keyed("error.embed.no_vector", url=url)
        vectors.append([float(x) for x in vector])
    if len({len(v) for v in vectors}) != 1:
        raise TrinhoError.keyed("error.embed.ragged", url=url)
    return vectors


def dense_key(text: str) -> str:
    """The key of a vector: a digest of the text embedded, so an unchanged line is never
    embedded again, whichever file or row it moves to."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Loaded:
    """The vectors as a search reads them: keys sorted, int8 codes and their scales, and the
    sign bits of each vector minus the mean, one row of 64-bit words per 64 dimensions."""

    keys: list[str]
    codes: Any  # npt.NDArray[np.int8], one row per key
    scales: Any  # npt.NDArray[np.float32]
    mean: Any  # npt.NDArray[np.float32]
    bits: Any  # npt.NDArray[np.uint64], (words, len(keys))


def load_vectors(keys: list[str], blobs: Sequence[bytes]) -> Loaded:
    """The in-memory form of float32 unit vectors (one blob each, all of one length)."""
    import numpy as np

    if not blobs:
        empty = np.zeros((0, 1), np.int8)
        return Loaded(keys, empty, np.zeros(0, np.float32), np.zeros(1, np.float32), empty)
    matrix = np.frombuffer(b"".join(blobs), np.float32).reshape(len(blobs), -1)
    peak = np.abs(matrix).max(axis=1)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    codes = np.rint(matrix / scales[:, None]).astype(np.int8)
    mean = matrix.mean(axis=0, dtype=np.float64).astype(np.float32)
    return Loaded(keys, codes, scales, mean, _sign_words(matrix - mean).T.copy())


def _sign_words(rows: Any) -> Any:
    """One bit per dimension (set when positive), packed into 64-bit words per row."""
    import numpy as np

    packed = np.packbits(rows > 0, axis=-1)
    pad = (-packed.shape[-1]) % 8
    if pad:
        packed = np.concatenate([packed, np.zeros((*packed.shape[:-1], pad), np.uint8)], -1)
    return np.ascontiguousarray(packed).view(np.uint64)


def shortlist(loaded: Loaded, query: Any, count: int) -> Any:
    """The positions of about `count` vectors nearest `query` by the Hamming distance of their
    sign bits (ties at the cut all kept); every position when there are not more."""
    import numpy as np

    n = len(loaded.keys)
    if n <= count:
        return np.arange(n)
    words = _sign_words(query - loaded.mean)
    distance = np.zeros(n, np.uint16)
    for row, word in zip(loaded.bits, words, strict=True):
        distance += np.bitwise_count(row ^ word)
    cut = int(np.searchsorted(np.cumsum(np.bincount(distance)), count))
    return np.flatnonzero(distance <= cut)


def cosines(loaded: Loaded, query: Any, positions: Any) -> Any:
    """The cosines of `query` (a unit vector) with the vectors at `positions`, from the codes."""
    import numpy as np

    rows = loaded.codes.take(positions, axis=0)
    # einsum, not a BLAS product: BLAS threads spin on a busy machine (p50 28 ms against
    # 0.25 ms for 2,000 rows measured here; bench/speed.py --semantic). It casts the codes as
    # it goes: 0.76 ms for 8,192 rows of 384, against 1.28 ms for a float copy first.
    scores = np.einsum("ij,j->i", rows, query, dtype=np.float32, casting="unsafe")
    return scores * loaded.scales.take(positions)


class VectorStore:
    """Vectors of indexed entries for one embedder, in the index database, keyed by the
    digest of the text embedded (`docs.dense_key`)."""

    def __init__(
        self, conn: sqlite3.Connection, embedder: Embedder, shortlist: int = SHORTLIST
    ) -> None:
        try:
            import numpy  # noqa: F401
        except ImportError:
            raise TrinhoError.keyed("error.embed.no_numpy") from None
        self.conn = conn
        self.embedder = embedder
        self.shortlist = shortlist
        self._cache: Loaded | None = None
        self._synced_at: int | None = None
        self._queries: OrderedDict[str, Matrix] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._model_lock = threading.Lock()
        """One call into the model at a time: a query embedded beside the search may still
        run when the next search syncs, and not every engine is safe to call twice at once."""
        self._beside: concurrent.futures.ThreadPoolExecutor | None = None

    def sync(self, progress: Progress | None = None) -> int:
        """Embed the texts that have no vector yet (all of them when the model changed) and
        drop the vectors no entry uses any more. Returns how many texts were embedded.

        Nothing to do when no connection wrote since the last sync (`PRAGMA data_version`
        tells a write by another process; this one's writes call `forget_loaded`).
        """
        import numpy as np

        version = int(self.conn.execute("PRAGMA data_version").fetchone()[0])
        if self._synced_at == version:
            return 0
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'vector_model'").fetchone()
        if row is None or row["value"] != self.embedder.name:
            with self.conn:
                self.conn.execute("DELETE FROM vectors")
                self.conn.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('vector_model', ?)", (self.embedder.name,)
                )
            self._cache = None
        missing = self.conn.execute(
            "SELECT d.dense_key, min(d.dense) FROM docs d LEFT JOIN vectors v "
            "ON v.key = d.dense_key WHERE v.key IS NULL GROUP BY d.dense_key ORDER BY min(d.id)"
        ).fetchall()
        step = BATCH * 4
        for start in range(0, len(missing), step):
            chunk = missing[start : start + step]
            with self._model_lock:
                embedded = self.embedder.embed_documents([text for _, text in chunk])
            with self.conn:
                self.conn.executemany(
                    "INSERT OR REPLACE INTO vectors(key, vec) VALUES (?, ?)",
                    [
                        (key, _unit(np.asarray(v, np.float32)).tobytes())
                        for (key, _), v in zip(chunk, embedded, strict=True)
                    ],
                )
            if progress is not None:
                progress(start + len(chunk), len(missing))
        with self.conn:
            gone = self.conn.execute(
                "DELETE FROM vectors WHERE key NOT IN (SELECT dense_key FROM docs)"
            ).rowcount
        if missing or gone:
            self._cache = None
        self._synced_at = int(self.conn.execute("PRAGMA data_version").fetchone()[0])
        return len(missing)

    def forget_loaded(self) -> None:
        """Entries changed: sync and load the vectors again at the next search."""
        self._cache = None
        self._synced_at = None

    def loaded(self) -> Loaded:
        """The vectors in memory, read from the database when they changed."""
        if self._cache is None:
            rows = self.conn.execute("SELECT key, vec FROM vectors ORDER BY key").fetchall()
            self._cache = load_vectors([row["key"] for row in rows], [row["vec"] for row in rows])
        return self._cache

    def query_vector(self, text: str) -> Matrix:
        """The unit vector of a query, from the last `QUERY_CACHE` asked when it is there."""
        import numpy as np

        with self._cache_lock:
            vector = self._queries.get(text)
            if vector is not None:
                self._queries.move_to_end(text)
                return vector
        with self._model_lock:
            vector = _unit(np.asarray(self.embedder.embed_query(text), np.float32))
        with self._cache_lock:
            self._queries[text] = vector
            while len(self._queries) > QUERY_CACHE:
                self._queries.popitem(last=False)
        return vector

    def query_vector_beside(self, text: str) -> concurrent.futures.Future[Matrix]:
        """The query's vector, embedded on a worker thread while the caller runs the lexical
        search: the model and SQLite both let go of the GIL, so on two cores a search waits
        for the longer of the two, not their sum. Done at once when the vector is cached."""
        with self._cache_lock:
            cached = self._queries.get(text)
        if cached is not None:
            done: concurrent.futures.Future[Matrix] = concurrent.futures.Future()
            done.set_result(cached)
            return done
        return self._worker().submit(self.query_vector, text)

    def close(self) -> None:
        """Stop the thread of queries embedded beside a search (one still being embedded ends
        on its own: nothing waits for it)."""
        if self._beside is not None:
            self._beside.shutdown(wait=False, cancel_futures=True)
            self._beside = None

    def nearest(
        self, query: Matrix, limit: int, also: Sequence[str] = ()
    ) -> list[tuple[str, float]]:
        """The keys of the texts closest in meaning to `query` (a unit vector,
        `query_vector`) with their cosines, best first, then the cosines of the keys in `also`
        (the lexical candidates) not among them."""
        out = nearest_in(self.loaded(), query, limit, self.shortlist)
        seen = {key for key, _ in out}
        return out + self.cosines_of(query, [key for key in also if key not in seen])

    def nearest_beside(
        self, query: concurrent.futures.Future[Matrix], limit: int
    ) -> concurrent.futures.Future[list[tuple[str, float]]]:
        """`nearest(query, limit)` on the worker thread, once the query's vector (embedded
        there, `query_vector_beside`) is ready: the scan of every vector runs while the caller
        runs the lexical search. The vectors are the ones loaded now, in the caller's thread
        (the connection is not the worker's)."""
        loaded = self.loaded()
        return self._worker().submit(
            lambda: nearest_in(loaded, query.result(), limit, self.shortlist)
        )

    def _worker(self) -> concurrent.futures.ThreadPoolExecutor:
        """One thread, so a search's scan runs after its query's embedding, in order."""
        if self._beside is None:
            self._beside = concurrent.futures.ThreadPoolExecutor(1, "trinho-query-vector")
        return self._beside

    def cosines_of(self, query: Matrix, keys: Sequence[str]) -> list[tuple[str, float]]:
        """The cosines of `query` with the vectors of `keys` (each once; unknown keys left
        out)."""
        import numpy as np

        loaded = self.loaded()
        wanted: list[int] = []
        seen: set[str] = set()
        for key in keys:
            i = bisect.bisect_left(loaded.keys, key)
            if key not in seen and i < len(loaded.keys) and loaded.keys[i] == key:
                wanted.append(i)
                seen.add(key)
        if not wanted:
            return []
        if query.shape[0] != loaded.codes.shape[1]:
            raise TrinhoError.keyed("error.embed.resized")
        found = cosines(loaded, query, np.asarray(wanted))
        return [(loaded.keys[i], float(score)) for i, score in zip(wanted, found, strict=True)]


def nearest_in(
    loaded: Loaded, query: Matrix, limit: int, at_least: int = SHORTLIST
) -> list[tuple[str, float]]:
    """The `limit` keys nearest `query` among `loaded`, with their cosines, best first: the
    Hamming shortlist (of `at_least` vectors, or 16 per key asked), scored with the codes."""
    import numpy as np

    keys = loaded.keys
    if not keys:
        return []
    if query.shape[0] != loaded.codes.shape[1]:
        raise TrinhoError.keyed("error.embed.resized")
    positions = shortlist(loaded, query, max(at_least, 16 * limit))
    scores = cosines(loaded, query, positions)
    count = min(limit, len(positions))
    best = np.argpartition(-scores, count - 1)[:count]
    best = best[np.argsort(-scores[best], kind="stable")]
    return [(keys[int(positions[i])], float(scores[i])) for i in best]


def _unit(vector: Matrix) -> Matrix:
    import numpy as np

    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector
