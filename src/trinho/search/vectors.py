"""The optional semantic layer: an `Embedder` seam, its adapters, and vectors kept in SQLite.

Vectors are float32 blobs in the index's own database (table `vectors`), searched by cosine
similarity with numpy (brute force: a few milliseconds for a hundred thousand entries).
sqlite-vec would need `enable_load_extension`, which many Python builds (this one included)
leave out.
numpy is imported only when the semantic layer is used.
"""

from __future__ import annotations

import json
import sqlite3
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
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


class Embedder(Protocol):
    """Turns texts into vectors. `name` identifies the model, so vectors of two models never mix."""

    @property
    def name(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


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


class VectorStore:
    """Vectors of indexed entries for one embedder, in the index database."""

    def __init__(self, conn: sqlite3.Connection, embedder: Embedder) -> None:
        try:
            import numpy  # noqa: F401
        except ImportError:
            raise TrinhoError.keyed("error.embed.no_numpy") from None
        self.conn = conn
        self.embedder = embedder
        self._cache: tuple[list[int], Matrix] | None = None

    def sync(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed the entries that have no vector yet (all of them when the model changed).

        The index deletes an entry's vector with the entry, so equal counts mean nothing to do:
        a search pays two counts, not a scan.
        """
        import numpy as np

        row = self.conn.execute("SELECT value FROM meta WHERE key = 'vector_model'").fetchone()
        if row is None or row["value"] != self.embedder.name:
            with self.conn:
                self.conn.execute("DELETE FROM vectors")
                self.conn.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('vector_model', ?)", (self.embedder.name,)
                )
            self._cache = None
        docs, vectors = self.conn.execute(
            "SELECT (SELECT count(*) FROM docs), (SELECT count(*) FROM vectors)"
        ).fetchone()
        if docs == vectors:
            return 0
        missing = self.conn.execute(
            "SELECT id, text FROM docs WHERE id NOT IN (SELECT doc_id FROM vectors) ORDER BY id"
        ).fetchall()
        for start in range(0, len(missing), BATCH * 4):
            chunk = missing[start : start + BATCH * 4]
            embedded = self.embedder.embed([text for _, text in chunk])
            with self.conn:
                self.conn.executemany(
                    "INSERT OR REPLACE INTO vectors(doc_id, vec) VALUES (?, ?)",
                    [
                        (doc_id, _unit(np.asarray(v, np.float32)).tobytes())
                        for (doc_id, _), v in zip(chunk, embedded, strict=True)
                    ],
                )
            if progress is not None:
                progress(start + len(chunk), len(missing))
        self._cache = None
        return len(missing)

    def forget_loaded(self) -> None:
        """Entries changed: load the vectors again at the next search."""
        self._cache = None

    def _matrix(self) -> tuple[list[int], Matrix]:
        import numpy as np

        if self._cache is None:
            rows = self.conn.execute("SELECT doc_id, vec FROM vectors ORDER BY doc_id").fetchall()
            ids = [row["doc_id"] for row in rows]
            matrix = (
                np.vstack([np.frombuffer(row["vec"], np.float32) for row in rows])
                if rows
                else np.zeros((0, 1), np.float32)
            )
            self._cache = (ids, matrix)
        return self._cache

    def nearest(self, text: str, limit: int, allowed: set[int] | None = None) -> list[int]:
        """Ids of the entries closest in meaning to `text`, best first."""
        import numpy as np

        ids, matrix = self._matrix()
        if not ids:
            return []
        query = _unit(np.asarray(self.embedder.embed([text])[0], np.float32))
        if query.shape[0] != matrix.shape[1]:
            raise TrinhoError.keyed("error.embed.resized")
        scores = matrix @ query
        order = np.argsort(-scores)
        picked = []
        for i in order:
            doc_id = ids[int(i)]
            if allowed is None or doc_id in allowed:
                picked.append(doc_id)
                if len(picked) == limit:
                    break
        return picked


def _unit(vector: Matrix) -> Matrix:
    import numpy as np

    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector
