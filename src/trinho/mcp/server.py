"""The MCP server: the agent tools and the memory files, over stdio or streamable HTTP.

Built on the official `mcp` SDK (v2, the `mcp` extra), imported only when a server is made.
The tools are exactly `trinho.tools.service` (same schemas, same dispatcher, same actor rules) with
read-only / destructive hints and an output schema each. Resources: MEMORY.md, the facts index,
today's notes; templates for a day's notes and a fact's history; prompts for the next turn's
context, what waits for the owner and a week in review.

Over HTTP the server binds 127.0.0.1 unless told otherwise and refuses any request without the
bearer token from the config (`[mcp] token`). In stdio mode stdout carries only the protocol:
logging goes to stderr, and the SDK points fd 1 at stderr while it serves.

With a PostgreSQL store the HTTP server serves every owner (`owners_http_app`): the request's
bearer token, an owner's token from `trinho owners token` (`trinho.pg.tokens`), selects the
owner, and every tool, resource and prompt then acts on that owner's records only.
"""

from __future__ import annotations

import hmac
import json
import logging
import re
import secrets
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

import tomlkit
import tomlkit.exceptions

from trinho.boundary import public_error, require_extra
from trinho.clock import parse_day
from trinho.config import McpConfig
from trinho.config.files import edit_config, render_config
from trinho.durable import read_regular, write_secret_text
from trinho.errors import NotFound, TrinhoError, Unavailable
from trinho.i18n import t
from trinho.logs import configure_logging
from trinho.textnorm import json_text, printable
from trinho.tools import service as tools_mod
from trinho.tools.service import Actor, ToolTarget, as_records
from trinho.web.guard import HostCheck, allowed_hosts
from trinho.workspace import CONFIG_PATH, Workspace, validate_slug

if TYPE_CHECKING:
    from pathlib import Path

    from mcp.server import Server
    from mcp.server.auth.provider import AccessToken, TokenVerifier
    from mcp.server.context import ServerRequestContext
    from starlette.applications import Starlette

    from trinho.context.assembly import Budgets
    from trinho.pg.connect import Database
    from trinho.records.protocol import Records
    from trinho.workspace import Clock

log = logging.getLogger("trinho.mcp_server")
RETRY_AFTER = b"5"
"""Seconds a client is asked to wait when the database could not be reached."""
T = TypeVar("T")

SERVER_NAME = "trinho"
DEFAULT_HOST = McpConfig.host
DEFAULT_PORT = McpConfig.port
HTTP_PATH = "/mcp"


@dataclass(frozen=True)
class ResourceSpec:
    uri: str
    name: str
    description: str
    mime_type: str
    read: Callable[[ToolTarget, Actor], str]
    """Called with an owner's records, or a file workspace (seen through its file stores)."""


def _read_memory(memory: ToolTarget, actor: Actor) -> str:
    return as_records(memory).memory_text()


def _read_facts(memory: ToolTarget, actor: Actor) -> str:
    return as_records(memory).facts_index_text(actor.user_of(memory))


def _read_today(memory: ToolTarget, actor: Actor) -> str:
    records = as_records(memory)
    return records.day_text(records.today())


RESOURCES: tuple[ResourceSpec, ...] = (
    ResourceSpec(
        "trinho://memory",
        "MEMORY.md",
        "Curated long-term memory: one dated entry per line.",
        "text/markdown",
        _read_memory,
    ),
    ResourceSpec(
        "trinho://facts",
        "Facts index",
        "The owner's current facts (key: value, basis, since), as they go into the prompt.",
        "text/plain",
        _read_facts,
    ),
    ResourceSpec(
        "trinho://notes/today",
        "Today's notes",
        "Today's daily note (memory/YYYY-MM-DD.md): timestamped lines saved by memory_save.",
        "text/markdown",
        _read_today,
    ),
)


def _read_day(memory: ToolTarget, day: str) -> str:
    return as_records(memory).day_text(parse_day(day, "date"))


def _read_history(memory: ToolTarget, key: str, actor: Actor) -> str:
    user = actor.user_of(memory)
    fact = as_records(memory).load_fact(validate_slug(key, "fact key"), user)
    if fact is None:
        raise NotFound.keyed("error.fact.not_found", key=key, user=user)
    return "\n".join(
        f"{v.valid_from.isoformat()} to {v.valid_to.isoformat() if v.valid_to else 'now'}: "
        f"{v.value} ({v.basis}, from {v.source})"
        for v in fact.versions()
    )


@dataclass(frozen=True)
class TemplateSpec:
    """A family of resources: `pattern` reads the URI's parts that `read` takes."""

    uri_template: str
    pattern: re.Pattern[str]
    name: str
    description: str
    mime_type: str
    read: Callable[[ToolTarget, str, Actor], str]


TEMPLATES: tuple[TemplateSpec, ...] = (
    TemplateSpec(
        "trinho://notes/{date}",
        re.compile(r"trinho://notes/([0-9]{4}-[0-9]{2}-[0-9]{2})"),
        "A day's notes",
        "The daily note of one day (YYYY-MM-DD): timestamped lines saved by memory_save.",
        "text/markdown",
        lambda records, day, actor: _read_day(records, day),
    ),
    TemplateSpec(
        "trinho://facts/{key}/history",
        re.compile(r"trinho://facts/([^/]+)/history"),
        "A fact's history",
        "Every value a fact of the owner had, each with the days it held and its basis.",
        "text/plain",
        _read_history,
    ),
)


@dataclass(frozen=True)
class PromptSpec:
    name: str
    title: str
    description: str
    text: Callable[[Records, Actor], str]


def _next_turn(records: Records, actor: Actor) -> str:
    context = records.prompt_context(actor.user)
    return (
        "This is what you know of the owner before their next message: keep to it, and look up "
        "anything older with memory_search.\n\n"
        f"{context.system}\n\n{context.preamble}"
    ).rstrip()


def _waiting(records: Records, actor: Actor) -> str:
    listed = tools_mod.call(records, "memory_proposals", {}, actor)
    return (
        "Tell the owner, briefly and in their language, what waits for their decision; you "
        "cannot approve or reject anything yourself. The waiting proposals:\n\n" + listed.text
    )


def _week(records: Records, actor: Actor) -> str:
    today = records.today()
    days = [today - timedelta(days=back) for back in range(6, -1, -1)]
    notes = "\n\n".join(
        f"## {day.isoformat()}\n{text}"
        for day in days
        if (text := _read_day(records, day.isoformat()).strip())
    )
    return (
        "Review the owner's week with them: what happened, what is still open, what may be "
        "worth keeping as a fact (ask before saving one). The week's notes:\n\n"
        + (notes or "(no notes this week)")
    )


PROMPTS: tuple[PromptSpec, ...] = (
    PromptSpec(
        "next_turn_context",
        "Context of the next turn",
        "What the assistant knows before the owner's next message: memory, facts, recent notes.",
        _next_turn,
    ),
    PromptSpec(
        "waiting_for_owner",
        "What waits for the owner",
        "The proposals that wait for the owner's decision, to tell them about.",
        _waiting,
    ),
    PromptSpec(
        "week_in_review",
        "A week in review",
        "The last seven days of notes, to review with the owner.",
        _week,
    ),
)


def _read_uri(records: Records, actor: Actor, uri: str) -> tuple[str, str] | None:
    """The text and MIME type at `uri`, or None when no resource or template names it."""
    for spec in RESOURCES:
        if spec.uri == uri:
            return spec.read(records, actor), spec.mime_type
    for template in TEMPLATES:
        match = template.pattern.fullmatch(uri)
        if match is not None:
            return template.read(records, match.group(1), actor), template.mime_type
    return None


def _public(root: Path | None, exc: Exception) -> str:
    """A failure as the one line a client is sent: no workspace path, no traceback."""
    if not isinstance(exc, TrinhoError):
        log.warning("mcp: request failed: %s", public_error(exc, root))
    return printable(str(public_error(exc, root)))


Resolve = Callable[[str | None], "Records"]
"""Whose records a request acts on, given the owner its bearer token names (None: no token,
over stdio or in memory). Called in a worker thread: it may read the database."""


def build_server(ws: Workspace, actor: Actor, profile: str | None = None) -> Server[Any]:
    """A low-level MCP server whose tools and resources act on `ws` as `actor`; its tools speak
    `profile` (None: the workspace config's `[tools] profile`, else `default`)."""
    records = tools_mod.as_records(ws)
    return records_server(lambda owner: records, actor, tools_mod.config_profile(ws, profile))


def _owner_of(ctx: ServerRequestContext[Any]) -> str | None:
    """The owner the request's bearer token was verified for (None without one)."""
    from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser

    request = ctx.request
    user = getattr(request, "scope", {}).get("user") if request is not None else None
    return user.access_token.client_id if isinstance(user, AuthenticatedUser) else None


async def _acting(
    resolve: Resolve, ctx: ServerRequestContext[Any], work: Callable[[Records], T]
) -> T:
    """`work` on the request's owner's records, in a worker thread; a failure is one line
    for the client, naming no folder of the server's."""
    import anyio
    import mcp_types as types
    from mcp.shared.exceptions import MCPError

    owner = _owner_of(ctx)

    def run() -> T:
        records = resolve(owner)
        try:
            return work(records)
        except Exception as exc:
            raise MCPError(types.INTERNAL_ERROR, _public(records.root, exc)) from None

    try:
        return await anyio.to_thread.run_sync(run)
    except MCPError:
        raise
    except Exception as exc:
        raise MCPError(types.INTERNAL_ERROR, _public(None, exc)) from None


def _listings(profile: str) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    """What the server lists: its tools as `profile` speaks them, resources, templates and
    prompts."""
    import mcp_types as types

    tools = [types.Tool.model_validate(tool) for tool in tools_mod.export("mcp", profile)]
    resources = [
        types.Resource(
            uri=spec.uri, name=spec.name, description=spec.description, mime_type=spec.mime_type
        )
        for spec in RESOURCES
    ]
    templates = [
        types.ResourceTemplate(
            uri_template=t.uri_template,
            name=t.name,
            description=t.description,
            mime_type=t.mime_type,
        )
        for t in TEMPLATES
    ]
    prompts = [
        types.Prompt(name=p.name, title=p.title, description=p.description, arguments=[])
        for p in PROMPTS
    ]
    return tools, resources, templates, prompts


def records_server(resolve: Resolve, actor: Actor, profile: str) -> Server[Any]:
    """A low-level MCP server whose tools, resources and prompts act as `actor` on the records
    `resolve` gives for each request's owner; its tools speak `profile`."""
    import anyio
    import mcp_types as types
    from mcp.server import Server
    from mcp.shared.exceptions import MCPError

    tool_list, resource_list, template_list, prompt_list = _listings(profile)
    by_prompt = {p.name: p for p in PROMPTS}

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        owner = _owner_of(ctx)

        def run() -> tools_mod.ToolResult:
            try:
                records = resolve(owner)
            except Exception as exc:
                return tools_mod.ToolResult.error(f"{params.name}: {_public(None, exc)}")
            return tools_mod.call(records, params.name, params.arguments, actor, profile)

        result = await anyio.to_thread.run_sync(run)
        return types.CallToolResult(
            content=[types.TextContent(text=result.text)],
            structured_content=result.data,
            is_error=result.is_error,
        )

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=resource_list)

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        found = await _acting(resolve, ctx, lambda records: _read_uri(records, actor, uri))
        if found is None:
            known = ", ".join([s.uri for s in RESOURCES] + [t.uri_template for t in TEMPLATES])
            raise MCPError(types.INVALID_PARAMS, f"unknown resource {uri}; known: {known}")
        text, mime_type = found
        shown = printable(text)  # a client may print it on a terminal
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=mime_type, text=shown)]
        )

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=template_list)

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=prompt_list)

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        spec = by_prompt.get(params.name)
        if spec is None:
            known = ", ".join(by_prompt)
            raise MCPError(types.INVALID_PARAMS, f"unknown prompt {params.name}; known: {known}")
        text = await _acting(resolve, ctx, lambda records: spec.text(records, actor))
        message = types.PromptMessage(role="user", content=types.TextContent(text=printable(text)))
        return types.GetPromptResult(description=spec.description, messages=[message])

    return Server(
        SERVER_NAME,
        version=_version(),
        instructions=(
            "Long-term memory of the owner's assistant. Save what is worth remembering with "
            "memory_save, facts the owner states with user_memory_save, and look up anything "
            "older with memory_search. No tool approves changes: the owner decides."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_resource_templates=list_templates,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("trinho")
    except PackageNotFoundError:
        return "0"


def _require_sdk() -> None:
    require_extra("mcp", "the MCP server")


WORKSPACE_UNAVAILABLE = -32002
"""The JSON-RPC error code of every request refused because the workspace cannot be opened."""


def refusal(line: str, reason: str) -> str | None:
    """The JSON-RPC answer to one line a client sent when no workspace can be served: an error
    carrying `reason` for a request, nothing for a notification or a line that is not JSON."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or "id" not in message or "method" not in message:
        return None
    error = {"code": WORKSPACE_UNAVAILABLE, "message": printable(reason)}
    return json_text({"jsonrpc": "2.0", "id": message["id"], "error": error})


def refuse_stdio(reason: str) -> None:
    """Answer every request on stdin with `reason` until the client closes it."""
    for line in sys.stdin:
        answer = refusal(line, reason)
        if answer is not None:
            sys.stdout.write(answer + "\n")
            sys.stdout.flush()


def serve_stdio(ws: Workspace, actor: Actor, profile: str | None = None) -> None:
    """Serve MCP on stdin/stdout until the client closes stdin. Logs go to stderr only."""
    _require_sdk()
    serve_records_stdio(tools_mod.as_records(ws), actor, tools_mod.config_profile(ws, profile))


def serve_records_stdio(records: Records, actor: Actor, profile: str) -> None:
    """`serve_stdio` over any one owner's records (a PostgreSQL owner's: `trinho mcp --owner`)."""
    _require_sdk()
    import anyio
    from mcp.server.stdio import stdio_server

    configure_logging(logging.INFO)
    server = records_server(lambda owner: records, actor, profile)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            send, read = anyio.create_memory_object_stream[Any](0)

            async def sift() -> None:
                """A batch line gets its one JSON-RPC error; everything else goes on."""
                async with send:
                    async for item in read_stream:
                        if _is_batch(item):
                            await write_stream.send(_batch_refusal())
                        else:
                            await send.send(item)

            async with anyio.create_task_group() as group:
                group.start_soon(sift)
                await server.run(read, write_stream, server.create_initialization_options())

    anyio.run(run)


def _is_batch(item: object) -> bool:
    """Whether the SDK's reader failed on a line that is a JSON array (a JSON-RPC batch)."""
    from pydantic import ValidationError

    return isinstance(item, ValidationError) and any(
        isinstance(error.get("input"), list) for error in item.errors()
    )


def _batch_refusal() -> Any:
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    error = types.ErrorData(code=types.INVALID_REQUEST, message=t("en", "error.mcp.batch"))
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None, error=error))


def init_token(ws: Workspace) -> tuple[str, bool]:
    """Make `[mcp] token` in the config if it has none: (the token, whether it was created).

    The rest of the config is kept as written; the file becomes readable by its owner only,
    since it now holds a secret.
    """
    existing = ws.config.mcp.token
    if existing is not None:
        return existing, False
    path = ws.root / CONFIG_PATH
    with ws.lock(path):
        # a folder without a config (an OpenClaw workspace) gets the whole default config, so
        # its time zone stays the one it was opened with, not UTC
        text = read_regular(path).decode("utf-8") if path.exists() else render_config(ws.config)
        token = secrets.token_urlsafe(32)
        try:
            updated = edit_config(text, "mcp", {"token": token})
            tomllib.loads(updated)
        except (tomlkit.exceptions.TOMLKitError, tomllib.TOMLDecodeError) as exc:
            raise TrinhoError.keyed(
                "error.mcp.cannot_add_token", path=path, error=str(exc), token=token
            ) from None
        write_secret_text(path, updated)
    return token, True


class StaticTokenVerifier:
    """Accepts exactly one bearer token, compared in constant time."""

    def __init__(self, token: str) -> None:
        self._token = token

    async def verify_token(self, token: str) -> AccessToken | None:
        from mcp.server.auth.provider import AccessToken

        if hmac.compare_digest(token.encode(), self._token.encode()):
            return AccessToken(token=token, client_id="owner", scopes=[])
        return None


def http_app(
    ws: Workspace, actor: Actor, token: str, host: str, port: int, profile: str | None = None
) -> Starlette:
    """The streamable HTTP app at /mcp; every request needs `Authorization: Bearer <token>`."""
    server = build_server(ws, actor, profile)
    return _http(server, StaticTokenVerifier(token), host, port, ws.config.mcp.allowed_hosts)


def _http(
    server: Server[Any], verifier: TokenVerifier, host: str, port: int, extra: tuple[str, ...]
) -> Starlette:
    """`server` over streamable HTTP at /mcp: a bearer token `verifier` accepts on every
    request, a Host and Origin of this server's, one JSON-RPC message per request."""
    from mcp.server.auth.settings import AuthSettings
    from pydantic import AnyHttpUrl

    shown = f"[{host}]" if ":" in host else host
    auth = AuthSettings(issuer_url=AnyHttpUrl(f"http://{shown}:{port}"), resource_server_url=None)
    app = server.streamable_http_app(
        streamable_http_path=HTTP_PATH, host=host, auth=auth, token_verifier=verifier
    )
    app.add_middleware(OneMessage)
    app.add_middleware(HostCheck, hosts=allowed_hosts(host, port, extra))
    app.add_middleware(RefusalLog)
    app.add_middleware(Unreachable)
    return app


class OwnerTokenVerifier:
    """Accepts an owner's current token (`trinho.pg.tokens`): the request then acts for that
    owner, named as the access token's client. Anything else is refused alike."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def verify_token(self, token: str) -> AccessToken | None:
        import anyio
        from mcp.server.auth.provider import AccessToken

        from trinho.pg.connect import retry_lost
        from trinho.pg.tokens import verify_token

        def check() -> str | None:  # a read: asked again on a new connection when one was cut
            return retry_lost(self._db.url, lambda: verify_token(self._db, token))

        try:
            owner = await anyio.to_thread.run_sync(check)
        except Unavailable:  # answered 503 (`Unreachable`): the token may well be good
            raise
        except Exception as exc:  # a database that failed refuses the request, and says why
            log.warning("mcp: token check failed: %s", public_error(exc, None))
            return None
        if owner is None:
            return None
        return AccessToken(token=token, client_id=owner, scopes=[])


@dataclass(frozen=True)
class OwnerSettings:
    """What every owner's records are opened with: the clock, the facts' default user, the
    locale and the prompt's budgets (the serving workspace config's, when it has one)."""

    clock: Clock
    user: str
    locale: str
    budgets: Budgets


def owner_records(db: Database, settings: OwnerSettings) -> Resolve:
    """Each request's owner's records in `db`: the owner its token was verified for, in
    their time zone. A request without one is refused: no owner is ever guessed."""
    from trinho.pg.owners import require_owner
    from trinho.pg.store import PgRecords

    def resolve(owner: str | None) -> Records:
        if owner is None:
            raise TrinhoError.keyed("error.mcp.no_owner")
        return PgRecords(
            db,
            owner,
            clock=settings.clock,
            timezone=require_owner(db, owner),
            user=settings.user,
            locale=settings.locale,
            budgets=settings.budgets,
        )

    return resolve


def owners_http_app(
    db: Database,
    actor: Actor,
    settings: OwnerSettings,
    host: str,
    port: int,
    profile: str = "default",
    extra_hosts: tuple[str, ...] = (),
) -> Starlette:
    """The streamable HTTP app at /mcp for every owner of `db`: each request's bearer token is
    an owner's, and selects whose records the tools, resources and prompts act on."""
    server = records_server(owner_records(db, settings), actor, profile)
    return _http(server, OwnerTokenVerifier(db), host, port, extra_hosts)


class Unreachable:
    """A request that could not reach the database (a token check, a tool's records) answers
    503 with Retry-After and the one line naming the server: never a 401 that tells a client
    its token is bad, never a 500."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        started = False

        async def sending(message: Any) -> None:
            nonlocal started
            started = started or message.get("type") == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Unavailable as exc:
            if started or scope.get("type") != "http":
                raise
            log.warning("mcp: %s", exc)
            error = {"error": "temporarily_unavailable", "error_description": str(exc)}
            headers = [(b"content-type", b"application/json"), (b"retry-after", RETRY_AFTER)]
            await send({"type": "http.response.start", "status": 503, "headers": headers})
            await send({"type": "http.response.body", "body": json_text(error).encode()})


class OneMessage:
    """A JSON-RPC batch (a body that is a JSON array) gets one JSON-RPC error line, not the
    SDK's validation dump. Only the body's first bytes are looked at, so the SDK's own limits
    on the rest still hold."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        seen: list[Any] = []
        first = b""
        while True:
            message = await receive()
            seen.append(message)
            first = message.get("body", b"").lstrip()
            if first or not message.get("more_body") or message.get("type") != "http.request":
                break
        if first.startswith(b"["):
            error = {"code": -32600, "message": t("en", "error.mcp.batch")}
            body = json_text({"jsonrpc": "2.0", "id": None, "error": error}).encode()
            headers = [(b"content-type", b"application/json")]
            await send({"type": "http.response.start", "status": 400, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return

        async def replay() -> Any:
            return seen.pop(0) if seen else await receive()

        await self.app(scope, replay, send)


REFUSED = frozenset({400, 401, 403, 404, 405, 421})


class RefusalLog:
    """One INFO line per HTTP request the server refuses: who, what and why, never a header
    (the bearer token is one)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return

        async def watch(message: Any) -> None:
            if message.get("type") == "http.response.start" and message["status"] in REFUSED:
                client = scope.get("client") or ("?", 0)
                log.info(
                    "mcp: refused %s %s from %s: HTTP %d",
                    scope.get("method"),
                    printable(str(scope.get("path"))),
                    client[0],
                    message["status"],
                )
            await send(message)

        await self.app(scope, receive, watch)


def serve_http(
    ws: Workspace, actor: Actor, host: str, port: int, profile: str | None = None
) -> None:
    """Serve MCP over streamable HTTP at http://HOST:PORT/mcp until interrupted."""
    _require_sdk()
    token = ws.config.mcp.token
    if token is None:
        raise TrinhoError.keyed("error.mcp.http_no_token", config=ws.root / CONFIG_PATH)
    import uvicorn

    configure_logging(logging.INFO)
    app = http_app(ws, actor, token, host, port, profile)
    log.info("trinho MCP server on http://%s:%d%s", host, port, HTTP_PATH)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def serve_owners_http(
    url: str,
    actor: Actor,
    settings: OwnerSettings,
    host: str,
    port: int,
    profile: str = "default",
    extra_hosts: tuple[str, ...] = (),
) -> None:
    """Serve MCP over streamable HTTP for every owner of the database at `url`, each request
    as the owner its bearer token names, until interrupted."""
    _require_sdk()
    import uvicorn

    from trinho.pg.connect import Database

    configure_logging(logging.INFO)
    with Database(url) as db:
        app = owners_http_app(db, actor, settings, host, port, profile, extra_hosts)
        log.info("trinho MCP server for every owner on http://%s:%d%s", host, port, HTTP_PATH)
        uvicorn.run(app, host=host, port=port, log_level="warning")
