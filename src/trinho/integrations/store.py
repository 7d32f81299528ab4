"""Claude's memory tool over a trinho workspace: what each command reads and writes.

`/memories` is the workspace seen as files a model understands (`trinho.integrations.rules`
says which path is which):

- `/memories/MEMORY.md` is MEMORY.md. A change is the rewrite of the file as it is now, judged
  by the gate as any writer that is not the owner (`trinho.condense.rules.gate.gate`, the
  window being today): what the gate lets apply is written, what it holds (an edited or
  removed entry, a heading, an undated line) becomes a MEMORY.md proposal, as a weekly run's.
- `/memories/notes/YYYY-MM-DD.md` are the day notes: a write saves each new line as
  `memory_save` does (today's note, append-only); nothing in them is changed or removed.
- `/memories/facts/<key>.md` are the owner's current facts: a new value is saved as the
  model's inference (basis `inferred`), so one against the owner's word is a proposal.
- Any other path is a file of the model's own, in the workspace's `claude_memories/` folder.
  The lines the model wrote there are recorded (`.trinho/memory-tool/written.json`); a change
  that would alter or remove any other line (the owner's) becomes a `memory_file` proposal.

Paths never leave their place: `rules.parse_path` refuses traversal and hidden names, every
real path goes through `Workspace.confine`, and a symbolic link in the model's folder is
refused outright.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trinho.boundary import public_error
from trinho.condense.rules.gate import Change, gate
from trinho.durable import atomic_write_text, ensure_dir, read_regular, sibling_lock
from trinho.errors import TrinhoError
from trinho.facts import store as facts
from trinho.i18n import N_, t
from trinho.integrations import rules
from trinho.integrations.rules import Refused, Target
from trinho.memory import store as memory_store
from trinho.models.base import ToolSpec
from trinho.notes.store import save_note
from trinho.proposals import store as proposals
from trinho.proposals.format import ApplyResult, Proposal
from trinho.textnorm import decode
from trinho.workspace import NOTES_DIR, Workspace, validate_slug

FILE_KIND = "memory_file"
"""The proposal kind of a change to a line the owner wrote in the model's own folder."""
WRITTEN = "memory-tool/written.json"
"""Under `.trinho/`: the lines the model wrote in each file of its folder."""

_SUMMARY = {
    "edit": N_("memory_tool.summary.edit"),
    "delete": N_("memory_tool.summary.delete"),
    "rename": N_("memory_tool.summary.rename"),
}


@dataclass(frozen=True)
class _Written:
    """The model's folder's record: file (relative to the folder) -> the lines it wrote."""

    lines: dict[str, list[str]]

    def of(self, rel: str) -> list[str]:
        return self.lines.get(rel, [])


class MemoryFiles:
    """The six commands of the memory tool over `ws`, as a chat model answering the owner.

    Every method returns the text the model reads, or raises `rules.Refused` (an error
    result). `agent` names the model in proposals (`agent:claude`)."""

    def __init__(self, ws: Workspace, *, agent: str = "claude", user: str | None = None) -> None:
        self.ws = ws
        self.agent = validate_slug(agent, "agent name")
        self.user = user or ws.config.owner
        self.origin = f"agent:{self.agent}"

    # --- the commands ---------------------------------------------------------------------

    def view(self, path: str, view_range: Sequence[int] | None = None) -> str:
        target = rules.parse_path(path)
        with self._refusing():
            if target.area == "root":
                return rules.listing(path, self._size(self.ws.root), self._root_items())
            if target.area == "memory":
                if not memory_store.exists(self.ws):
                    raise rules.missing(path)
                return rules.numbered(path, memory_store.read_text(self.ws), view_range)
            if target.area == "notes":
                return self._view_notes(target, view_range)
            if target.area == "facts":
                return self._view_facts(target, view_range)
            return self._view_file(target, view_range)

    def create(self, path: str, file_text: str) -> str:
        target = rules.parse_path(path)
        rules.check_size("file_text", file_text)
        with self._refusing():
            if target.area == "memory":
                if memory_store.exists(self.ws):
                    raise rules.exists_already(path)
                return self._memory(lambda before: file_text, lambda _: rules.created(path))
            if target.area == "notes" and not target.is_area_root:
                return self._save_notes(file_text)
            if target.area == "facts" and not target.is_area_root:
                return self._save_fact(target, file_text.strip(), rules.created(path))
            if target.area == "files":
                return self._create_file(target, file_text)
            raise rules.exists_already(path)

    def str_replace(self, path: str, old_str: str, new_str: str) -> str:
        target = rules.parse_path(path)
        rules.check_size("old_str", old_str)
        rules.check_size("new_str", new_str)
        with self._refusing():
            if target.area == "memory":
                at: list[int] = []

                def edit(before: str) -> str:
                    after, index = rules.replaced(path, before, old_str, new_str)
                    at.append(index)
                    return after

                return self._memory(edit, lambda text: rules.edited_snippet(text, at[0]))
            if target.area == "notes" and not target.is_area_root:
                self._note_text(target)  # a day that has no note is missing, as a file
                return rules.APPEND_ONLY.format(path=path)
            if target.area == "facts" and not target.is_area_root:
                return self._replace_fact(target, old_str, new_str)
            if target.area == "files":
                return self._replace_in_file(target, old_str, new_str)
            raise Refused(f"The path {path} is not a file.")

    def insert(self, path: str, insert_line: int, insert_text: str) -> str:
        target = rules.parse_path(path)
        rules.check_size("insert_text", insert_text)
        with self._refusing():
            if target.area == "memory":
                if not memory_store.exists(self.ws):
                    raise rules.missing(path)
                return self._memory(
                    lambda before: rules.inserted(path, before, insert_line, insert_text),
                    lambda _: rules.insert_done(path),
                )
            if target.area == "notes" and not target.is_area_root:
                return self._save_notes(insert_text)
            if target.area == "facts" and not target.is_area_root:
                view = self._fact_view(target)
                after = rules.inserted(path, view, insert_line, insert_text)
                return self._save_fact(
                    target, rules.fact_value(path, after), rules.insert_done(path)
                )
            if target.area == "files":
                return self._insert_in_file(target, insert_line, insert_text)
            raise Refused(f"The path {path} is not a file.")

    def delete(self, path: str) -> str:
        target = rules.parse_path(path)
        with self._refusing():
            if target.area == "root":
                raise Refused("Cannot delete the /memories directory itself")
            if target.area == "memory":
                if not memory_store.exists(self.ws):
                    raise rules.missing(path)
                return self._memory(lambda before: "", lambda _: rules.deleted(path))
            if target.area == "notes":
                return rules.APPEND_ONLY.format(path=path)
            if target.area == "facts":
                return rules.FACTS_STAY.format(path=path)
            return self._delete_files(target)

    def rename(self, old_path: str, new_path: str) -> str:
        old, new = rules.parse_path(old_path), rules.parse_path(new_path)
        with self._refusing():
            if old.area == "root":
                raise Refused("Cannot rename the /memories directory itself")
            if old.area != "files":
                return rules.FIXED_NAME.format(path=old_path)
            if new.area != "files":
                raise Refused(
                    f"The destination {new_path} is part of the memory's layout; "
                    "write to it with create or insert instead."
                )
            return self._rename_file(old, new)

    # --- MEMORY.md ------------------------------------------------------------------------

    def _memory(self, edit: Callable[[str], str], answer: Callable[[str], str]) -> str:
        """MEMORY.md rewritten by `edit` under its lock, through the gate: what applies is
        written, each held change becomes a proposal; the answer says both."""
        today = self.ws.today()
        with memory_store.editing(self.ws) as memory:
            before = memory.text()
            after = edit(before)
            rules.check_size("MEMORY.md", after, rules.MAX_FILE_CHARS)
            result = gate(before, after, today, today)
            if result.applied != before:
                memory.replace(result.applied)
        held = result.held
        ids = [self._propose_memory(change) for change in held]
        if not ids:
            if result.applied == before:
                return "Nothing changed: MEMORY.md already holds this."
            return answer(result.applied)
        why = "; ".join(dict.fromkeys(change.reason for change in held))
        if result.applied == before:
            return rules.waits("this change to /memories/MEMORY.md", ids, why)
        return answer(result.applied) + "\n\n" + rules.partly_waits(ids, why)

    def _propose_memory(self, change: Change) -> str:
        return propose_memory(self.ws, change, self.origin)

    # --- day notes ------------------------------------------------------------------------

    def _view_notes(self, target: Target, view_range: Sequence[int] | None) -> str:
        if not target.is_area_root:
            return rules.numbered(target.path, self._note_text(target), view_range)
        folder = self.ws.notes_dir
        items = [(self._size(p), p.name) for p in self._day_files(folder)]
        return rules.listing(target.path, self._size(folder), items)

    def _day_files(self, folder: Path) -> list[Path]:
        if not folder.is_dir():
            return []
        return sorted(
            p
            for p in folder.iterdir()
            if not p.is_symlink() and p.is_file() and rules.parse_day_name(p.name)
        )

    def _note_text(self, target: Target) -> str:
        path = self.ws.path(f"{NOTES_DIR}/{target.parts[0]}")
        if not path.is_file():
            raise rules.missing(target.path)
        return decode(read_regular(path), target.path)

    def _save_notes(self, text: str) -> str:
        lines = rules.note_lines(text)
        if not lines:
            raise Refused("Nothing to save: the text has no line.")
        saved = [save_note(self.ws, line) for line in lines]
        day_path = f"{rules.ROOT}/{rules.NOTES}/{saved[0].date.isoformat()}.md"
        return rules.notes_saved(day_path, [s.line for s in saved])

    # --- facts ----------------------------------------------------------------------------

    def _view_facts(self, target: Target, view_range: Sequence[int] | None) -> str:
        if not target.is_area_root:
            return rules.numbered(target.path, self._fact_view(target), view_range)
        folder = facts.facts_dir(self.ws, self.user)
        today = self.ws.today()
        items = [
            (self._size(folder / f"{fact.key}.md"), f"{fact.key}.md")
            for fact in facts.list_facts(self.ws, self.user).facts
            if fact.value_on(today) is not None
        ]
        return rules.listing(target.path, self._size(folder), items)

    def _fact_view(self, target: Target) -> str:
        key = target.parts[0].removesuffix(".md")
        fact = facts.load_fact(self.ws, key, self.user)
        current = fact.value_on(self.ws.today()) if fact is not None else None
        if current is None:
            raise rules.missing(target.path)
        until = current.valid_to.isoformat() if current.valid_to else None
        return rules.fact_view(current.value, current.basis, current.valid_from.isoformat(), until)

    def _replace_fact(self, target: Target, old_str: str, new_str: str) -> str:
        view = self._fact_view(target)
        after, index = rules.replaced(target.path, view, old_str, new_str)
        if after.partition("\n")[2] != view.partition("\n")[2]:
            raise Refused(f"Only line 1 of {target.path} (the value) can be changed.")
        return self._save_fact(
            target, rules.fact_value(target.path, after), rules.edited_snippet(after, index)
        )

    def _save_fact(self, target: Target, value: str, answer: str) -> str:
        key = target.parts[0].removesuffix(".md")
        if not value or "\n" in value:
            raise Refused(f"The value of {target.path} is one line of text.")
        saved = facts.save_fact(
            self.ws,
            key,
            value,
            user=self.user,
            basis="inferred",
            actor="chat",
            source=self.origin,
            origin=self.origin,
        )
        if saved.outcome == "proposed" and saved.proposal is not None:
            return rules.waits(
                f"this new value of {target.path}", [saved.proposal.id], rules.AGAINST_OWNER
            )
        return answer + "\n\n" + rules.FACT_OUTCOME[saved.outcome]

    # --- the model's own folder -----------------------------------------------------------

    @property
    def _folder(self) -> Path:
        return self.ws.root / rules.FILES_DIR

    def _real(self, target: Target) -> Path:
        """The real path of a file of the model's folder: no part of it may be a link, and
        it must stay in the workspace."""
        path = self._folder
        for part in ("", *target.parts):
            path = path / part if part else path
            if path.is_symlink():
                raise Refused(f"Path {target.path} would escape /memories directory via symlink")
        return self.ws.confine(path)

    def _rel(self, target: Target) -> str:
        return "/".join(target.parts)

    def _view_file(self, target: Target, view_range: Sequence[int] | None) -> str:
        real = self._real(target)
        if real.is_dir():
            return rules.listing(target.path, self._size(real), self._tree(real, "", 1))
        if not real.is_file():
            raise rules.missing(target.path)
        return rules.numbered(target.path, self._read(real, target.path), view_range)

    def _create_file(self, target: Target, text: str) -> str:
        with self._record() as written:
            real = self._real(target)
            if real.exists():
                raise rules.exists_already(target.path)
            ensure_dir(real.parent)
            self._real(target)  # the folders just made are still no links
            atomic_write_text(real, text)
            written.lines[self._rel(target)] = rules.written_after([], "", text)
        return rules.created(target.path)

    def _replace_in_file(self, target: Target, old_str: str, new_str: str) -> str:
        with self._record() as written:
            real, before = self._file(target)
            after, index = rules.replaced(target.path, before, old_str, new_str)
            rules.check_size("file", after, rules.MAX_FILE_CHARS)
            mine = written.of(self._rel(target))
            if rules.loses_owner_line(before, mine, after):
                return self._propose_file(target, "edit", {"old": before, "new": after})
            atomic_write_text(real, after)
            written.lines[self._rel(target)] = rules.written_after(mine, before, after)
        return rules.edited_snippet(after, index)

    def _insert_in_file(self, target: Target, line: int, text: str) -> str:
        with self._record() as written:
            real, before = self._file(target)
            after = rules.inserted(target.path, before, line, text)
            rules.check_size("file", after, rules.MAX_FILE_CHARS)
            atomic_write_text(real, after)
            mine = written.of(self._rel(target))
            written.lines[self._rel(target)] = rules.written_after(mine, before, after)
        return rules.insert_done(target.path)

    def _delete_files(self, target: Target) -> str:
        with self._record() as written:
            real = self._real(target)
            if not real.exists():
                raise Refused(f"The path {target.path} does not exist")
            files = [real] if real.is_file() else sorted(p for p in real.rglob("*") if p.is_file())
            ids: list[str] = []
            for path in files:
                rel = path.relative_to(self._folder.resolve()).as_posix()
                text = self._read(path, f"{rules.ROOT}/{rel}")
                if rules.loses_owner_line(text, written.of(rel), None):
                    one = Target(f"{rules.ROOT}/{rel}", "files", tuple(rel.split("/")))
                    ids.append(self._proposal_id(one, "delete", {"old": text, "new": None}))
                    continue
                path.unlink()
                written.lines.pop(rel, None)
            if real.is_dir() and not any(real.rglob("*")):
                shutil.rmtree(real)
        if ids:
            return rules.waits(f"deleting {target.path}", ids)
        return rules.deleted(target.path)

    def _rename_file(self, old: Target, new: Target) -> str:
        with self._record() as written:
            source, destination = self._real(old), self._real(new)
            if not source.exists():
                raise Refused(f"The path {old.path} does not exist")
            if destination.exists():
                raise Refused(f"The destination {new.path} already exists")
            rel = self._rel(old)
            holds_owner = any(
                rules.owner_lines(self._read(p, old.path), written.of(self._rel_of(p)))
                for p in ([source] if source.is_file() else source.rglob("*"))
                if p.is_file()
            )
            if holds_owner:
                return self._propose_file(old, "rename", {"old": None, "to": self._rel(new)})
            ensure_dir(destination.parent)
            self._real(new)
            os.rename(source, destination)
            moved = {k: v for k, v in written.lines.items() if k == rel or k.startswith(rel + "/")}
            for key, lines in moved.items():
                del written.lines[key]
                written.lines[self._rel(new) + key[len(rel) :]] = lines
        return rules.renamed(old.path, new.path)

    def _rel_of(self, path: Path) -> str:
        return path.relative_to(self._folder.resolve()).as_posix()

    def _file(self, target: Target) -> tuple[Path, str]:
        real = self._real(target)
        if not real.exists():
            raise rules.missing(target.path)
        if not real.is_file():
            raise Refused(f"The path {target.path} is not a file.")
        return real, self._read(real, target.path)

    def _propose_file(self, target: Target, action: str, change: dict[str, Any]) -> str:
        what = {"edit": "this change to", "delete": "deleting", "rename": "renaming"}[action]
        return rules.waits(f"{what} {target.path}", [self._proposal_id(target, action, change)])

    def _proposal_id(self, target: Target, action: str, change: dict[str, Any]) -> str:
        rel = self._rel(target)
        data = {
            "path": rel,
            "action": action,
            **change,
            "summary": t(self.ws.locale, _SUMMARY[action], path=f"{rules.FILES_DIR}/{rel}"),
        }
        submitted = proposals.submit(
            self.ws,
            FILE_KIND,
            data,
            reason=t(self.ws.locale, "memory_tool.reason", path=f"{rules.FILES_DIR}/{rel}"),
            origin=self.origin,
        )
        return submitted.proposal.id

    @contextmanager
    def _record(self) -> Iterator[_Written]:
        """The model's folder locked, with the record of the lines it wrote; written back."""
        path = self.ws.internal / WRITTEN
        with sibling_lock(path):
            written = _Written(read_written(path))
            before = dict(written.lines)
            yield written
            if written.lines != before:
                ensure_dir(path.parent)
                atomic_write_text(path, json.dumps(written.lines, ensure_ascii=False, indent=1))

    def _tree(self, folder: Path, prefix: str, depth: int) -> list[tuple[int, str]]:
        """The SDK's listing of `folder`: two levels, hidden items and links left out."""
        items: list[tuple[int, str]] = []
        if depth > 2 or not folder.is_dir():
            return items
        for item in sorted(folder.iterdir(), key=lambda p: p.name):
            if item.name.startswith(".") or item.is_symlink():
                continue
            name = f"{prefix}{item.name}"
            if item.is_dir():
                items.append((self._size(item), name + "/"))
                items += self._tree(item, name + "/", depth + 1)
            elif item.is_file():
                items.append((self._size(item), name))
        return items

    def _root_items(self) -> list[tuple[int, str]]:
        items: list[tuple[int, str]] = []
        if memory_store.exists(self.ws):
            items.append((self._size(self.ws.memory_file), rules.MEMORY_NAME))
        notes = self.ws.notes_dir
        items.append((self._size(notes), f"{rules.NOTES}/"))
        items += [(self._size(p), f"{rules.NOTES}/{p.name}") for p in self._day_files(notes)]
        folder = facts.facts_dir(self.ws, self.user)
        items.append((self._size(folder), f"{rules.FACTS}/"))
        today = self.ws.today()
        items += [
            (self._size(folder / f"{f.key}.md"), f"{rules.FACTS}/{f.key}.md")
            for f in facts.list_facts(self.ws, self.user).facts
            if f.value_on(today) is not None
        ]
        own = self._folder
        if own.is_dir() and not own.is_symlink():
            items += self._tree(own, "", 1)
        return items

    @staticmethod
    def _size(path: Path) -> int:
        try:
            return path.stat().st_size
        except OSError:
            return 0

    def _read(self, path: Path, shown: str) -> str:
        return decode(read_regular(path), shown)

    @contextmanager
    def _refusing(self) -> Iterator[None]:
        """trinho's own failures (a note too long, a name too long for the disk) as the one
        line the model reads, never a path of the owner's folder."""
        try:
            yield
        except (TrinhoError, OSError) as exc:
            raise Refused(str(public_error(exc, self.ws.root))) from None


MEMORY_TOOL = "memory_20250818"
MEMORY_SPEC = ToolSpec(
    "memory", "Claude's memory tool: /memories is the owner's memory.", builtin=MEMORY_TOOL
)
"""The memory tool as `trinho chat` offers it to an `anthropic:` model (`[tools] claude_memory`)."""


def run_command(ws: Workspace, args: Mapping[str, Any], agent: str) -> tuple[str, bool]:
    """One memory tool call of a chat turn, as the SDK's backend dispatches it: the answer and
    whether it is an error."""
    files = MemoryFiles(ws, agent=agent)
    command = args.get("command")
    try:
        if command == "view":
            span = args.get("view_range")
            shown = span if isinstance(span, list) else None
            return files.view(str(args.get("path")), shown), False
        if command == "create":
            return files.create(str(args.get("path")), str(args.get("file_text", ""))), False
        if command == "str_replace":
            old, new = str(args.get("old_str", "")), str(args.get("new_str", ""))
            return files.str_replace(str(args.get("path")), old, new), False
        if command == "insert":
            line = args.get("insert_line")
            if not isinstance(line, int) or isinstance(line, bool):
                raise Refused("insert_line must be an integer.")
            text = str(args.get("insert_text", ""))
            return files.insert(str(args.get("path")), line, text), False
        if command == "delete":
            return files.delete(str(args.get("path"))), False
        if command == "rename":
            old_path, new_path = str(args.get("old_path")), str(args.get("new_path"))
            return files.rename(old_path, new_path), False
        raise Refused(f"Unknown command: {command}")
    except Refused as refused:
        return str(refused), True


def read_written(path: Path) -> dict[str, list[str]]:
    if not path.is_file():
        return {}
    data = json.loads(decode(read_regular(path), WRITTEN))
    if not isinstance(data, dict):
        return {}
    return {str(k): [str(x) for x in v] for k, v in data.items() if isinstance(v, list)}


def apply_file_proposal(ws: Workspace, proposal: Proposal) -> ApplyResult:
    """Approving a change to the model's folder: done if the file is still as the change
    found it, else stale (the owner sees why)."""
    change = proposal.change
    rel = str(change.get("path", ""))
    target = rules.parse_path(f"{rules.ROOT}/{rel}")
    path = ws.confine(ws.root / rules.FILES_DIR / Path(*target.parts))
    old = change.get("old")
    if old is not None and (not path.is_file() or decode(read_regular(path), rel) != old):
        return ApplyResult(False, t(ws.locale, "memory_tool.stale", path=rel))
    if change.get("action") == "rename":
        to = rules.parse_path(f"{rules.ROOT}/{change.get('to', '')}")
        destination = ws.confine(ws.root / rules.FILES_DIR / Path(*to.parts))
        if not path.exists() or destination.exists():
            return ApplyResult(False, t(ws.locale, "memory_tool.stale", path=rel))
        ensure_dir(destination.parent)
        os.rename(path, destination)
    elif change.get("new") is None:
        path.unlink()
    else:
        atomic_write_text(path, str(change["new"]))
    return ApplyResult(True, t(ws.locale, "memory_tool.applied", path=rel))


def propose_memory(ws: Workspace, change: Change, origin: str) -> str:
    """A MEMORY.md change the gate held, queued for the owner from `origin` (a writer that is
    not the owner: Claude's memory tool, an OpenClaw agent's file write); its proposal id."""
    data = {k: v for k, v in change.to_dict().items() if k not in ("why", "sources")}
    submitted = proposals.submit(ws, "memory", data, reason=change.reason, origin=origin)
    return submitted.proposal.id
