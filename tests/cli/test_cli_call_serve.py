"""`trinho call --serve`: one process answers many calls, one JSON line each, as `trinho call`
answers each alone; a bad line is refused in its answer and the loop goes on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FixedClock
from trinho.cli import cli, main
from trinho.errors import TrinhoError
from trinho.notes import store as notes_store
from trinho.tools.args import FIELDS, Request, parse_request, request_id
from trinho.workspace import init_workspace

NOTE = "Mẹ hẹn khám răng thứ Sáu 9 giờ"


def served(*requests: dict[str, Any] | str) -> list[dict[str, Any]]:
    lines = [r if isinstance(r, str) else json.dumps(r) for r in requests]
    result = CliRunner().invoke(cli, ["call", "--serve"], input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.output.splitlines()]


def alone(root: Path, tool: str, params: dict[str, Any], *flags: str) -> dict[str, Any]:
    result = CliRunner().invoke(
        cli, ["--workspace", str(root), "call", tool, *flags], input=json.dumps(params)
    )
    answer: dict[str, Any] = json.loads(result.output.splitlines()[-1])
    return answer


@pytest.fixture
def two(tmp_path: Path, clock: FixedClock, cli_env: dict[str, str]) -> tuple[Path, Path]:
    first = init_workspace(tmp_path / "a", clock=clock).workspace
    second = init_workspace(tmp_path / "b", clock=clock).workspace
    notes_store.save_note(first, NOTE)
    return first.root, second.root


def test_each_call_is_answered_as_trinho_call_answers_it(two: tuple[Path, Path]) -> None:
    a, b = two
    search = {"query": "kham rang", "maxResults": 5}
    before = alone(a, "memory_search", search, "--profile", "openclaw")
    answers = served(
        {"id": 1, "workspace": str(a), "tool": "memory_search", "params": search,
         "profile": "openclaw"},
        {"id": "two", "workspace": str(b), "tool": "memory_search", "params": search,
         "profile": "openclaw"},
        {"id": 3, "workspace": str(a), "tool": "memory_save", "params": {"txt": "x"}},
        {"id": 4, "workspace": str(a), "tool": "memory_save", "params": {"text": "Mua sữa"},
         "as": "job", "agent": "nightly"},
    )  # fmt: skip
    assert [answer["id"] for answer in answers] == [1, "two", 3, 4]
    first = answers[0]
    assert first["data"]["results"][0]["snippet"] == NOTE
    assert {k: v for k, v in first.items() if k != "id"} == before
    assert answers[1]["data"] == {"results": []}  # the other workspace's memory
    assert answers[2]["is_error"] and "text: required" in answers[2]["text"]
    assert not answers[3]["is_error"] and answers[3]["data"]["saved"].endswith("Mua sữa")
    # The kept index sees what was written after it opened.
    again = served(
        {"id": 5, "workspace": str(a), "tool": "memory_search", "params": {"query": "mua sua"}}
    )
    assert again[0]["data"]["hits"][0]["text"].endswith("Mua sữa")


def test_a_bad_line_is_answered_and_the_next_served(two: tuple[Path, Path]) -> None:
    a, _ = two
    good = {"id": 9, "workspace": str(a), "tool": "memory_search", "params": {"query": "x"}}
    answers = served(
        "not json",
        "[1, 2]",
        {"id": 7, "workspace": str(a), "tool": "memory_search", "as": "boss"},
        {"id": 8, "workspace": str(a / "nowhere"), "tool": "memory_search", "params": {}},
        {"id": 10, "workspace": str(a), "tool": "memory_search", "extra": 1},
        good,
    )
    assert [answer.get("id") for answer in answers] == [None, None, 7, 8, 10, 9]
    assert "not JSON" in answers[0]["error"] and "JSON object" in answers[1]["error"]
    assert "'as'" in answers[2]["error"] and str(a / "nowhere") in answers[3]["error"]
    assert "'extra'" in answers[4]["error"]
    assert answers[5]["is_error"] is False


def test_serve_takes_no_tool(cli_env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", "--serve", "memory_search"]) != 0
    assert "--serve" in capsys.readouterr().err
    assert main(["call"]) != 0
    assert "TOOL" in capsys.readouterr().err


texts = st.text(min_size=1, max_size=20)
requests = st.builds(
    Request,
    id=st.one_of(st.none(), st.integers(), texts),
    workspace=texts,
    tool=texts,
    params=st.dictionaries(texts, st.integers() | texts, max_size=3),
    kind=st.sampled_from(["chat", "job"]),
    agent=texts,
    profile=st.none() | texts,
)


@given(requests)
def test_a_request_line_reads_back_as_sent(request: Request) -> None:
    line = json.dumps(
        {
            "id": request.id,
            "workspace": request.workspace,
            "tool": request.tool,
            "params": request.params,
            "as": request.kind,
            "agent": request.agent,
            "profile": request.profile,
        }
    )
    assert parse_request(line) == request
    assert request_id(line) == request.id


@settings(max_examples=200)
@given(
    st.text(max_size=60)
    | st.dictionaries(
        st.sampled_from([*FIELDS, "x"]),
        st.from_type(type(None)) | st.integers() | st.text(max_size=5) | st.booleans(),
        max_size=4,
    ).map(json.dumps)
)
def test_any_line_is_a_request_or_one_keyed_refusal(line: str) -> None:
    try:
        parsed = parse_request(line)
    except TrinhoError as exc:
        assert exc.key is not None and exc.key.startswith("error.serve.")
        assert exc.localized("vi") != exc.localized("en")  # said in both catalogs
    else:
        assert parsed.workspace and parsed.tool and parsed.kind in ("chat", "job")
