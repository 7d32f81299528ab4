import json
import threading
from collections.abc import Iterator
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from conftest import FixedClock
from trinho.cli import main
from trinho.errors import TrinhoError
from trinho.notes.store import save_note
from trinho.search import Query, SearchIndex
from trinho.search.vectors import OpenAIEmbedder
from trinho.workspace import Workspace

# A toy model: each concept is one dimension, synonyms share it.
CONCEPTS = {"car": 0, "automobile": 0, "vehicle": 0, "dog": 1, "puppy": 1, "red": 2, "blue": 3}


def toy_vector(text: str) -> list[float]:
    vector = [0.0] * 5
    for word in text.lower().replace(".", " ").split():
        vector[CONCEPTS.get(word, 4)] += 1.0
    return vector


class FakeEmbeddings(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict[str, Any]]] = []
    status: ClassVar[int] = 200

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeEmbeddings.requests.append(
            {"path": self.path, "auth": self.headers.get("Authorization"), **body}
        )
        if self.status != 200:
            self.send_response(self.status)
            self.end_headers()
            return
        data = [{"index": i, "embedding": toy_vector(t)} for i, t in enumerate(body["input"])]
        payload = json.dumps({"data": list(reversed(data)), "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    FakeEmbeddings.requests = []
    FakeEmbeddings.status = 200
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeEmbeddings)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def test_adapter_posts_batches_and_keeps_input_order(server: str) -> None:
    embedder = OpenAIEmbedder(server, "toy", api_key="k")
    vectors = embedder.embed(["red car", "blue dog"])
    assert vectors == [toy_vector("red car"), toy_vector("blue dog")]
    sent = FakeEmbeddings.requests[0]
    assert sent["path"] == "/v1/embeddings" and sent["model"] == "toy"
    assert sent["auth"] == "Bearer k" and sent["input"] == ["red car", "blue dog"]


def test_adapter_errors_are_clear(server: str) -> None:
    FakeEmbeddings.status = 500
    with pytest.raises(TrinhoError, match="HTTP 500"):
        OpenAIEmbedder(server, "toy").embed(["x"])
    with pytest.raises(TrinhoError, match="cannot reach"):
        OpenAIEmbedder("http://127.0.0.1:9/v1", "toy", timeout=2).embed(["x"])


def test_hybrid_search_finds_by_meaning_and_respects_filters(
    server: str, workspace: Workspace, clock: FixedClock
) -> None:
    clock.set("2026-11-20T10:00:00+07:00")
    save_note(workspace, "My car is red.")
    clock.set("2026-11-21T10:00:00+07:00")
    save_note(workspace, "Walked the puppy.")
    embedder = OpenAIEmbedder(server, "toy")
    with SearchIndex(workspace, embedder=embedder) as index:
        assert index.search(Query("automobile"))[0].text == "My car is red."
        assert index.search(Query("dog"))[0].text == "Walked the puppy."
        only = index.search(Query("automobile", since=date(2026, 11, 21)))
        assert "My car is red." not in [h.text for h in only]
        # New entries are embedded on the next search; unchanged ones are not sent again.
        sent = sum(len(r["input"]) for r in FakeEmbeddings.requests if len(r["input"]) > 1)
        clock.set("2026-11-22T10:00:00+07:00")
        save_note(workspace, "Sold the vehicle.")
        assert "Sold the vehicle." in [h.text for h in index.search(Query("automobile"))]
        resent = [r["input"] for r in FakeEmbeddings.requests[-2:]]
        assert ["2026-11-22 Sold the vehicle."] in resent  # embedded with its day
        assert sent == 2
    with SearchIndex(workspace, embedder=embedder) as index:
        index.rebuild()
        assert index.search(Query("automobile"))[0].text in {"My car is red.", "Sold the vehicle."}


def test_configured_embedder_is_used_by_index_and_search_commands(
    server: str,
    workspace: Workspace,
    clock: FixedClock,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = workspace.internal / "config.toml"
    config.write_text(
        config.read_text(encoding="utf-8")
        + f'\n[search]\nembedder = "openai"\nbase_url = "{server}"\nmodel = "toy"\n',
        encoding="utf-8",
    )
    save_note(workspace, "My car is red.")
    save_note(workspace, "Walked the puppy.")
    monkeypatch.setenv("TRINHO_HOME", str(workspace.root))
    assert main(["index", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["embedded"] == 2
    assert main(["search", "automobile", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["text"] == "My car is red."
    config.write_text(config.read_text(encoding="utf-8").replace('"openai"', '"magic"'))
    assert main(["search", "automobile"]) == 1
    assert "embedder must be e5, local, openai or none" in capsys.readouterr().err
