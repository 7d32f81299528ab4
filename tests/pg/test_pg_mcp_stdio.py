"""`trinho mcp --owner ID` over stdio on a PostgreSQL store: one owner's records, with the
official client; another owner's note is never found, and a store of several owners without
--owner is refused with the reason, answered to the client."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO

import anyio
import pytest

from conftest import TZ
from support.pg_fixtures import new_owner
from support.pgserver import Urls
from trinho.cli import main
from trinho.pg.connect import Database
from trinho.pg.store import PgRecords
from trinho.workspace import system_clock

TRINHO = str(Path(sys.executable).with_name("trinho"))


async def _search(env: dict[str, str], owner: str | None, errlog: TextIO) -> str:
    from mcp.client.stdio import stdio_client
    from mcp.shared.exceptions import MCPError

    from mcp import ClientSession, StdioServerParameters

    args = ["mcp", *(["--owner", owner] if owner else [])]
    params = StdioServerParameters(command=TRINHO, args=args, env=env)
    async with (
        stdio_client(params, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        try:
            await session.initialize()
        except MCPError as exc:
            return f"refused: {exc}"
        result = await session.call_tool("memory_search", {"query": "bí mật"})
        return "".join(getattr(block, "text", "") for block in result.content)


def test_stdio_serves_the_named_owner_only(
    cli_env: dict[str, str],
    pg_urls: Urls,
    pg_admin: Database,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["init", "--tz", TZ]) == 0
    capsys.readouterr()
    an, binh = new_owner(pg_admin, TZ), new_owner(pg_admin, TZ)
    PgRecords(pg_admin, an, clock=system_clock, timezone=TZ).save_note("bí mật của An")
    PgRecords(pg_admin, binh, clock=system_clock, timezone=TZ).save_note("bí mật của Bình")
    env = {**os.environ, "TRINHO_DATABASE_URL": pg_urls.admin}
    env.pop("TRINHO_OWNER", None)
    with (tmp_path / "stderr").open("w") as errlog:
        found = anyio.run(_search, env, an, errlog)
        refused = anyio.run(_search, env, None, errlog)
    assert "bí mật của An" in found and "Bình" not in found
    assert refused.startswith("refused:") and "--owner ID" in refused
