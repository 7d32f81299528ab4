"""Condensation quality: the gold set's weeks (or a generated year) through the real
`trinho condense`, scored on what the memory learned, kept, resolved and wrongly wrote.

Usage: python bench/condense_quality.py [--scripted] [--model PROVIDER:MODEL ...]
                                        [--base-url URL] [--context N] [--max-output N]
                                        [--timeout S] [--only ID,ID] [--detail]
                                        [--weeks 52] [--seed 1] [--ignore 0.25]

Each gold week (`bench/quality/weeks/*.toml`, README.md there) gets a fresh workspace: its
MEMORY.md, its notes saved at their minutes and its conversation turns recorded, then
`run_condensation` on the Sunday at 21:00, the function `trinho condense` calls, with the model
under test: the edit script is parsed, its lines screened, the gate judges them, held changes
become proposals. `quality/score.py` then compares MEMORY.md before and after, and the new
sides of the proposals, with the week's gold by the matching rule of `quality/match.py`.

The table: the scripted perfect assistant (the ceiling), the scripted adversary (the floor), no
memory at all (computed: nothing kept, nothing learned), then each `--model` (the configured
server: `[model] name`, `--base-url`, `[condense] context_tokens` = `--context`). `--scripted`
runs the scripted rows alone (what CI can afford); it is the default without `--model`.

`--weeks N` replays one owner for N weeks instead (`quality/life.py`, seeded by `--seed`): one
workspace, a run every Sunday, and after each run a simulated owner who approves the waiting
changes that carry what is true, rejects the others, and leaves a share (`--ignore`) unanswered.
Scores are printed by quarter, with how much of what is true at each quarter's end MEMORY.md
carries (`truth`) and how many superseded values it still carries (`stale`), so drift shows.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from datetime import time as dtime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from quality.gold import ZONE, Week, load_weeks
from quality.life import FIRST_MONDAY, START, TZ, Life
from quality.match import carries
from quality.players import adversary, perfect
from quality.score import Outcome, Score, Waiting, no_memory, score_week, share, total
from trinho.channels import ConsoleChannel
from trinho.condense import RunReport, run_condensation
from trinho.conversations.store import record_turn
from trinho.memory import store as memory_store
from trinho.models import ChatModel
from trinho.notes.store import save_note
from trinho.proposals import store as proposals
from trinho.review.appliers import APPLIERS
from trinho.workspace import Workspace, init_workspace, open_workspace

MakeModel = Callable[[Week], ChatModel | None]
"""A week's model: a scripted one, or None for the workspace's configured server."""


@dataclass(frozen=True)
class Server:
    """A configured model server: written into each workspace's config."""

    name: str
    base_url: str | None = None
    context: int | None = None
    max_output: int | None = None
    timeout: int | None = None

    def config(self) -> str:
        lines = ["", "[model]", f'name = "{self.name}"']
        if self.base_url:
            lines.append(f'base_url = "{self.base_url}"')
        if self.max_output:
            lines.append(f"max_output_tokens = {self.max_output}")
        if self.timeout:
            lines.append(f"timeout = {self.timeout}")
        if self.context:
            lines += ["", "[condense]", f"context_tokens = {self.context}"]
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Player:
    name: str
    model: MakeModel
    server: Server | None = None


class Clock:
    """The workspace's clock, moved by the bench."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def new_workspace(root: Path, locale: str, clock: Clock, server: Server | None) -> Workspace:
    ws = init_workspace(root, timezone=ZONE, locale=locale, clock=clock).workspace
    if server is not None:
        config = ws.internal / "config.toml"
        config.write_text(config.read_text(encoding="utf-8") + server.config(), encoding="utf-8")
    return open_workspace(root, clock)


def live(ws: Workspace, clock: Clock, week: Week) -> None:
    """Save the week's notes at their minutes and record its turns."""
    for said in week.said:
        clock.now = said.at
        if said.who == "note":
            save_note(ws, said.text)
        else:
            record_turn(ws, said.who, said.text, at=said.at)


def waiting(report: RunReport) -> tuple[Waiting, ...]:
    """The changes the run left for the owner, as the scorer reads them."""
    found = []
    for rc in report.held:
        if rc.proposal_id is None:
            continue
        c = rc.change
        if c.cls == "suspicious" and c.rewrite is not None:
            new: tuple[str, ...] = tuple(c.rewrite.split("\n"))
        else:
            new = (c.new,) if c.new else ()
        found.append(Waiting(c.cls, c.old, new))
    return tuple(found)


def condense(ws: Workspace, clock: Clock, week: Week, model: ChatModel | None) -> Outcome:
    """One run of the real condensation at the week's Sunday 21:00."""
    clock.now = datetime.fromisoformat(week.run_at)
    before = memory_store.read_text(ws)
    started = time.perf_counter()
    report = run_condensation(ws, model=model, channel=ConsoleChannel(ws.locale, io.StringIO()))
    seconds = time.perf_counter() - started
    script = report.script or {}
    return Outcome(
        before,
        memory_store.read_text(ws),
        waiting(report),
        tokens=sum(c.input_tokens + c.output_tokens for c in report.calls),
        seconds=seconds,
        calls=report.model_calls,
        ops=int(script.get("operations", 0)),
        chatter=int(script.get("chatter", 0)),
    )


def gold_week(week: Week, player: Player) -> Score:
    with tempfile.TemporaryDirectory() as tmp:
        clock = Clock(datetime.fromisoformat(week.run_at))
        ws = new_workspace(Path(tmp) / "ws", week.locale, clock, player.server)
        if week.memory:
            ws.memory_file.write_text(week.memory.lstrip("\n"), encoding="utf-8")
        live(ws, clock, week)
        return score_week(week, condense(ws, clock, week, player.model(week)))


# --- the year ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Quarter:
    score: Score
    truth: float
    stale: int
    lines: int


def good_change(change: dict[str, object], life: Life) -> bool:
    """What an owner who follows the gold approves: an archive, or a change whose new lines
    carry something true and none of them a superseded value, or the removal of a line that
    carries only a superseded value."""
    cls = change.get("class")
    if cls == "archive":
        return True
    if cls == "suspicious":
        return False
    new = change.get("new")
    old = change.get("old")
    truth, stale = life.truth(), life.stale()

    def true(line: str) -> bool:
        return any(carries(line, i.need, i.avoid) for i in truth)

    def outdated(line: str) -> bool:
        return any(carries(line, i.need, i.avoid) for i in stale) and not true(line)

    if isinstance(new, str):
        return true(new) and not outdated(new)
    return isinstance(old, str) and outdated(old)


def owner_decides(ws: Workspace, life: Life, rng: random.Random, ignore: float) -> None:
    for p in proposals.list_proposals(ws, include_decided=False).proposals:
        if rng.random() < ignore:
            continue
        if good_change(p.change, life):
            proposals.approve(ws, p.id, "owner", appliers=APPLIERS)
        else:
            proposals.reject(ws, p.id, "owner")


def memory_measures(text: str, life: Life) -> tuple[float, int, int]:
    """(share of what is true that MEMORY.md carries, superseded values it carries, lines)."""
    lines = [line for line in text.split("\n") if line.startswith("- ")]
    truth = life.truth()
    found = sum(any(carries(line, i.need, i.avoid) for line in lines) for i in truth)
    outdated = [line for line in lines if not any(carries(line, t.need, t.avoid) for t in truth)]
    stale = sum(any(carries(line, i.need, i.avoid) for line in outdated) for i in life.stale())
    return found / max(1, len(truth)), stale, len(lines)


def replay_year(weeks: int, seed: int, player: Player, ignore: float) -> list[Quarter]:
    life = Life(seed)
    rng = random.Random(f"owner:{seed}")
    quarters: list[Quarter] = []
    scores: list[Score] = []
    with tempfile.TemporaryDirectory() as tmp:
        clock = Clock(datetime.combine(FIRST_MONDAY - timedelta(days=1), dtime(20, 0), TZ))
        ws = new_workspace(Path(tmp) / "ws", "vi", clock, player.server)
        ws.memory_file.write_text(START, encoding="utf-8")
        for number in range(1, weeks + 1):
            week = life.week(number, memory_store.read_text(ws))
            live(ws, clock, week)
            scores.append(score_week(week, condense(ws, clock, week, player.model(week))))
            owner_decides(ws, life, rng, ignore)
            if number % 13 == 0 or number == weeks:
                truth, stale, lines = memory_measures(memory_store.read_text(ws), life)
                quarters.append(Quarter(total(scores), truth, stale, lines))
                scores = []
    return quarters


# --- the table ---------------------------------------------------------------------------------


def cell(part: int, whole: int) -> str:
    value = share(part, whole)
    return f"{value:.2f} ({part}/{whole})" if value is not None else "n/a"


HEAD = (
    "| model | weeks | learned | kept | resolved | junk | other | questions | tokens | seconds |",
    "|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
)


def row(name: str, s: Score) -> str:
    return (
        f"| {name} | {s.weeks} | {cell(s.learned, s.learn)} | {cell(s.kept, s.keep)} | "
        f"{cell(s.resolved, s.resolve)} | {s.junk}/{s.junk_items} | {s.other} | {s.questions} | "
        f"{s.tokens:,} | {s.seconds:.1f} |"
    )


def week_row(week: Week, s: Score) -> str:
    return (
        f"  {week.id:<28} learned {s.learned}/{s.learn}  kept {s.kept}/{s.keep}  "
        f"resolved {s.resolved}/{s.resolve}  junk {s.junk}/{s.junk_items}  other {s.other}  "
        f"questions {s.questions}  tokens {s.tokens}  {s.seconds:.1f} s  "
        f"ops {s.ops}  chatter {s.chatter}"
    )


def players(args: argparse.Namespace) -> list[Player]:
    found = [
        Player("scripted perfect (ceiling)", perfect),
        Player("scripted adversary (floor)", adversary),
    ]
    for name in args.model:
        server = Server(name, args.base_url, args.context, args.max_output, args.timeout)
        found.append(Player(name, lambda week: None, server))
    return found


def gold_table(args: argparse.Namespace) -> list[str]:
    only = [s for s in args.only.split(",") if s] if args.only else []
    weeks = load_weeks(only=only)
    out = [f"{len(weeks)} gold weeks", *HEAD]
    detail: list[str] = []
    for player in players(args):
        scores = []
        for week in weeks:
            scores.append(gold_week(week, player))
            detail.append(f"{player.name}: " + week_row(week, scores[-1]).strip())
            print(detail[-1], file=sys.stderr, flush=True)
        out.append(row(player.name, total(scores)))
        if player.name.startswith("scripted adversary"):
            out.append(row("no memory", total(no_memory(w) for w in weeks)))
        if args.detail:
            detail += [f"    {m}" for s in scores for m in s.missed]
    return out + (["", *detail] if args.detail else [])


def year_table(args: argparse.Namespace) -> list[str]:
    out = [
        f"{args.weeks} generated weeks, seed {args.seed}, the owner leaves "
        f"{args.ignore:.0%} of questions unanswered",
        "| model | quarter | learned | kept | resolved | junk | other | questions | tokens "
        "| seconds | truth | stale | entries |",
        "|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for player in players(args):
        for n, q in enumerate(replay_year(args.weeks, args.seed, player, args.ignore), 1):
            s = q.score
            out.append(
                f"| {player.name} | Q{n} | {cell(s.learned, s.learn)} | {cell(s.kept, s.keep)} | "
                f"{cell(s.resolved, s.resolve)} | {s.junk}/{s.junk_items} | {s.other} | "
                f"{s.questions} | {s.tokens:,} | {s.seconds:.1f} | {q.truth:.2f} | {q.stale} | "
                f"{q.lines} |"
            )
            print(out[-1], file=sys.stderr, flush=True)
    return out


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scripted", action="store_true", help="the scripted rows alone")
    parser.add_argument("--model", action="append", default=[], metavar="PROVIDER:MODEL")
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--context", type=int, default=None, help="[condense] context_tokens")
    parser.add_argument("--max-output", type=int, default=None, help="[model] max_output_tokens")
    parser.add_argument("--timeout", type=int, default=None, help="[model] timeout, seconds")
    parser.add_argument("--only", default="", help="gold week ids, comma-separated")
    parser.add_argument("--detail", action="store_true", help="what each week missed")
    parser.add_argument("--weeks", type=int, default=0, help="replay a generated year instead")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ignore", type=float, default=0.25, help="share of questions left")
    args = parser.parse_args(argv)
    if args.scripted:
        args.model = []
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    lines = year_table(args) if args.weeks else gold_table(args)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
