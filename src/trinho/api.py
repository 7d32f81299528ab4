"""`trinho.Memory`: the one entry point for embedding trinho in an agent.

Open a workspace, get the prompt context, get the tool definitions for a model API, and pass
the model's tool calls back in. Everything else (stores, rules, search) sits behind it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from trinho.context.assembly import Budgets, Context
from trinho.context.run import build_context
from trinho.errors import TrinhoError
from trinho.facts.rules import ActorKind
from trinho.search import notify_written
from trinho.tools import service as tools_mod
from trinho.tools.service import Actor, ToolFormat, ToolProfile, ToolResult
from trinho.workspace import Clock, Workspace, init_workspace, open_workspace


class Memory:
    """An agent workspace opened for one agent.

    `Memory("~/assistant")` opens an existing workspace (trinho's own or an OpenClaw-style
    folder); `create=True` sets it up first (idempotent). Tool calls default to a chat with the
    owner present, made by `agent`; pass `actor="job"` (or an `Actor`) for unattended runs.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        agent: str = "main",
        user: str | None = None,
        create: bool = False,
        timezone: str | None = None,
        locale: str | None = None,
        clock: Clock | None = None,
    ) -> None:
        if create:
            self.workspace: Workspace = init_workspace(
                path, timezone=timezone, locale=locale, clock=clock, on_written=notify_written
            ).workspace
        else:
            self.workspace = open_workspace(path, clock, on_written=notify_written)
        self.actor = Actor("chat", agent, user)

    def context(self, user: str | None = None, budgets: Budgets | None = None) -> Context:
        """This turn's prompt parts: `.system` (cache-stable) and `.preamble` (recent notes)."""
        return build_context(self.workspace, user or self.actor.user, budgets)

    def tools(
        self, format: ToolFormat = "openai", profile: ToolProfile | None = None
    ) -> list[dict[str, Any]]:
        """The tool definitions for a model API: `openai`, `openai-strict`, `responses`,
        `anthropic` or `mcp` (see `trinho.tools.service.export`), in `profile` (`default` or
        `openclaw`; None: the workspace config's `[tools] profile`, else `default`)."""
        return tools_mod.export(format, tools_mod.config_profile(self.workspace, profile))

    def call(
        self,
        name: str,
        args: Mapping[str, Any] | str | None = None,
        actor: Actor | ActorKind | None = None,
        profile: ToolProfile | None = None,
    ) -> ToolResult:
        """Run a tool call from the model, its arguments and result in `profile` (as in
        `tools`). Never raises: failures are `is_error` results."""
        if actor is None:
            chosen = self.actor
        elif isinstance(actor, Actor):
            chosen = actor
        else:
            try:
                chosen = Actor(actor, self.actor.agent, self.actor.user)
            except TrinhoError as exc:
                return ToolResult.error(f"{name}: {exc}")
        return tools_mod.call(
            self.workspace, name, args, chosen, tools_mod.config_profile(self.workspace, profile)
        )
