"""The agent tools: dispatch by actor, readable errors, valid schemas, export formats."""

from __future__ import annotations

import json
import re
from typing import Any

import anthropic
import httpx2
import jsonschema
import mcp_types
import openai
import pydantic
import pytest
from anthropic.types import ToolParam
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.responses.function_tool_param import FunctionToolParam
from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

from conftest import FixedClock
from support.fake_model_server import (
    FakeServer,
    Reply,
    anthropic_reply,
    openai_reply,
    responses_problem,
    responses_reply,
    strict_problem,
)
from trinho import facts
from trinho.cli import cli
from trinho.clock import parse_day
from trinho.errors import TrinhoError
from trinho.models.base import ToolCall
from trinho.notes import store as notes_store
from trinho.notes.store import read_notes
from trinho.proposals import store as proposals
from trinho.textnorm import SLUG_PATTERN
from trinho.tools import args as jsonargs
from trinho.tools import service as tools
from trinho.tools.service import Actor, call
from trinho.workspace import CONFIG_PATH, Workspace, open_workspace

CHAT = Actor("chat", "main")
JOB = Actor("job", "nightly")
EVERY_TOOL = tools.TOOLS + tuple(t for t in tools.OPENCLAW_TOOLS if t not in tools.TOOLS)


def test_memory_save_appends_a_timestamped_line_for_both_actors(workspace: Workspace) -> None:
    first = call(workspace, "memory_save", {"text": "Mẹ hẹn khám răng thứ Sáu"}, CHAT)
    second = call(workspace, "memory_save", '{"text": "Nightly: đã sao lưu ảnh"}', JOB)
    assert not first.is_error and not second.is_error
    assert first.data == {
        "saved": "- 14:05 Mẹ hẹn khám răng thứ Sáu",
        "path": "memory/2026-11-29.md",
        "line": 1,
        "date": "2026-11-29",
        "time": "14:05",
    }
    assert json.loads(first.text) == first.data
    entries = read_notes(workspace, workspace.today()).entries
    assert [e.text for e in entries] == ["Mẹ hẹn khám răng thứ Sáu", "Nightly: đã sao lưu ảnh"]


def test_a_note_cannot_forge_a_second_entry(workspace: Workspace) -> None:
    result = call(workspace, "memory_save", {"text": "one\n- 09:00 forged"}, CHAT)
    assert not result.is_error
    assert len(read_notes(workspace, workspace.today()).entries) == 1


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({}, "text: required but missing"),
        ({"text": 42}, "text: must be a string, got 42"),
        ({"text": ""}, "text: must not be empty"),
        ({"text": "x" * 10_001}, "text: is 10,001 characters; the limit is 10,000"),
        ({"text": "ok", "when": "now"}, "when: not an argument of this tool (known: text)"),
        ("{not json", "arguments are not valid JSON"),
        ("[1, 2]", "arguments must be a JSON object"),
        (["text"], "arguments must be a JSON object"),
    ],
)
def test_bad_arguments_come_back_as_readable_errors(
    workspace: Workspace, args: Any, expected: str
) -> None:
    result = call(workspace, "memory_save", args, CHAT)
    assert result.is_error
    assert result.data is None
    assert result.text.startswith("memory_save: ")
    assert expected in result.text
    assert not workspace.note_path(workspace.today()).exists()


def test_rules_of_the_store_come_back_as_errors_too(workspace: Workspace) -> None:
    result = call(workspace, "memory_save", {"text": "   \n  "}, CHAT)
    assert result.is_error
    assert "empty note" in result.text


def test_several_problems_are_all_named(workspace: Workspace) -> None:
    result = call(workspace, "memory_search", {"query": "", "limit": 0, "kinds": ["notes"]}, CHAT)
    assert result.is_error
    assert "query: must not be empty" in result.text
    assert "limit: must be from 1 to 50, got 0" in result.text
    assert "kinds[0]: must be one of 'note', 'memory', 'fact', 'conversation'" in result.text


def test_null_for_an_optional_argument_means_not_given(workspace: Workspace) -> None:
    assert not call(workspace, "memory_save", {"text": "Đi bơi lúc 6 giờ"}, CHAT).is_error
    nulls = {"query": "boi", "limit": None, "since": None, "until": None, "kinds": None}
    result = call(workspace, "memory_search", json.dumps(nulls), CHAT)
    assert not result.is_error, result.text
    assert result.data is not None and result.data["count"] == 1
    missing = call(workspace, "memory_search", {"query": None}, CHAT)
    assert missing.is_error
    assert "query: must be a string, got None" in missing.text


def save_fact(ws: Workspace, actor: Actor, **args: str) -> dict[str, Any]:
    result = call(ws, "user_memory_save", args, actor)
    assert not result.is_error, result.text
    assert result.data is not None
    return result.data


def test_user_memory_save_for_both_actors(workspace: Workspace) -> None:
    created = save_fact(workspace, CHAT, key="home_city", value="Đà Nẵng", basis="user")
    assert created["outcome"] == "created"
    assert created["current_value"] == "Đà Nẵng"
    again = save_fact(workspace, CHAT, key="home_city", value="Đà Nẵng", basis="user")
    assert again["outcome"] == "unchanged"
    by_job = save_fact(workspace, JOB, key="home_city", value="Huế", basis="inferred")
    assert by_job["outcome"] == "proposed"
    assert by_job["current_value"] == "Đà Nẵng"
    assert "proposal_id" in by_job and "waits for the owner" in by_job["note"]
    job_new = save_fact(workspace, JOB, key="pet", value="mèo", basis="user")
    assert job_new["outcome"] == "proposed", "a job never writes a fact, even a new one"
    guess = save_fact(workspace, CHAT, key="home_city", value="Hà Nội", basis="inferred")
    assert guess["outcome"] == "proposed", "an inference never replaces the owner's word"
    moved = save_fact(
        workspace, CHAT, key="home_city", value="Hà Nội", basis="user", valid_from="2026-11-29"
    )
    assert moved["outcome"] == "superseded"
    assert moved["current_value"] == "Hà Nội"
    fact = facts.get_fact(workspace, "home_city")
    assert [v.value for v in fact.versions()] == ["Đà Nẵng", "Hà Nội"]

    listed = call(workspace, "memory_proposals", {}, JOB)
    assert listed.data is not None
    assert listed.data["count"] == 3
    by_id = {p["id"]: p for p in listed.data["proposals"]}
    assert set(by_id) == {by_job["proposal_id"], job_new["proposal_id"], guess["proposal_id"]}
    first = by_id[by_job["proposal_id"]]
    assert first["status"] == "pending" and first["origin"] == "job:nightly"
    assert first["kind"] == "fact" and first["reason"]
    assert "content_hash" not in first
    assert {p["origin"] for p in listed.data["proposals"]} == {"job:nightly", "agent:main"}


def test_memory_proposals_can_include_decided_ones(workspace: Workspace) -> None:
    proposed = save_fact(workspace, JOB, key="pet", value="mèo", basis="user")
    proposals.reject(workspace, proposed["proposal_id"], by="owner", reason="không nuôi mèo")
    assert call(workspace, "memory_proposals", {}, CHAT).data == {"proposals": [], "count": 0}
    everything = call(workspace, "memory_proposals", {"include_decided": True}, CHAT).data
    assert everything is not None
    assert [p["status"] for p in everything["proposals"]] == ["rejected"]


def test_a_fact_for_another_user(workspace: Workspace) -> None:
    actor = Actor("chat", "main", user="bao")
    save_fact(workspace, actor, key="school", value="Trường Lê Lợi", basis="user")
    assert facts.get_fact(workspace, "school", user="bao").head is not None
    with pytest.raises(TrinhoError):
        facts.get_fact(workspace, "school")


def test_memory_search_and_get(workspace: Workspace, clock: FixedClock) -> None:
    call(workspace, "memory_save", {"text": "Hẹn nha sĩ ở Hà Nội thứ Sáu"}, CHAT)
    clock.advance(days=1)
    call(workspace, "memory_save", {"text": "Mua vé tàu đi Huế"}, CHAT)
    save_fact(workspace, CHAT, key="home_city", value="Hà Nội", basis="user")
    found = call(workspace, "memory_search", {"query": "ha noi"}, JOB)
    assert not found.is_error and found.data is not None
    kinds = {hit["kind"] for hit in found.data["hits"]}
    assert {"note", "fact"} <= kinds
    note = next(hit for hit in found.data["hits"] if hit["kind"] == "note")
    assert note["path"] == "memory/2026-11-29.md" and note["line"] == 1
    only_facts = call(workspace, "memory_search", {"query": "Hà Nội", "kinds": ["fact"]}, CHAT)
    assert only_facts.data is not None
    assert {hit["kind"] for hit in only_facts.data["hits"]} == {"fact"}
    later = call(workspace, "memory_search", {"query": "Hà Nội", "since": "2026-11-30"}, CHAT)
    assert later.data is not None
    assert all(hit["kind"] != "note" for hit in later.data["hits"])
    nothing = call(workspace, "memory_search", {"query": "xylophone"}, CHAT)
    assert nothing.data is not None and nothing.data["count"] == 0 and "note" in nothing.data

    got = call(workspace, "memory_get", {"path": note["path"], "from_line": 1, "lines": 5}, CHAT)
    assert got.data == {
        "path": "memory/2026-11-29.md",
        "from_line": 1,
        "to_line": 1,
        "total_lines": 1,
        "text": "- 14:05 Hẹn nha sĩ ở Hà Nội thứ Sáu",
    }


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (".trinho/config.toml", "is internal state, not memory"),
        ("memory/../.trinho/config.toml", "must be relative to the workspace and stay inside it"),
        ("../outside.md", "must be relative to the workspace and stay inside it"),
        ("/etc/passwd", "must be relative to the workspace and stay inside it"),
        ("memory/1999-01-01.md", "no such file"),
    ],
)
def test_memory_get_reads_memory_only(workspace: Workspace, path: str, expected: str) -> None:
    result = call(workspace, "memory_get", {"path": path}, CHAT)
    assert result.is_error
    assert expected in result.text


def test_memory_get_refuses_a_link_into_internal_state(workspace: Workspace) -> None:
    (workspace.root / "memory" / "link.md").symlink_to(workspace.root / ".trinho" / "config.toml")
    result = call(workspace, "memory_get", {"path": "memory/link.md"}, CHAT)
    assert result.is_error and "a link into .trinho/" in result.text


def test_dates_are_checked_as_calendar_dates(workspace: Workspace) -> None:
    args = {"key": "trip", "value": "Tokyo", "basis": "user", "valid_to": "2026-02-30"}
    result = call(workspace, "user_memory_save", args, CHAT)
    assert result.is_error
    assert "valid_to: '2026-02-30' is not a calendar date (YYYY-MM-DD)" in result.text


def test_unknown_tool_names_the_tools(workspace: Workspace) -> None:
    result = call(workspace, "memory_delete", {}, CHAT)
    assert result.is_error
    assert "unknown tool 'memory_delete'" in result.text
    assert "memory_save" in result.text


def test_no_tool_decides_proposals() -> None:
    for tool in tools.TOOLS:
        assert "approve" not in tool.parameters["properties"]
        assert not tool.name.startswith(("approve", "reject"))
    assert tools.BY_NAME["memory_proposals"].read_only


def test_an_unexpected_failure_never_reaches_the_host(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(ws: Workspace, text: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(notes_store, "save_note", broken)
    result = call(workspace, "memory_save", {"text": "hello"}, CHAT)
    assert result.is_error
    assert result.text == "memory_save: no space left on the disk: free some space and try again"


def test_actor_names_are_slugs() -> None:
    with pytest.raises(TrinhoError, match="invalid agent name"):
        Actor("chat", "../etc")
    with pytest.raises(TrinhoError, match="actor kind"):
        Actor("cron", "main")  # type: ignore[arg-type]
    assert Actor("job", "nightly").origin == "job:nightly"
    assert Actor().origin == "agent:main"


@pytest.mark.parametrize("tool", EVERY_TOOL, ids=lambda tool: tool.name)
def test_schemas_are_valid_json_schema_within_the_checked_subset(tool: tools.MemoryTool) -> None:
    jsonschema.Draft202012Validator.check_schema(dict(tool.parameters))
    assert jsonargs.unknown_keywords(tool.parameters) == set()
    assert tool.parameters["type"] == "object"
    assert tool.parameters["additionalProperties"] is False
    for name, prop in tool.parameters["properties"].items():
        assert prop.get("description"), f"{tool.name}.{name} has no description"
    assert len(tool.description) > 80
    assert not (tool.read_only and tool.destructive)


def test_export_formats() -> None:
    openai = tools.export("openai")
    anthropic = tools.export("anthropic")
    names = [tool.name for tool in tools.TOOLS]
    assert names == [
        "memory_save",
        "user_memory_save",
        "memory_search",
        "memory_get",
        "memory_proposals",
    ]
    assert [t["function"]["name"] for t in openai] == names
    assert all(set(t) == {"type", "function"} and t["type"] == "function" for t in openai)
    assert all(set(t["function"]) == {"name", "description", "parameters"} for t in openai)
    assert [t["name"] for t in anthropic] == names
    assert all(set(t) == {"name", "description", "input_schema"} for t in anthropic)
    assert openai[0]["function"]["parameters"] == tools.sent_schema(tools.TOOLS[0].parameters)
    assert anthropic[0]["input_schema"]["required"] == ["text"]
    with pytest.raises(TrinhoError, match="unknown tool format"):
        tools.export("gemini")


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_cli_prints_the_tools(fmt: str) -> None:
    result = CliRunner().invoke(cli, ["tools", "--format", fmt])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == tools.export(fmt)


def patterns_in(schema: object, where: str = "") -> list[tuple[str, str]]:
    """Every `pattern` string in a JSON schema, with where it is."""
    if isinstance(schema, dict):
        here = [(where, schema["pattern"])] if isinstance(schema.get("pattern"), str) else []
        return here + [p for k, v in schema.items() for p in patterns_in(v, f"{where}/{k}")]
    if isinstance(schema, list):
        return [p for i, v in enumerate(schema) for p in patterns_in(v, f"{where}/{i}")]
    return []


def exported_patterns() -> list[tuple[str, str]]:
    """The patterns of every tool as `trinho tools --format F` prints it, for every format."""
    found: list[tuple[str, str]] = []
    for fmt in tools.FORMATS:
        for profile in tools.PROFILES:
            result = CliRunner().invoke(cli, ["tools", "--format", fmt, "--profile", profile])
            assert result.exit_code == 0, result.output
            found += patterns_in(json.loads(result.output), f"{fmt}/{profile}")
    specs = [dict(s.parameters) for p in tools.PROFILES for s in tools.model_specs(p)]
    return found + patterns_in(specs, "model_specs")


def test_no_exported_pattern_holds_a_backslash_escape() -> None:
    """llama.cpp turns tool schemas into a grammar whose parser knows no class escape: `\\d`
    fails ("unknown escape at \\d") and a forced tool call crashes the server. Spell classes
    out (`[0-9]`, `[.]`); with no backslash at all, no server's converter can trip."""
    found = exported_patterns()
    assert {pattern for _, pattern in found} == set(PATTERNS_BEFORE)
    for where, pattern in found:
        assert "\\" not in pattern, f"{where}: {pattern!r} has a backslash escape"


PATTERNS_BEFORE = {
    "^[0-9]{4}-[0-9]{2}-[0-9]{2}$": r"^\d{4}-\d{2}-\d{2}$",
    SLUG_PATTERN: SLUG_PATTERN,
}
"""Each exported pattern, and the one it replaced: JSON Schema reads `\\d` as ASCII digits."""

near_patterns = st.text(st.sampled_from("0123456789-_az\n ٣１"), max_size=14)


@pytest.mark.parametrize(("pattern", "before"), sorted(PATTERNS_BEFORE.items()))
@given(data=st.data())
def test_each_pattern_matches_and_refuses_what_it_did(
    pattern: str, before: str, data: st.DataObject
) -> None:
    text = data.draw(near_patterns | st.from_regex(before) | st.text(max_size=10))
    assert bool(re.search(pattern, text)) == bool(re.search(before, text, flags=re.ASCII))
    schema = {"type": "string", "pattern": pattern}
    assert (jsonargs.check(text, schema) == []) == bool(re.search(pattern, text))


def test_dates_with_other_digits_are_refused_by_the_schema_as_by_parse_day() -> None:
    date = "\u0662\u0660\u0662\u0666-11-29"  # Arabic-Indic digits: Python's \d takes them
    assert re.search(r"^\d{4}-\d{2}-\d{2}$", date)
    assert not re.search(tools.DATE["pattern"], date)
    assert re.search(tools.DATE["pattern"], "2026-11-29")
    with pytest.raises(TrinhoError, match="not a calendar date"):
        parse_day(date, "date")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 60) | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children)
    ),
    max_leaves=8,
)


def argument_dicts(tool: tools.MemoryTool) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments near the schema: its own property names with plausible and implausible values."""
    names = [*tool.parameters["properties"], "extra"]
    plausible = st.sampled_from(
        ["", "x", "2026-11-29", "2026-02-30", "home_city", "user", "note", "BAD KEY", 1, 0, 51]
    )
    value = plausible | json_values | st.lists(plausible, max_size=5)
    return st.dictionaries(st.sampled_from(names), value, max_size=len(names))


@pytest.mark.parametrize("tool", EVERY_TOOL, ids=lambda tool: tool.name)
@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_checker_agrees_with_jsonschema(tool: tools.MemoryTool, data: st.DataObject) -> None:
    args = data.draw(argument_dicts(tool))
    validator = jsonschema.Draft202012Validator(
        dict(tool.parameters), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    assert (jsonargs.check(args, tool.parameters) == []) == validator.is_valid(args)


def test_bridge_to_the_model_backends(workspace: Workspace) -> None:
    specs = tools.model_specs()
    assert [spec.name for spec in specs] == [tool.name for tool in tools.TOOLS]
    assert specs[0].parameters == tools.sent_schema(tools.TOOLS[0].parameters)
    good = ToolCall("c1", "memory_save", {"text": "từ mô hình"})
    assert not tools.call_model_tool(workspace, good, CHAT).is_error
    broken = ToolCall("c2", "memory_save", {}, error="arguments are not valid JSON")
    result = tools.call_model_tool(workspace, broken, CHAT)
    assert result.is_error and result.text == "memory_save: arguments are not valid JSON"
    assert len(read_notes(workspace, workspace.today()).entries) == 1


def test_no_schema_sent_to_a_model_bounds_a_string_beyond_what_a_grammar_survives() -> None:
    """llama.cpp turns `maxLength` into one nested optional per character; 2,000 crashed its
    server when a tool was forced. The dispatcher still enforces the declared bound."""

    def lengths(schema: object) -> list[int]:
        if isinstance(schema, dict):
            here = [schema["maxLength"]] if "maxLength" in schema else []
            return here + [n for v in schema.values() for n in lengths(v)]
        if isinstance(schema, list):
            return [n for v in schema for n in lengths(v)]
        return []

    sent: list[object] = [tools.export(fmt) for fmt in tools.FORMATS]
    sent.append([dict(spec.parameters) for spec in tools.model_specs()])
    assert max(lengths(sent)) <= tools.SENT_MAX_LENGTH
    assert "At most 10,000 characters." in json.dumps(sent[0])


def test_the_dispatcher_keeps_the_bound_the_sent_schema_only_describes(
    workspace: Workspace,
) -> None:
    result = call(workspace, "memory_save", {"text": "x" * 10_001}, CHAT)
    assert result.is_error and "the limit is 10,000" in result.text


# ---- the formats, checked with the SDKs' own types, offline ---------------------------------

STRICT_FORMATS = ("openai-strict", "responses")


def strict_parameters(fmt: str) -> list[dict[str, Any]]:
    exported = tools.export(fmt)
    return [
        t["function"]["parameters"] if fmt == "openai-strict" else t["parameters"] for t in exported
    ]


@pytest.mark.parametrize("fmt", STRICT_FORMATS)
def test_strict_exports_keep_to_the_strict_subset(fmt: str) -> None:
    for schema, tool in zip(strict_parameters(fmt), tools.TOOLS, strict=True):
        assert strict_problem(schema) is None, tool.name
        jsonschema.Draft202012Validator.check_schema(schema)
        nulls = {name: None for name in schema["properties"]}
        everything_left_out = {**nulls, **VALID_ARGS[tool.name]}
        assert jsonschema.Draft202012Validator(schema).is_valid(everything_left_out)
    problems = [strict_problem(t["function"]["parameters"]) for t in tools.export("openai")]
    assert "Missing 'valid_from'" in str(problems[1]), "the check would see a non-strict schema"
    assert "'minLength' is not permitted" in str(problems[0])


def test_strict_descriptions_say_what_the_dispatcher_still_checks() -> None:
    text = tools.export("openai-strict")[0]["function"]["parameters"]["properties"]["text"]
    assert text == {
        "type": "string",
        "description": "What to remember, e.g. 'Mẹ hẹn khám răng thứ Sáu 9 giờ'. "
        "(1 to 10,000 characters)",
    }
    checked = jsonargs.check({"text": "x" * 10_001}, tools.BY_NAME["memory_save"].parameters)
    assert checked == ["text: is 10,001 characters; the limit is 10,000"]


def recording_transport(reply: dict[str, Any], seen: list[dict[str, Any]]) -> httpx2.MockTransport:
    def handle(request: httpx2.Request) -> httpx2.Response:
        seen.append(json.loads(request.content))
        return httpx2.Response(200, json=reply)

    return httpx2.MockTransport(handle)


def test_chat_completions_parse_accepts_the_strict_export() -> None:
    seen: list[dict[str, Any]] = []
    arguments = json.dumps(
        {**{n: None for n in ("limit", "since", "until", "kinds")}, "query": "x"}
    )
    reply = openai_reply(
        None,
        [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "memory_search", "arguments": arguments},
            }
        ],
    )
    client = openai.OpenAI(
        api_key="k",
        base_url="http://model.invalid/v1",
        http_client=httpx2.Client(transport=recording_transport(reply, seen)),
    )
    exported = tools.export("openai-strict")
    parsed = client.chat.completions.parse(
        model="m",
        messages=[{"role": "user", "content": "hi"}],
        tools=exported,  # type: ignore[arg-type]
    )
    calls = parsed.choices[0].message.tool_calls
    assert calls is not None and calls[0].type == "function"
    assert calls[0].function.parsed_arguments == json.loads(arguments)
    assert seen[0]["tools"] == exported
    with pytest.raises(ValueError, match="memory_save` is not strict"):
        client.chat.completions.parse(
            model="m",
            messages=[{"role": "user", "content": "hi"}],
            tools=tools.export("openai"),  # type: ignore[arg-type]
        )


def test_responses_request_bodies_validate_against_the_sdk_types() -> None:
    exported = tools.export("responses")
    for tool in exported:
        pydantic.TypeAdapter(FunctionToolParam).validate_python(tool, strict=True)
    body = {"model": "m", "input": "hi", "tools": exported}
    pydantic.TypeAdapter(ResponseCreateParamsNonStreaming).validate_python(body)
    seen: list[dict[str, Any]] = []
    output = [
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "memory_save",
            "arguments": '{"text": "x"}',
            "status": "completed",
        }
    ]
    client = openai.OpenAI(
        api_key="k",
        base_url="http://model.invalid/v1",
        http_client=httpx2.Client(transport=recording_transport(responses_reply(output), seen)),
    )
    response = client.responses.create(model="m", input="hi", tools=exported)  # type: ignore[arg-type]
    assert seen[0]["tools"] == exported
    assert responses_problem(seen[0]) is None
    assert response.output[0].type == "function_call"
    chat_shaped = {**body, "tools": tools.export("openai")}
    assert responses_problem(chat_shaped) == "Unknown parameter: 'tools[0].function'."


def without_type_beside_enum(schema: Any) -> Any:
    """`transform_schema` keeps an enum and drops the `type` beside it, which says nothing more."""
    if isinstance(schema, dict):
        return {
            k: without_type_beside_enum(v)
            for k, v in schema.items()
            if not (k == "type" and "enum" in schema)
        }
    return schema


@pytest.mark.parametrize("tool", tools.export("anthropic"), ids=lambda tool: tool["name"])
def test_anthropic_transform_schema_leaves_every_constraint_in_place(tool: dict[str, Any]) -> None:
    schema = tool["input_schema"]
    assert anthropic.transform_schema(schema) == without_type_beside_enum(schema)
    pydantic.TypeAdapter(ToolParam).validate_python({**tool, "strict": True})


def test_anthropic_export_says_the_constraints_strict_mode_drops() -> None:
    save = tools.export("anthropic")[1]["input_schema"]["properties"]
    assert save["key"]["description"].endswith("(matching ^[a-z0-9][a-z0-9_-]{0,63}$)")
    assert "pattern" not in save["key"]
    assert set(save["valid_to"]) == {"type", "format", "description"}


def test_mcp_export_is_what_tools_list_gives() -> None:
    listed = [mcp_types.Tool.model_validate(tool) for tool in tools.export("mcp")]
    assert [tool.name for tool in listed] == [tool.name for tool in tools.TOOLS]
    assert all(
        tool.input_schema == tools.sent_schema(t.parameters)
        for tool, t in zip(listed, tools.TOOLS, strict=True)
    )
    assert listed[2].annotations is not None and listed[2].annotations.read_only_hint is True


def test_an_invalid_call_tells_the_model_how_to_call(workspace: Workspace) -> None:
    result = call(workspace, "memory_search", {"query": "", "limit": 99, "kinds": "note"}, CHAT)
    assert result.text == (
        "memory_search: invalid arguments: query: must not be empty; limit: must be from 1 to 50, "
        "got 99; kinds: must be a list, got 'note'. Fix them and call memory_search again; it "
        "takes query (required, text, 1 to 2,000 characters); limit (optional, integer, from 1 "
        "to 50); since (optional, date YYYY-MM-DD); until (optional, date YYYY-MM-DD); kinds "
        "(optional, list of 'note', 'memory', 'fact', 'conversation', at most 4 items, no item "
        "twice); an optional one may be left out or null."
    )
    bare = call(workspace, "memory_proposals", {"all": True}, CHAT)
    assert bare.text.endswith(
        "it takes include_decided (optional, true or false); an optional "
        "one may be left out or null."
    )


VALID_ARGS: dict[str, dict[str, Any]] = {
    "memory_save": {"text": "Mẹ hẹn khám răng thứ Sáu"},
    "user_memory_save": {"key": "home_city", "value": "Đà Nẵng", "basis": "user"},
    "memory_search": {"query": "khám răng"},
    "memory_get": {"path": "memory/2026-11-29.md"},  # the note memory_save wrote
    "memory_proposals": {},
}
INVALID_ARGS: dict[str, dict[str, Any]] = {
    "memory_save": {"text": ""},
    "user_memory_save": {"key": "Home City", "value": "x", "basis": "guess"},
    "memory_search": {"query": "x", "limit": 0},
    "memory_get": {"path": "MEMORY.md", "lines": 0},
    "memory_proposals": {"include_decided": "yes"},
}


def every_call() -> list[tuple[str, str, dict[str, Any]]]:
    """(call id, tool, arguments): each tool with valid arguments, with every optional one
    null, and with invalid ones."""
    calls = []
    for tool in tools.TOOLS:
        optional = set(tool.parameters["properties"]) - set(tool.parameters["required"])
        nulls = {**VALID_ARGS[tool.name], **dict.fromkeys(sorted(optional))}
        for kind, args in (("valid", VALID_ARGS[tool.name]), ("null", nulls)):
            calls.append((f"{tool.name}-{kind}", tool.name, args))
        calls.append((f"{tool.name}-invalid", tool.name, INVALID_ARGS[tool.name]))
    return calls


def check_results(results: dict[str, tools.ToolResult]) -> None:
    for call_id, result in results.items():
        if call_id.endswith("-invalid"):
            assert result.is_error, call_id
            assert "Fix them and call" in result.text, call_id
        else:
            assert not result.is_error, (call_id, result.text)


def chat_tools(fmt: str) -> list[dict[str, Any]]:
    """The export as Chat Completions tools; MCP tools converted the way MCP bridges do."""
    if fmt != "mcp":
        return tools.export(fmt)
    return [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t["description"],
                "parameters": t["inputSchema"],
            },
        }
        for t in tools.export("mcp")
    ]


def chat_round_trip(ws: Workspace, fmt: str) -> tuple[dict[str, tools.ToolResult], list[Any]]:
    calls = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, n, a in every_call()
    ]
    replies = (Reply(openai_reply(None, calls)), Reply(openai_reply("Đã ghi.")))
    with FakeServer(*replies) as server:
        client = openai.OpenAI(api_key="k", base_url=f"{server.url}/v1", max_retries=0)
        messages: list[Any] = [{"role": "user", "content": "Nhớ giúp mình lịch khám răng"}]
        exported: Any = chat_tools(fmt)
        first = client.chat.completions.create(model="m", messages=messages, tools=exported)
        message = first.choices[0].message
        # llama.cpp refuses a null content beside tool calls, so it goes as ""
        messages.append({**message.model_dump(exclude_none=True), "content": ""})
        results = {}
        for tool_call in message.tool_calls or ():
            assert tool_call.type == "function"
            result = call(ws, tool_call.function.name, tool_call.function.arguments, CHAT)
            results[tool_call.id] = result
            messages.append({"role": "tool", "tool_call_id": tool_call.id, "content": result.text})
        final = client.chat.completions.create(model="m", messages=messages, tools=exported)
        assert final.choices[0].message.content == "Đã ghi."
        return results, [seen.body for seen in server.posts]


def responses_round_trip(ws: Workspace) -> tuple[dict[str, tools.ToolResult], list[Any]]:
    output = [
        {
            "type": "function_call",
            "id": f"fc_{i}",
            "call_id": i,
            "name": n,
            "arguments": json.dumps(a),
        }
        for i, n, a in every_call()
    ]
    done = [
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Đã ghi.", "annotations": []}],
        }
    ]
    with FakeServer(Reply(responses_reply(output)), Reply(responses_reply(done))) as server:
        client = openai.OpenAI(api_key="k", base_url=f"{server.url}/v1", max_retries=0)
        exported = tools.export("responses")
        items: list[Any] = [{"role": "user", "content": "Nhớ giúp mình lịch khám răng"}]
        first = client.responses.create(model="m", input=items, tools=exported)  # type: ignore[arg-type]
        results = {}
        for item in first.output:
            assert item.type == "function_call"
            items.append(
                {
                    "type": "function_call",
                    "call_id": item.call_id,
                    "name": item.name,
                    "arguments": item.arguments,
                }
            )
            result = call(ws, item.name, item.arguments, CHAT)
            results[item.call_id] = result
            items.append(
                {"type": "function_call_output", "call_id": item.call_id, "output": result.text}
            )
        final = client.responses.create(model="m", input=items, tools=exported)  # type: ignore[arg-type]
        assert final.output_text == "Đã ghi."
        return results, [seen.body for seen in server.posts]


def anthropic_round_trip(ws: Workspace) -> tuple[dict[str, tools.ToolResult], list[Any]]:
    uses = [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in every_call()]
    replies = (
        Reply(anthropic_reply(uses, stop="tool_use")),
        Reply(anthropic_reply([{"type": "text", "text": "Đã ghi."}])),
    )
    with FakeServer(*replies) as server:
        client = anthropic.Anthropic(api_key="k", base_url=server.url, max_retries=0)
        exported = [{**tool, "strict": True} for tool in tools.export("anthropic")]
        messages: list[Any] = [{"role": "user", "content": "Nhớ giúp mình lịch khám răng"}]
        first = client.messages.create(model="m", max_tokens=100, messages=messages, tools=exported)  # type: ignore[arg-type]
        messages.append(
            {
                "role": "assistant",
                "content": [b.model_dump(exclude_none=True) for b in first.content],
            }
        )
        results = {}
        answers = []
        for block in first.content:
            assert block.type == "tool_use"
            result = call(ws, block.name, block.input, CHAT)
            results[block.id] = result
            answers.append(
                {
                    "type": "tool_result",
                    "tool_use_id": block.id,
                    "content": result.text,
                    "is_error": result.is_error,
                }
            )
        messages.append({"role": "user", "content": answers})
        final = client.messages.create(model="m", max_tokens=100, messages=messages, tools=exported)  # type: ignore[arg-type]
        assert final.content[0].type == "text" and final.content[0].text == "Đã ghi."
        return results, [seen.body for seen in server.posts]


@pytest.mark.parametrize("fmt", tools.FORMATS)
def test_round_trip_through_a_fake_server_with_every_tool(workspace: Workspace, fmt: str) -> None:
    """Valid, null and invalid arguments for every tool, through the SDK and a server that
    refuses what the real one would (strict schemas outside the subset included)."""
    if fmt == "responses":
        results, bodies = responses_round_trip(workspace)
    elif fmt == "anthropic":
        results, bodies = anthropic_round_trip(workspace)
    else:
        results, bodies = chat_round_trip(workspace, fmt)
    assert len(bodies) == 2
    assert list(results) == [call_id for call_id, _, _ in every_call()]
    check_results(results)
    saved = [e.text for e in read_notes(workspace, workspace.today()).entries]
    assert saved == ["Mẹ hẹn khám răng thứ Sáu"] * 2
    assert facts.get_fact(workspace, "home_city").head is not None


OPENCLAW = "openclaw"


def openclaw_parameters(fmt: str) -> dict[str, list[str]]:
    """The argument names of memory_search and memory_get in the openclaw export."""
    listed = tools.export(fmt, OPENCLAW)
    found: dict[str, list[str]] = {}
    for tool in listed:
        spec = tool.get("function", tool)
        schema = spec.get("parameters") or spec.get("input_schema") or spec.get("inputSchema")
        found[spec["name"]] = list(schema["properties"])
    return found


@pytest.mark.parametrize("fmt", tools.FORMATS)
def test_the_openclaw_profile_takes_openclaws_argument_names(fmt: str) -> None:
    names = openclaw_parameters(fmt)
    assert list(names) == [t.name for t in tools.TOOLS]
    assert names["memory_search"] == ["query", "maxResults", "minScore", "corpus"]
    assert names["memory_get"] == ["path", "from", "lines", "corpus"]
    default = tools.export(fmt)
    for mine, theirs in zip(default, tools.export(fmt, OPENCLAW), strict=True):
        name = mine.get("function", mine)["name"]
        if name not in ("memory_search", "memory_get"):
            assert mine == theirs


def test_the_default_profile_is_trinhos_own() -> None:
    assert tools.export("mcp", "default") == tools.export("mcp")
    assert tools.profile_tools("default") == tools.TOOLS
    assert tools.model_specs("default") == tools.model_specs()
    assert [s.name for s in tools.model_specs(OPENCLAW)] == [t.name for t in tools.TOOLS]


def test_an_unknown_profile_is_a_keyed_error(workspace: Workspace) -> None:
    with pytest.raises(TrinhoError, match="unknown tool profile 'hermes'"):
        tools.export("openai", "hermes")
    with pytest.raises(TrinhoError, match="unknown tool profile"):
        tools.model_specs("hermes")
    result = call(workspace, "memory_search", {"query": "x"}, CHAT, "hermes")
    assert result.is_error and "unknown tool profile 'hermes'" in result.text


def openclaw_workspace(workspace: Workspace, clock: FixedClock) -> None:
    call(workspace, "memory_save", {"text": "Hẹn nha sĩ ở Hà Nội thứ Sáu"}, CHAT)
    clock.advance(days=1)
    save_fact(workspace, CHAT, key="home_city", value="Hà Nội", basis="user")
    (workspace.root / "conversations").mkdir(exist_ok=True)
    turn = {"role": "user", "text": "Tôi sẽ bay ra Hà Nội", "at": "2026-11-30T09:00:00+07:00"}
    (workspace.root / "conversations" / "2026-11-30.jsonl").write_text(
        json.dumps(turn, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def test_openclaw_memory_search_answers_in_openclaws_shape(
    workspace: Workspace, clock: FixedClock
) -> None:
    openclaw_workspace(workspace, clock)
    found = call(workspace, "memory_search", {"query": "ha noi", "maxResults": 10}, CHAT, OPENCLAW)
    assert not found.is_error and found.data is not None
    assert list(found.data) == ["results"]
    results = found.data["results"]
    assert results
    assert all(
        list(r) == ["path", "startLine", "endLine", "score", "snippet", "source"] for r in results
    )
    note = next(r for r in results if r["path"] == "memory/2026-11-29.md")
    assert note["startLine"] == note["endLine"] == 1 and note["source"] == "memory"
    assert "Hà Nội" in note["snippet"]
    by_path = {r["path"]: r["source"] for r in results}
    sessions = [path for path, source in by_path.items() if source == "sessions"]
    assert sessions and all(path.startswith("conversations/") for path in sessions)
    assert json.loads(found.text) == found.data
    default = call(workspace, "memory_search", {"query": "ha noi"}, CHAT)
    assert default.data is not None
    assert [r["score"] for r in results] == [h["score"] for h in default.data["hits"]]
    everything = call(
        workspace, "memory_search", {"query": "ha noi", "corpus": "all"}, CHAT, OPENCLAW
    )
    assert everything.data == found.data


def test_openclaw_min_score_filters_by_the_hit_score(
    workspace: Workspace, clock: FixedClock
) -> None:
    openclaw_workspace(workspace, clock)
    every = call(workspace, "memory_search", {"query": "ha noi"}, CHAT, OPENCLAW).data
    assert every is not None and len(every["results"]) >= 2
    scores = sorted(r["score"] for r in every["results"])
    floor = scores[-1]
    kept = call(
        workspace, "memory_search", {"query": "ha noi", "minScore": floor}, CHAT, OPENCLAW
    ).data
    assert kept is not None and kept["results"]
    assert all(r["score"] >= floor for r in kept["results"])
    assert len(kept["results"]) < len(every["results"])
    none = call(
        workspace, "memory_search", {"query": "ha noi", "minScore": floor + 1000}, CHAT, OPENCLAW
    ).data
    assert none == {"results": []}
    bad = call(workspace, "memory_search", {"query": "x", "minScore": "high"}, CHAT, OPENCLAW)
    assert bad.is_error and "minScore: must be a number" in bad.text


def test_openclaw_wiki_corpus_is_empty_not_an_error(
    workspace: Workspace, clock: FixedClock
) -> None:
    openclaw_workspace(workspace, clock)
    wiki = call(workspace, "memory_search", {"query": "ha noi", "corpus": "wiki"}, CHAT, OPENCLAW)
    assert wiki.data == {"results": []} and not wiki.is_error
    got = call(workspace, "memory_get", {"path": "MEMORY.md", "corpus": "wiki"}, CHAT, OPENCLAW)
    assert got.data == {"status": "not_found", "path": "MEMORY.md", "text": ""}


def test_openclaw_sessions_corpus_is_an_empty_flagged_answer(
    workspace: Workspace, clock: FixedClock
) -> None:
    """OpenClaw 2026.9.6 answers corpus "sessions" it cannot search with an empty result the
    model is told to report, never an error."""
    openclaw_workspace(workspace, clock)
    found = call(
        workspace, "memory_search", {"query": "ha noi", "corpus": "sessions"}, CHAT, OPENCLAW
    )
    assert not found.is_error and found.data is not None
    assert found.data["results"] == []
    assert found.data["disabled"] is True and found.data["unavailable"] is True
    assert found.data["warning"] and found.data["action"]


@pytest.mark.parametrize("asked", [1, 10, 51, 100, 5000])
def test_openclaw_max_results_has_no_most(
    workspace: Workspace, clock: FixedClock, asked: int
) -> None:
    openclaw_workspace(workspace, clock)
    for i in range(12):
        call(workspace, "memory_save", {"text": f"Hà Nội lần {i}"}, CHAT)
    found = call(
        workspace, "memory_search", {"query": "ha noi", "maxResults": asked}, CHAT, OPENCLAW
    )
    assert not found.is_error and found.data is not None
    assert len(found.data["results"]) == min(asked, 15)
    zero = call(workspace, "memory_search", {"query": "ha noi", "maxResults": 0}, CHAT, OPENCLAW)
    assert zero.is_error and "maxResults" in zero.text


def test_openclaw_memory_get(workspace: Workspace, clock: FixedClock) -> None:
    openclaw_workspace(workspace, clock)
    args = {"path": "memory/2026-11-29.md", "from": 1, "lines": 5}
    got = call(workspace, "memory_get", args, CHAT, OPENCLAW)
    assert got.data == {
        "status": "ok",
        "path": "memory/2026-11-29.md",
        "text": "- 14:05 Hẹn nha sĩ ở Hà Nội thứ Sáu",
        "from": 1,
        "lines": 1,
    }
    missing = call(workspace, "memory_get", {"path": "memory/1999-01-01.md"}, CHAT, OPENCLAW)
    assert not missing.is_error
    assert missing.data == {"status": "not_found", "path": "memory/1999-01-01.md", "text": ""}
    assert json.loads(missing.text) == missing.data
    for refused in (".trinho/config.toml", "../outside.md", "/etc/passwd"):
        result = call(workspace, "memory_get", {"path": refused}, CHAT, OPENCLAW)
        assert not result.is_error and result.data is not None
        assert result.data["status"] == "error" and result.data["text"] == ""
        assert result.data["code"] == "MEMORY_PATH_NOT_ALLOWED" and result.data["error"]
        assert str(workspace.root) not in result.text
    (workspace.root / "memory" / "folder.md").mkdir()
    folder = call(workspace, "memory_get", {"path": "memory/folder.md"}, CHAT, OPENCLAW).data
    assert folder is not None and folder["status"] == "error"
    assert folder["code"] == "MEMORY_READ_FAILED"
    old_names = call(workspace, "memory_get", {"path": "MEMORY.md", "from_line": 1}, CHAT, OPENCLAW)
    assert old_names.is_error and "from_line" in old_names.text


def test_openclaw_memory_get_reads_120_lines_and_says_where_to_go_on(
    workspace: Workspace,
) -> None:
    lines = [f"- 2026-11-{1 + i % 28:02d}: dòng {i + 1}" for i in range(300)]
    (workspace.root / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    first = call(workspace, "memory_get", {"path": "MEMORY.md"}, CHAT, OPENCLAW).data
    assert first is not None
    assert first["status"] == "ok" and first["from"] == 1 and first["lines"] == 120
    assert first["truncated"] is True and first["nextFrom"] == 121
    assert first["text"].startswith("\n".join(lines[:120]) + "\n\n[")
    assert "from=121" in first["text"]
    last = call(workspace, "memory_get", {"path": "MEMORY.md", "from": 281}, CHAT, OPENCLAW).data
    assert last == {
        "status": "ok",
        "path": "MEMORY.md",
        "text": "\n".join(lines[280:]),
        "from": 281,
        "lines": 20,
    }
    past = call(workspace, "memory_get", {"path": "MEMORY.md", "from": 999}, CHAT, OPENCLAW).data
    assert past is not None and past["status"] == "ok" and past["lines"] == 0


def test_the_openclaw_memory_get_description_tells_the_model_to_read_status() -> None:
    spec = {t.name: t for t in tools.profile_tools(OPENCLAW)}["memory_get"]
    for word in ("status", "not_found", "error", "truncated", "nextFrom"):
        assert word in spec.description
    assert spec.result is not None and spec.result["required"] == ["status", "path", "text"]


def test_the_workspace_config_chooses_the_profile_an_argument_overrides(
    workspace: Workspace,
) -> None:
    assert tools.config_profile(workspace) == "default"
    config = workspace.root / CONFIG_PATH
    config.write_text(config.read_text() + '\n[tools]\nprofile = "openclaw"\n')
    ws = open_workspace(workspace.root)
    assert tools.config_profile(ws) == "openclaw"
    assert tools.config_profile(ws, "default") == "default"
