"""`TrinhoMemoryTool`: the Anthropic SDK's memory tool backend (`BetaAbstractMemoryTool`) whose
`/memories` is a trinho workspace, for the SDK's tool runner or any loop of one's own.

    tool = TrinhoMemoryTool(open_workspace("~/assistant"))
    client.beta.messages.tool_runner(model=..., tools=[tool], messages=[...]).until_done()

Every command goes to `trinho.integrations.store.MemoryFiles`, which applies trinho's rules;
a refusal comes back as the SDK's `ToolError` (an error result), a change waiting for the owner
as an ordinary answer saying so.
"""

from __future__ import annotations

from collections.abc import Callable

from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError
from anthropic.types.beta import (
    BetaCacheControlEphemeralParam,
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

from trinho.integrations.rules import Refused
from trinho.integrations.store import MemoryFiles
from trinho.workspace import Workspace

__all__ = ["TrinhoMemoryTool"]


class TrinhoMemoryTool(BetaAbstractMemoryTool):
    """Claude's memory tool over `ws`, as a chat model answering the owner (`agent` names it
    in proposals)."""

    def __init__(
        self,
        ws: Workspace,
        *,
        agent: str = "claude",
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.files = MemoryFiles(ws, agent=agent)

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        span = command.view_range
        return _answer(lambda: self.files.view(command.path, span))

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return _answer(lambda: self.files.create(command.path, command.file_text))

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return _answer(
            lambda: self.files.str_replace(command.path, command.old_str, command.new_str)
        )

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return _answer(
            lambda: self.files.insert(command.path, command.insert_line, command.insert_text)
        )

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return _answer(lambda: self.files.delete(command.path))

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return _answer(lambda: self.files.rename(command.old_path, command.new_path))

    def clear_all_memory(self) -> str:
        raise ToolError("Clearing all memory is the owner's decision; nothing changed.")


def _answer(run: Callable[[], str]) -> str:
    try:
        return run()
    except Refused as refused:
        raise ToolError(str(refused)) from None
