"""The agent workspace: where its files are, its clock, and safe paths inside it; opening and
creating one. The config file is `trinho.config.files`'s, instants and zones `trinho.clock`'s."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from trinho.clock import ZoneSpan, load_zone, parse_now
from trinho.config.files import (
    parse_config,
    read_config,
    render_config,
    update_owner_values,
    zone_given,
)
from trinho.config.schema import CONFIG_PATH as CONFIG_PATH
from trinho.config.schema import INTERNAL_DIR as INTERNAL_DIR
from trinho.config.schema import LOCALES as LOCALES
from trinho.config.schema import Config as Config
from trinho.durable import (
    append_bytes,
    atomic_write_text,
    ensure_dir,
    file_lock,
    read_regular,
    shared_lock_if_present,
    write_secret_text,
)
from trinho.errors import TrinhoError
from trinho.textnorm import SLUG_PATTERN as SLUG_PATTERN
from trinho.textnorm import validate_slug as validate_slug

Clock = Callable[[], datetime]
"""Returns the current instant as an aware datetime. Tests and replays pass a fixed one."""

WrittenHook = Callable[["Workspace", Sequence[str]], None]
"""Told the workspace-relative paths a store just wrote. The shell injects one (the search
index's refresh) so that no store imports search; a derived index notices anything missed."""

NOTES_DIR = "memory"
CONVERSATIONS_DIR = "conversations"
MEMORY_FILE = "MEMORY.md"
ZONES_FILE = f"{INTERNAL_DIR}/zones.jsonl"
"""The workspace's zones over time: one line per `trinho init --tz` that changed it, so a day
written before a change is read in the zone it was written in (`trinho.clock`)."""
LEGACY_MEMORY_FILE = "memory.md"
"""OpenClaw's old lower-case name for MEMORY.md (2026.9.6 no longer indexes it and its
`doctor --fix` merges it into MEMORY.md): alone, trinho reads it as MEMORY.md."""
OPENCLAW_SIGNS = ("AGENTS.md", ".openclaw")
"""Either one at the root makes a folder an OpenClaw workspace (OpenClaw seeds the first and
keeps its state in the second)."""
ARCHIVE_FILE = "memory/archive.md"
"""Entries moved out of MEMORY.md to keep it within its prompt budget, verbatim: searchable,
never in the prompt."""


def system_clock() -> datetime:
    return datetime.now().astimezone()


def clock_from_env(env: dict[str, str] | None = None) -> Clock:
    """The clock every command uses: fixed by TRINHO_NOW when set, the system's otherwise."""
    value = (os.environ if env is None else env).get("TRINHO_NOW")
    if not value:
        return system_clock
    fixed = parse_now(value)
    return lambda: fixed


def local_zone_name() -> str:
    """The machine's IANA zone, used when a workspace has no config yet."""
    tz = os.environ.get("TZ", "").lstrip(":")
    if tz:
        with contextlib.suppress(ZoneInfoNotFoundError, ValueError):
            ZoneInfo(tz)
            return tz
    with contextlib.suppress(OSError):
        target = os.readlink("/etc/localtime")
        if "zoneinfo/" in target:
            return target.split("zoneinfo/", 1)[1]
    return "UTC"


class Workspace:
    """An open agent workspace. Paths from input go through `path()` and never leave it."""

    def __init__(
        self, root: Path, config: Config, clock: Clock, on_written: WrittenHook | None = None
    ) -> None:
        self.root = root
        self.config = config
        self._clock = clock
        self.on_written = on_written
        self.tz = load_zone(config.timezone, "config timezone")
        self._roots = _allowed_roots(root, config)
        self._zones: tuple[ZoneSpan, ...] | None = None

    @property
    def zone_history(self) -> tuple[ZoneSpan, ...]:
        """The zones the workspace read its times in, oldest first (empty: never changed)."""
        if self._zones is None:
            self._zones = read_zone_history(self.root)
        return self._zones

    def written(self, paths: Sequence[str]) -> None:
        """A store wrote these files: let the injected hook (the search index) see them."""
        if self.on_written is not None and paths:
            self.on_written(self, paths)

    @property
    def locale(self) -> str:
        return self.config.locale

    def now(self) -> datetime:
        """The current instant in the owner's time zone."""
        return self._clock().astimezone(self.tz)

    def today(self) -> date:
        return self.now().date()

    def local_date(self, moment: datetime) -> date:
        """The owner's calendar day of an instant."""
        return moment.astimezone(self.tz).date()

    def path(self, relative: str | Path) -> Path:
        """Resolve `relative` inside the workspace, refusing anything that escapes it.

        Errors name the path as given, never the workspace's absolute place: they may go to
        a model, which has no business knowing the owner's home folder.
        """
        text = str(relative)
        if "\x00" in text or text != text.encode("utf-8", "replace").decode("utf-8"):
            raise TrinhoError.keyed("error.path.bad_chars", path=ascii(text))
        rel = Path(relative)
        if any(part == ".." for part in rel.parts) or (
            rel.is_absolute() and not self._in_shared_users(rel)
        ):
            raise TrinhoError.keyed("error.path.not_relative", path=text)
        return self.confine(self.root / rel)

    def _in_shared_users(self, path: Path) -> bool:
        """Whether an absolute path is under a users/ folder the config places outside the
        workspace: search hits name such facts by their absolute path, and `get` must take a
        hit's path back."""
        users = Path(self.config.users_dir).expanduser()
        return users.is_absolute() and (path == users or users in path.parents)

    def relative(self, path: Path) -> str:
        """The workspace-relative POSIX form of a path inside it."""
        return path.resolve().relative_to(self.root.resolve()).as_posix()

    def shown(self, path: Path) -> str:
        """How a path is named to the owner or a model: relative to the workspace when it is
        inside it (a model never needs the owner's home folder), absolute otherwise."""
        try:
            return Path(os.path.normpath(path)).relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def inside(self, path: Path) -> bool:
        """Whether `path`, after every link, stays where `confine` allows."""
        try:
            self.confine(path)
        except TrinhoError:
            return False
        return True

    def confine(self, path: Path) -> Path:
        """The file or folder `path` really is, after every symbolic link, or a refusal.

        Every store reads and writes the resolved path, so a link inside the workspace keeps
        working (and stays a link: MEMORY.md is never replaced by a plain file), while a link
        that leads out of the workspace, or from a memory file into `.trinho/` (the tokens),
        is refused before anything is read or written.
        """
        real = path.resolve()
        if not any(real == root or root in real.parents for root in self._roots):
            raise TrinhoError.keyed("error.path.outside", path=self.shown(path))
        internal = self.root / INTERNAL_DIR
        named = Path(os.path.normpath(path.absolute()))
        real_internal = internal.resolve()
        if (real == real_internal or real_internal in real.parents) and not (
            named == internal or internal in named.parents
        ):
            raise TrinhoError.keyed("error.path.into_internal", path=self.shown(path))
        return real

    @property
    def internal(self) -> Path:
        return self.confine(self.root / INTERNAL_DIR)

    @property
    def memory_name(self) -> str:
        """The name of the workspace's long-term memory file: MEMORY.md, or a lone legacy
        `memory.md` (with both, MEMORY.md is the file and memory.md only searched: OpenClaw's
        `doctor --fix` merges it)."""
        names = root_entries(self.root)
        lone = LEGACY_MEMORY_FILE in names and MEMORY_FILE not in names
        return LEGACY_MEMORY_FILE if lone else MEMORY_FILE

    @property
    def memory_file(self) -> Path:
        return self.confine(self.root / self.memory_name)

    @property
    def archive_file(self) -> Path:
        return self.confine(self.root / ARCHIVE_FILE)

    @property
    def notes_dir(self) -> Path:
        return self.confine(self.root / NOTES_DIR)

    @property
    def conversations_dir(self) -> Path:
        return self.confine(self.root / CONVERSATIONS_DIR)

    def note_path(self, day: date) -> Path:
        return self.confine(self.root / NOTES_DIR / f"{day.isoformat()}.md")

    def conversation_path(self, day: date) -> Path:
        return self.confine(self.root / CONVERSATIONS_DIR / f"{day.isoformat()}.jsonl")

    @property
    def users_root(self) -> Path:
        """The users/ folder as configured (not resolved): it may point at a folder shared by
        several agents. Files under it go through `confine` like every other."""
        configured = Path(self.config.users_dir).expanduser()
        return configured if configured.is_absolute() else self.root / configured

    def user_dir(self, user: str) -> Path:
        validate_slug(user, "user id")
        return self.confine(self.users_root / user)

    @property
    def proposals_root(self) -> Path:
        configured = Path(self.config.proposals_dir).expanduser()
        return self.confine(configured if configured.is_absolute() else self.root / configured)

    def _lock_path(self, target: Path) -> Path:
        digest = hashlib.sha256(str(target.resolve()).encode()).hexdigest()[:24]
        return self.internal / "locks" / f"{digest}.lock"

    @contextlib.contextmanager
    def lock(self, target: Path) -> Iterator[None]:
        """Cross-process lock for one file; lock files live in .trinho/locks, not beside it.

        Every store write holds one, so its end is where trinho's own folders, made by then,
        get their ignore file (`ignore_own_state`)."""
        with file_lock(self._lock_path(target)):
            yield
        ignore_own_state(self)

    def intent_path(self, target: Path) -> Path:
        """Where an append to `target` records its start and length (beside its lock file)."""
        return self._lock_path(target).with_suffix(".intent")

    @contextlib.contextmanager
    def read_lock(self, target: Path) -> Iterator[None]:
        """Shared lock for reading one file: waits out an append, never creates anything."""
        with shared_lock_if_present(self._lock_path(target)):
            yield

    def days_between(self, since: date, until: date) -> list[date]:
        return [since + timedelta(days=i) for i in range((until - since).days + 1)]


GIT_IGNORE = "# trinho's own state, kept out of git by trinho\n*\n"
"""What `.gitignore` says in each folder trinho owns: everything in it, itself included."""


def own_folders(ws: Workspace) -> tuple[Path, ...]:
    """The folders at the workspace root that are trinho's own: `.trinho/`, and the users and
    proposals folders when the config keeps them inside the workspace."""
    folders = [ws.root / INTERNAL_DIR]
    for configured in (ws.config.users_dir, ws.config.proposals_dir):
        folder = Path(configured).expanduser()
        if not folder.is_absolute():
            folders.append(ws.root / folder)
    return tuple(folders)


def ignore_own_state(ws: Workspace) -> None:
    """In a git workspace (OpenClaw's is one, and its agent commits), give each of trinho's
    own folders that exists a `.gitignore` ignoring all of it, so they never show as untracked;
    no file of the owner's (the workspace's own `.gitignore`) is touched. Idempotent: a folder
    that has one keeps it as it is."""
    if not (ws.root / ".git").exists():
        return
    for folder in own_folders(ws):
        marker = folder / ".gitignore"
        if folder.is_dir() and not folder.is_symlink() and not marker.exists():
            atomic_write_text(marker, GIT_IGNORE)


def _allowed_roots(root: Path, config: Config) -> tuple[Path, ...]:
    """Where trinho may read and write: the workspace, and a users/ or proposals folder the
    config names by an absolute path (a folder shared by several agents). A relative one is part
    of the workspace, so a link there must not lead out of it. Resolved once per workspace: every
    path accessor checks against them."""
    roots = [root]
    for configured in (config.users_dir, config.proposals_dir):
        folder = Path(configured).expanduser()
        if folder.is_absolute():
            roots.append(folder.resolve())
    return tuple(roots)


def default_home() -> Path:
    """Where the workspace is when neither --workspace nor TRINHO_HOME is given."""
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "trinho" / "workspace"


def is_workspace(folder: Path) -> bool:
    """Whether `folder` holds a workspace: trinho's config, or an OpenClaw-style MEMORY.md
    beside its `memory/` folder of notes."""
    try:
        return (folder / CONFIG_PATH).is_file() or (
            (folder / MEMORY_FILE).is_file() and (folder / NOTES_DIR).is_dir()
        )
    except OSError:
        return False


def find_workspace(start: Path) -> Path | None:
    """The nearest workspace from `start` upward (`start` itself first); None when no folder
    on the way up holds one. So a command run inside `~/assistant/memory` works on
    `~/assistant`, not on the default data folder."""
    for folder in (start, *start.parents):
        if is_workspace(folder):
            return folder
    return None


def root_entries(root: Path) -> set[str]:
    """The names at a folder's root, exactly as spelled (a case-insensitive disk must not make
    `agents.md` count as `AGENTS.md`, nor `MEMORY.md` as `memory.md`)."""
    try:
        return set(os.listdir(root))
    except OSError:
        return set()


def looks_like_openclaw(root: Path) -> bool:
    """Whether the folder has one of OpenClaw's signs at its root."""
    return bool(root_entries(root) & set(OPENCLAW_SIGNS))


def openclaw_config_path(env: Mapping[str, str] | None = None) -> Path:
    """Where OpenClaw keeps its config, as OpenClaw 2026.9.6 looks for it:
    `OPENCLAW_CONFIG_PATH`, else `openclaw.json` in `OPENCLAW_STATE_DIR`, else in
    `~/.openclaw` (`~/.openclaw-PROFILE` for a named `OPENCLAW_PROFILE`), home being
    `OPENCLAW_HOME` when set."""
    env = os.environ if env is None else env
    if env.get("OPENCLAW_CONFIG_PATH", "").strip():
        return Path(env["OPENCLAW_CONFIG_PATH"].strip()).expanduser()
    if env.get("OPENCLAW_STATE_DIR", "").strip():
        return Path(env["OPENCLAW_STATE_DIR"].strip()).expanduser() / "openclaw.json"
    home = env.get("OPENCLAW_HOME", "").strip() or env.get("HOME", "") or str(Path.home())
    profile = env.get("OPENCLAW_PROFILE", "").strip()
    folder = f".openclaw-{profile}" if profile and profile.lower() != "default" else ".openclaw"
    return Path(home).expanduser() / folder / "openclaw.json"


def openclaw_timezone(env: Mapping[str, str] | None = None) -> str | None:
    """`agents.defaults.userTimezone` from OpenClaw's config, None when there is none.

    The file is JSON5 (comments, trailing commas), read with the json5 package. One that is
    missing, unreadable or not JSON5 gives None: OpenClaw's own problem, not a reason to stop
    trinho. A zone that is set but unknown is a keyed error naming the file.
    """
    import json5

    path = openclaw_config_path(env)
    try:
        raw = json5.loads(read_regular(path).decode("utf-8"))
    except (OSError, TrinhoError, UnicodeDecodeError, ValueError):
        return None
    zone: object = raw
    for key in ("agents", "defaults", "userTimezone"):
        zone = zone.get(key) if isinstance(zone, dict) else None
    if not isinstance(zone, str) or not zone.strip():
        return None
    load_zone(zone.strip(), f"{path} agents.defaults.userTimezone")
    return zone.strip()


def open_workspace(
    root: str | Path, clock: Clock | None = None, on_written: WrittenHook | None = None
) -> Workspace:
    """Open an existing workspace, trinho's own or an OpenClaw one, without writing.

    A fresh OpenClaw workspace (AGENTS.md, no memory yet) opens as it is. In an OpenClaw
    workspace whose trinho config does not set a zone, OpenClaw's `userTimezone` is the zone,
    so day files are named by the same date as OpenClaw's.
    """
    path = Path(root).expanduser()
    if not path.is_dir():
        raise TrinhoError.keyed("error.workspace.missing", path=path)
    config = read_config(path)
    openclaw = looks_like_openclaw(path)
    if config is None:
        names = root_entries(path)
        if not (
            openclaw or {MEMORY_FILE, LEGACY_MEMORY_FILE} & names or (path / NOTES_DIR).is_dir()
        ):
            raise TrinhoError.keyed(
                "error.workspace.not_one",
                path=path,
                config=CONFIG_PATH,
                memory=MEMORY_FILE,
                notes=NOTES_DIR,
            )
        config = Config(timezone=(openclaw and openclaw_timezone()) or local_zone_name())
    elif openclaw and not zone_given(path):
        config = replace(config, timezone=openclaw_timezone() or config.timezone)
    return Workspace(path.resolve(), config, clock or clock_from_env(), on_written)


def read_zone_history(root: Path) -> tuple[ZoneSpan, ...]:
    """The zone spans recorded at `root` (a torn last line, cut by a crash, is left out)."""
    path = root / ZONES_FILE
    if not path.exists():
        return ()
    spans = []
    for line in read_regular(path).decode("utf-8", "replace").split("\n"):
        try:
            value = json.loads(line)
            since = None if value["since"] is None else datetime.fromisoformat(value["since"])
            zone = str(value["zone"])
            load_zone(zone, str(path))
        except (ValueError, KeyError, TypeError, TrinhoError):
            continue
        if since is None or since.tzinfo is not None:
            spans.append(ZoneSpan(None if since is None else since.astimezone(UTC), zone))
    return tuple(spans)


READ_FLOOR_FILE = f"{INTERNAL_DIR}/notes-journal/read-floor"
"""The read floor (`trinho.notes.journal`): the end of the span of the last run that started."""
CLOCK_BEHIND_FILE = f"{INTERNAL_DIR}/clock-behind.json"
"""Each read floor the clock was seen behind, with the earliest reading then
(`trinho.notes.journal.seen_behind`)."""
CLOCK_BACK_FILE = f"{INTERNAL_DIR}/clock-back"
"""The cutoff the owner was told the clock moved back behind; empty once the clock caught up
(`trinho.condense.run.clock_back_notice`)."""


def read_floor_at(root: Path) -> datetime | None:
    """The read floor (UTC) of the workspace at `root`; None when no run has started or the
    file is unreadable."""
    try:
        return parse_floor((root / READ_FLOOR_FILE).read_text(encoding="ascii"))
    except (OSError, UnicodeDecodeError):
        return None


def parse_floor(text: str) -> datetime | None:
    """The read floor written as `text` (UTC); None when it is not an instant with an offset
    (pure: a PostgreSQL owner keeps the same text as a row)."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    return moment.astimezone(UTC) if moment.tzinfo else None


def record_zone_change(root: Path, old: str, new: str, at: datetime) -> None:
    """Append the change from zone `old` to `new` at instant `at` (the first change also
    records `old` as the zone of everything before)."""
    path = root / ZONES_FILE
    ensure_dir(path.parent)
    lines = ""
    if not read_zone_history(root):
        lines += json.dumps({"since": None, "zone": old}) + "\n"
    lines += json.dumps({"since": at.astimezone(UTC).isoformat(), "zone": new}) + "\n"
    with file_lock(root / INTERNAL_DIR / "locks" / "zones.lock"):
        append_bytes(path, lines.encode("utf-8"))


@dataclass(frozen=True)
class ZoneChange:
    """`trinho init --tz` changed the zone of an existing workspace, at instant `at`."""

    old: str
    new: str
    at: datetime


@dataclass(frozen=True)
class InitResult:
    workspace: Workspace
    created: list[str]
    zone_changed: ZoneChange | None = None


def init_workspace(
    root: str | Path,
    *,
    timezone: str | None = None,
    locale: str | None = None,
    owner: str | None = None,
    clock: Clock | None = None,
    on_written: WrittenHook | None = None,
) -> InitResult:
    """Create the workspace layout and config; idempotent, never touches existing content."""
    if timezone is not None:
        load_zone(timezone, "--tz")
    if locale is not None and locale not in LOCALES:
        raise TrinhoError.keyed("error.workspace.bad_locale", choices=", ".join(LOCALES))
    if owner is not None:
        validate_slug(owner, "owner id", "--owner")
    clock = clock or clock_from_env()
    path = Path(root).expanduser()
    existing = read_config(path)
    ensure_dir(path)
    path = path.resolve()
    base = existing or Config(timezone=local_zone_name())
    config = replace(
        base,
        timezone=timezone or base.timezone,
        owner=owner or base.owner,
        locale=locale or base.locale,
    )
    created: list[str] = []
    changed: ZoneChange | None = None
    if existing is not None and config.timezone != existing.timezone:
        at = clock().astimezone(UTC)
        floor = read_floor_at(path)
        if floor is not None and at < floor:  # a clock set back: the change is not dated into
            at = floor  # a span already read, as a note saved then counts at the floor
        changed = ZoneChange(existing.timezone, config.timezone, at)
        record_zone_change(path, existing.timezone, config.timezone, changed.at)
    if existing is None or config != existing:
        if existing is not None:
            text = read_regular(path / CONFIG_PATH).decode("utf-8")
            text = update_owner_values(text, config)
        else:
            text = render_config(config)
        parse_config(text)
        write_secret_text(path / CONFIG_PATH, text)
        created.append(CONFIG_PATH)
    workspace = Workspace(
        path, parse_config(read_regular(path / CONFIG_PATH).decode("utf-8")), clock, on_written
    )
    for folder in (
        path / NOTES_DIR,
        path / CONVERSATIONS_DIR,
        workspace.user_dir(config.owner) / "facts",
        workspace.proposals_root,
    ):
        if not folder.is_dir():
            ensure_dir(folder)
            created.append(_rel(folder, path))
    return InitResult(workspace, created, changed)


def _rel(folder: Path, root: Path) -> str:
    try:
        return folder.relative_to(root).as_posix() + "/"
    except ValueError:
        return str(folder) + "/"
