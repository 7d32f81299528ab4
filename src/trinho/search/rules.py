"""Which files a model's `memory_get` may read: the memory files, and nothing else a workspace
holds (an agent's AGENTS.md, a key under private/, the owner's own folders).

OpenClaw's own rule (2026.9.6: its memory host's `isMemoryPath`, then its read refuses what
does not end in `.md`, with `MEMORY_PATH_NOT_ALLOWED`): `MEMORY.md`, `USER.md`, `DREAMS.md` in
any case, or a path under `memory/`, each a Markdown file. trinho adds the memory files only
it keeps, which its `memory_search` shows: the workspace's memory file by its legacy name
`memory.md`, the transcripts `conversations/DAY.jsonl`, and each fact `USERS/USER/facts/KEY.md`
(`USERS` the users folder, an absolute path when it is placed outside the workspace). Pure: the
caller names the path as the workspace shows it, once as given and once after every link, and
both must pass.
"""

from __future__ import annotations

import re

from trinho.errors import TrinhoError

OPENCLAW_ROOT_FILES = ("MEMORY.md", "USER.md")
DREAMS_FILE = "dreams.md"
"""OpenClaw's dreaming report at the root, its name in any case but its `.md`."""
NOTES_DIR = "memory"
_TRANSCRIPT = re.compile(r"conversations/[0-9]{4}-[0-9]{2}-[0-9]{2}\.jsonl")
_FACT = re.compile(r"[^/.][^/]*/facts/[^/.][^/]*\.md")


def is_memory_file(shown: str, memory_name: str = "MEMORY.md", users: tuple[str, ...] = ()) -> bool:
    """Whether `shown` (relative POSIX inside the workspace, or absolute under a users folder
    placed outside it) names a memory file a model may read: never `.`/`..`/empty parts, a
    dot-folder, nor anything but the files above."""
    dreams = shown.lower() == DREAMS_FILE and shown.endswith(".md")
    if shown in (*OPENCLAW_ROOT_FILES, memory_name) or dreams:
        return True
    for folder in users:
        rest = shown.removeprefix(folder.rstrip("/") + "/")
        if rest != shown and _FACT.fullmatch(rest):
            return True
    parts = shown.split("/")
    if any(part in ("", ".", "..") or part.startswith(".") for part in parts):
        return False
    if parts[0] == NOTES_DIR:
        return len(parts) > 1 and shown.endswith(".md")
    return _TRANSCRIPT.fullmatch(shown) is not None


def check_get(path: str, from_line: int, lines: int | None) -> None:
    """A `memory_get`'s arguments, refused in one keyed line naming what is wrong, before any
    backend reads a file."""
    if not path.strip():
        raise TrinhoError.keyed("error.get.empty")
    if from_line < 1:
        raise TrinhoError.keyed("error.get.first_line", path=path, line=from_line)
    if lines is not None and lines < 1:
        raise TrinhoError.keyed("error.get.no_lines", path=path, lines=lines)
