"""Drive trinho against a real OpenAI-compatible model server and check its promises.

Run by bench/real_model.sh once the server is up; usable on its own against any server:

    .venv/bin/python bench/real_model.py --base-url http://127.0.0.1:8080/v1 --model NAME

Every step runs the `trinho` command of this venv in a fresh workspace, as an owner would:
`model check`, `demo`, a condensation of a realistic week (Vietnamese and English) and its
undo, and a chat whose messages invite tool calls. The checks are the promises, not the
model's quality: no traceback anywhere, no line of MEMORY.md lost (each is still there or
waits in a proposal), the undo byte-identical, nothing of an undone run left to approve, every
chat message answered, every call in the ledger. Prints one line per step and the totals;
exits 1 when a promise is broken.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TRINHO = str(Path(sys.executable).with_name("trinho"))
RUN_AT = "2026-11-29T20:00:00+07:00"

MEMORY = """\
# MEMORY

## Gia đình
- 2026-03-02: Vợ tên Lan, làm giáo viên tiếng Anh
- 2026-05-10: Con gái tên Mai, học lớp ba
- 2026-08-15: Mẹ sống ở Huế, gọi điện mỗi tối chủ nhật

## Công việc
- 2026-01-12: Kỹ sư phần mềm ở một công ty logistics tại Hà Nội
- 2026-09-01: Dẫn dắt dự án chuyển hệ thống kho sang Kubernetes

## Sức khỏe và thói quen
- 2026-10-20: Chạy bộ mỗi sáng chủ nhật quanh hồ Tây
- 2026-06-03: Dị ứng tôm, không ăn hải sản có vỏ

## Preferences
- 2026-04-18: Prefers green tea to coffee after lunch
- 2026-07-09: Reads on a Kindle; likes history books about Vietnam
"""

NOTES = [
    ("2026-11-23T08:10:00+07:00", "Mai được chọn vào đội bơi của trường, tập thứ Tư và thứ Sáu"),
    ("2026-11-23T21:30:00+07:00", "Gọi cho mẹ, mẹ khỏe, hẹn Tết về Huế"),
    ("2026-11-24T12:40:00+07:00", "Team lunch: decided the warehouse cutover is on 2026-12-14"),
    ("2026-11-25T07:15:00+07:00", "Chạy 8 km quanh hồ Tây, đầu gối hơi đau"),
    ("2026-11-26T19:00:00+07:00", "Lan nhận lớp luyện thi IELTS buổi tối thứ Ba"),
    ("2026-11-27T09:30:00+07:00", "Dentist appointment moved to 2026-12-03 at 9:00"),
    ("2026-11-28T15:20:00+07:00", "Hẹn ngân hàng thứ Ba 2026-12-01 bàn khoản vay mua nhà"),
    ("2026-11-29T10:05:00+07:00", "Finished 'The Sympathizer'; next: a book on the Nguyễn dynasty"),
]

TURNS = [
    ("2026-11-24T20:00:00+07:00", "user", "Nhắc mình: thứ Sáu này đón Mai lúc 17:00 sau giờ bơi"),
    ("2026-11-24T20:00:05+07:00", "assistant", "Đã ghi: thứ Sáu đón Mai lúc 17:00."),
    ("2026-11-27T21:00:00+07:00", "user", "I'm thinking of switching my morning run to Saturday"),
    ("2026-11-27T21:00:04+07:00", "assistant", "Noted. Saturday mornings around West Lake?"),
]

CHAT = [
    "Mình đã hẹn gì với ngân hàng tuần này? Tìm trong trí nhớ giúp mình.",
    "Please remember that my favourite drink is iced milk coffee.",
    "What do you know about my daughter Mai?",
]


@dataclass
class Step:
    name: str
    code: int
    seconds: float
    out: str
    err: str
    calls: int = 0
    tokens: int = 0


@dataclass
class Checks:
    broken: list[str] = field(default_factory=list)

    def require(self, ok: bool, what: str) -> None:
        print(f"  {'ok    ' if ok else 'BROKEN'} {what}")
        if not ok:
            self.broken.append(what)


def run(env: dict[str, str], *args: str, timeout: float = 3600) -> tuple[int, str, str, float]:
    start = time.monotonic()
    done = subprocess.run(
        [TRINHO, *args], capture_output=True, text=True, env=env, timeout=timeout, check=False
    )
    return done.returncode, done.stdout, done.stderr, time.monotonic() - start


def ledger(home: Path) -> list[dict[str, Any]]:
    path = home / ".trinho" / "usage.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def tokens_of(records: list[dict[str, Any]]) -> int:
    return sum(int(r.get("input_tokens", 0)) + int(r.get("output_tokens", 0)) for r in records)


def step(name: str, env: dict[str, str], home: Path, checks: Checks, *args: str) -> Step:
    before = len(ledger(home))
    code, out, err, seconds = run(env, *args)
    records = ledger(home)[before:]
    result = Step(name, code, seconds, out, err, len(records), tokens_of(records))
    checks.require("Traceback" not in out + err, f"{name}: no traceback")
    return result


def week(env: dict[str, str], home: Path) -> None:
    """The workspace of a realistic week, written through trinho's own commands."""
    subprocess.run(
        [TRINHO, "init", "--tz", "Asia/Ho_Chi_Minh", "--locale", "vi"], env=env, check=True
    )
    config = home / ".trinho" / "config.toml"
    with config.open("a", encoding="utf-8") as handle:
        handle.write("\n[model]\nmax_output_tokens = 1024\n\n[condense]\ncontext_tokens = 8192\n")
    (home / "MEMORY.md").write_text(MEMORY, encoding="utf-8")
    for at, text in NOTES:
        subprocess.run([TRINHO, "note", text], env={**env, "TRINHO_NOW": at}, check=True)
    turns = home.parent / "turns.jsonl"
    turns.write_text(
        "".join(
            json.dumps({"at": at, "role": role, "text": text}, ensure_ascii=False) + "\n"
            for at, role, text in TURNS
        ),
        encoding="utf-8",
    )
    subprocess.run([TRINHO, "import", "conversations", str(turns)], env=env, check=True)


def pending_ids(env: dict[str, str]) -> list[str]:
    code, out, _, _ = run(env, "proposals", "--json")
    return [p["id"] for p in json.loads(out) if p["status"] == "pending"] if code == 0 else []


def condensation(env: dict[str, str], home: Path, checks: Checks) -> list[Step]:
    before = (home / "MEMORY.md").read_bytes()
    steps = [step("condense", env, home, checks, "condense", "--json")]
    checks.require(steps[0].code == 0, "condense: exit 0")
    report = json.loads(steps[0].out) if steps[0].code == 0 else {}
    after = (home / "MEMORY.md").read_text(encoding="utf-8")
    waiting = pending_ids(env)
    _, queue, _, _ = run(env, "proposals", "--json")
    lost = [
        line
        for line in before.decode("utf-8").splitlines()
        if line.strip() and line not in after and line not in queue.replace("\\n", "\n")
    ]
    checks.require(lost == [], f"condense: no line lost ({len(lost)} missing: {lost[:2]})")
    held = report.get("counts", {}).get("held", "?")
    auto = report.get("counts", {}).get("auto", "?")
    print(f"  report: {auto} applied by themselves, {held} held, {len(waiting)} proposals wait")
    script = report.get("script") or {}
    print(
        f"  the model's answer: {script.get('operations', 0)} edit operations read, "
        f"{len(script.get('ignored', []))} lines ignored, chatter {script.get('chatter', 0)}"
    )
    print(f"  message: {' '.join(str(report.get('message', '')).split())[:300]}")
    run_id = report.get("run_id")
    if run_id:
        steps.append(step("undo", env, home, checks, "condense", "--undo", run_id, "--json"))
        checks.require(steps[-1].code == 0, "undo: exit 0")
        checks.require((home / "MEMORY.md").read_bytes() == before, "undo: byte-identical")
        approvable = [pid for pid in waiting if run(env, "approve", pid)[0] == 0]
        checks.require(approvable == [], f"undo: nothing of the run approvable ({approvable})")
        checks.require((home / "MEMORY.md").read_bytes() == before, "undo: still identical")
    return steps


FORCED = {
    "memory_search": "Find what I planned with the bank.",
    "memory_save": "Remember: iced milk coffee is my favourite drink.",
    "user_memory_save": "My home city is Hà Nội; save it as a fact.",
    "memory_get": "Show me MEMORY.md.",
    "memory_proposals": "What waits for my decision?",
}


def forced_tools(home: Path, base_url: str, model: str, checks: Checks) -> Step:
    """Each tool, forced by `tool_choice` (the server builds a grammar from trinho's schema),
    run by trinho's dispatcher, and its result sent back through trinho's own adapter: the
    round trip a model that does call tools makes, whatever this model would choose."""
    import openai

    from trinho.models import load_model
    from trinho.models.base import ChatRequest, ToolCall, assistant, tool_result, user
    from trinho.tools import service as tools
    from trinho.workspace import open_workspace

    start = time.monotonic()
    ledgered = len(ledger(home))
    client = openai.OpenAI(base_url=base_url, api_key="not-needed", timeout=600, max_retries=0)
    specs = tools.export("openai")
    env = {"TRINHO_MODEL": f"llamacpp:{model}", "TRINHO_BASE_URL": base_url}
    ws = open_workspace(home)
    adapter = load_model(ws, "chat", env=env)
    errors = answered = 0
    for name, text in FORCED.items():
        forced = client.chat.completions.create(
            model=model,
            messages=[{"role": "user", "content": text}],
            tools=specs,  # type: ignore[arg-type]
            tool_choice={"type": "function", "function": {"name": name}},
            max_tokens=200,
        )
        calls = forced.choices[0].message.tool_calls or []
        checks.require(bool(calls), f"forced {name}: the server built a grammar and answered")
        if not calls:
            continue
        wire = calls[0]
        arguments = wire.function.arguments  # type: ignore[union-attr]
        result = tools.call(ws, name, arguments, tools.Actor("chat", "bench"))
        errors += result.is_error
        call = ToolCall(wire.id or "call_1", name, {})
        request = ChatRequest(
            (user(text), assistant("", [call]), tool_result(call, result.text)),
            tools=tools.model_specs(),
            max_tokens=64,
        )
        adapter.chat(request)  # raises on any refusal: the follow-up is what broke before
        answered += 1
    checks.require(answered == len(FORCED), f"forced tools: every result sent back ({answered})")
    print(f"  forced tools: {answered} round trips, {errors} tool calls refused by trinho")
    records = ledger(home)[ledgered:]
    seconds = time.monotonic() - start
    return Step("forced tools", 0, seconds, "", "", len(FORCED) + len(records), tokens_of(records))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    args = parser.parse_args()
    checks = Checks()
    steps: list[Step] = []
    with tempfile.TemporaryDirectory(prefix="trinho-real-") as tmp:
        home = Path(tmp) / "ws"
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("TRINHO_")},
            "TRINHO_HOME": str(home),
            "TRINHO_NOW": RUN_AT,
            "TRINHO_MODEL": f"llamacpp:{args.model}",
            "TRINHO_BASE_URL": args.base_url,
        }
        week(env, home)
        print("steps:")
        check = step("model check", env, home, checks, "model", "check", "--json")
        steps.append(check)
        checks.require(check.code in (0, 1), "model check: answers (ok or a one-line refusal)")
        print(f"  model check said: {(check.out or check.err).strip()[:200]}")
        demo = step("demo", env, home, checks, "demo", "--json")
        steps.append(demo)
        checks.require(demo.code == 0, "demo: exit 0")
        steps += condensation(env, home, checks)
        chat = step("chat", env, home, checks, "chat", *(f"-m{m}" for m in CHAT), "--json")
        steps.append(chat)
        checks.require(chat.code == 0, "chat: exit 0")
        turns = json.loads(chat.out)["turns"] if chat.code == 0 else []
        checks.require(len(turns) == len(CHAT), f"chat: every message answered ({len(turns)})")
        tools = sum(len(t["tools"]) for t in turns)
        print(f"  chat: {tools} tool calls across {len(turns)} turns")
        steps.append(forced_tools(home, args.base_url, args.model, checks))
        records = ledger(home)
        failed = [r for r in records if "failure" in r]
        print(f"  ledger: {len(records)} calls, {len(failed)} failed, {tokens_of(records)} tokens")
    print("\nstep          exit   seconds  calls   tokens")
    for s in steps:
        print(f"{s.name:<13} {s.code:>4} {s.seconds:>9.1f} {s.calls:>6} {s.tokens:>8}")
    total = sum(s.seconds for s in steps)
    print(f"{'total':<13} {'':>4} {total:>9.1f} {sum(s.calls for s in steps):>6}")
    print("\npromises:", "all kept" if not checks.broken else f"{len(checks.broken)} BROKEN")
    return 1 if checks.broken else 0


if __name__ == "__main__":
    sys.exit(main())
