"""The docs in docs/ stay true: every command and option, config key and environment variable
the code knows is documented, every relative link resolves, and the console sessions marked
`<!-- replay -->` print what they show when run again, command by command."""

from __future__ import annotations

import ast
import contextlib
import doctest
import importlib
import inspect
import io
import json
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

from support.fake_model_server import FakeServer, Reply, openai_reply
from trinho.cli import cli, main
from trinho.config import declared_keys

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SRC = ROOT / "src" / "trinho"
PRETTY = "| python3 -m json.tool --no-ensure-ascii"


def _doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


# ---- commands and options ---------------------------------------------------------------------


def _commands(group: click.Command, path: str = "trinho") -> Iterator[tuple[str, click.Command]]:
    yield path, group
    if isinstance(group, click.Group):
        ctx = click.Context(group)  # list and get through click: the root group loads lazily
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None, f"{path} {name}"
            yield from _commands(command, f"{path} {name}")


def _sections(text: str) -> dict[str, str]:
    """The text under each `### \\`trinho ...\\`` heading of docs/cli.md, by command path."""
    parts = re.split(r"^### `(trinho[^`]*)`\s*$", text, flags=re.M)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts), 2)}


def test_every_command_and_option_is_in_the_cli_page() -> None:
    sections = _sections(_doc("cli.md"))
    for path, command in _commands(cli):
        if path == "trinho":
            continue
        assert path in sections, f"docs/cli.md has no '### `{path}`' section"
        body = sections[path]
        for param in command.params:
            if isinstance(param, click.Option):
                flag = max(param.opts, key=len)
                if flag in ("--help",):
                    continue
                assert f"`{flag}" in body, f"docs/cli.md: `{path}` does not document {flag}"
            elif isinstance(param, click.Argument):
                shown = (param.metavar or param.name or "").upper()
                assert shown in body, f"docs/cli.md: `{path}` does not name its argument {shown}"
        json_flag = any(isinstance(p, click.Option) and "--json" in p.opts for p in command.params)
        if json_flag:
            assert "```json" in body, f"docs/cli.md: `{path}` has --json but no JSON shape"


def test_the_cli_page_documents_no_command_that_does_not_exist() -> None:
    known = {path for path, _ in _commands(cli)}
    for path in _sections(_doc("cli.md")):
        assert path in known, f"docs/cli.md documents `{path}`, which `trinho --help` lacks"


def test_global_options_are_documented() -> None:
    text = _doc("cli.md")
    for param in cli.params:
        if isinstance(param, click.Option) and "--help" not in param.opts:
            assert f"`{max(param.opts, key=len)}" in text


# ---- configuration keys and environment variables ---------------------------------------------


def test_every_declared_config_key_is_documented() -> None:
    text = _doc("configuration.md")
    keys = declared_keys()
    assert {"owner", "paths", "model", "budget", "telegram", "web", "mcp"} <= keys.keys()
    for section, names in sorted(keys.items()):
        assert f"### `[{section}]" in text, f"docs/configuration.md has no part for [{section}]"
        for key in names:
            assert f"`[{section}] {key}`" in text, (
                f"docs/configuration.md lacks `[{section}] {key}`"
            )


def test_every_documented_config_key_is_declared() -> None:
    documented = set(re.findall(r"`\[([a-z_]+)\] ([a-z_]+)`", _doc("configuration.md")))
    assert ("web", "port") in documented
    declared = {(section, key) for section, names in declared_keys().items() for key in names}
    assert sorted(documented - declared) == []


def _env_vars() -> set[str]:
    """Environment variables: upper-case string literals with an underscore that are not the
    name of something defined in the code, and names read through `environ.get("X")`."""
    names: set[str] = set()
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        names |= set(re.findall(r"(?<!metavar=)\"([A-Z][A-Z0-9]*_[A-Z0-9_]+)\"", text))
        names |= set(re.findall(r"environ\.get\(\"([A-Z][A-Z0-9_]*)\"", text))
    defined = set()
    for path in SRC.rglob("*.py"):
        defined |= set(re.findall(r"^\s*([A-Z][A-Z0-9_]*)\s*[:=]", path.read_text(), flags=re.M))
    return names - defined


def test_every_environment_variable_read_in_the_code_is_documented() -> None:
    names = _env_vars()
    assert {"TRINHO_HOME", "TRINHO_NOW", "TRINHO_MODEL", "TZ"} <= names
    text = _doc("configuration.md")
    for name in sorted(names):
        assert f"`{name}`" in text, f"docs/configuration.md does not document `{name}`"


def _toml_blocks(text: str) -> list[str]:
    return re.findall(r"```toml\n(.*?)```", text, flags=re.S)


def test_the_config_examples_are_read_by_the_code_without_error(tmp_path: Path) -> None:
    from trinho.channels.settings import telegram_settings
    from trinho.config.files import parse_config
    from trinho.models.config import resolve_model
    from trinho.search import configured_embedder
    from trinho.workspace import Workspace, system_clock

    blocks = _toml_blocks(_doc("configuration.md"))
    assert blocks
    for block in blocks:
        config = parse_config(block, "docs/configuration.md")
        if config.model.name is not None:
            resolve_model(config, {})
        ws = Workspace(tmp_path, config, system_clock)
        telegram_settings(ws, {})
        if config.search.embedder != "local":  # local needs the weights
            configured_embedder(ws)


# ---- links -------------------------------------------------------------------------------------


def _anchors(page: Path) -> set[str]:
    """The heading anchors GitHub makes: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    seen: dict[str, int] = {}
    anchors = set()
    for title in re.findall(r"^#{1,6} (.+)$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def test_every_relative_link_points_at_a_file_and_heading() -> None:
    for page in [*_pages(), ROOT / "README.md"]:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            file_part, _, anchor = target.partition("#")
            path = (page.parent / file_part).resolve() if file_part else page
            where = page.relative_to(ROOT)
            assert path.exists(), f"{where}: link to {target} leads nowhere"
            if anchor and path.suffix == ".md":
                assert anchor in _anchors(path), f"{where}: {target}: no such heading"


def test_the_index_lists_every_page() -> None:
    index = _doc("README.md")
    for page in _pages():
        if page.name != "README.md":
            assert f"]({page.name})" in index, f"docs/README.md does not link {page.name}"


# ---- replayed console sessions -----------------------------------------------------------------


@dataclass(frozen=True)
class Session:
    page: str
    files: dict[str, str]
    lines: list[str]
    replies: tuple[str, ...] = ()


def _sessions() -> list[Session]:
    """Console blocks after `<!-- replay -->`, with the files named by `<!-- file: NAME -->`
    blocks before them on the same page. They run in a fresh folder holding those files; an
    absolute TRINHO_HOME is a folder of its own, shown under the name the session gives it.
    `<!-- replay, model replies: A B -->` serves the files A, B as a model's answers, in order,
    from an OpenAI-compatible server on 127.0.0.1 (the last one repeats)."""
    found = []
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        files: dict[str, str] = {}
        for match in re.finditer(
            r"<!-- (replay(?:, model replies: ([^>]*?))?|file: (\S+)) -->\n```[a-z]*\n(.*?)```",
            text,
            flags=re.S,
        ):
            if match.group(3):
                files[match.group(3)] = match.group(4)
                continue
            replies = tuple(files[name] for name in (match.group(2) or "").split())
            lines = match.group(4).split("\n")[:-1]
            found.append(Session(page.name, dict(files), lines, replies))
    return found


SESSIONS = _sessions()


def _run(argv: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(argv)
    return out.getvalue() + err.getvalue()


def test_there_are_replayed_sessions() -> None:
    assert {s.page for s in SESSIONS} >= {"cli.md", "rules.md", "files.md"}


@pytest.mark.parametrize("session", SESSIONS, ids=[f"{s.page}-{i}" for i, s in enumerate(SESSIONS)])
def test_a_documented_session_prints_what_it_shows(
    session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown = replay(session, tmp_path, monkeypatch.setenv, monkeypatch.delenv, monkeypatch.chdir)
    expected = [line.rstrip() for line in session.lines]
    if shown != expected:
        at = next(
            (i for i, pair in enumerate(zip(shown, expected, strict=False)) if pair[0] != pair[1]),
            None,
        )
        at = min(len(shown), len(expected)) if at is None else at
        command = next((line for line in reversed(shown[:at]) if line.startswith("$ ")), "")
        pytest.fail(
            f"docs/{session.page}: after `{command}` the docs show {expected[at : at + 1]} but "
            f"it prints {shown[at : at + 1]}; if the change is meant, run "
            f"`.venv/bin/python tests/support/regen_docs.py {session.page}` and review the diff"
        )


def replay(
    session: Session,
    folder: Path,
    setenv: Callable[[str, str], None],
    delenv: Callable[..., None],
    chdir: Callable[[Path], None],
) -> list[str]:
    """Run a session's commands in `folder` and return the block as they print it now (also
    what `tests/support/regen_docs.py` writes back into the docs). The environment is changed only
    through `setenv` / `delenv`, so the caller decides how it is restored."""
    chdir(folder)
    for name in (
        "TRINHO_HOME",
        "TRINHO_NOW",
        "TZ",
        "TRINHO_MODEL",
        "TRINHO_BASE_URL",
        "OLLAMA_HOST",
    ):
        delenv(name, raising=False)
    setenv("XDG_DATA_HOME", str(folder / "xdg"))  # no default workspace of the machine
    for name, content in session.files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(content, encoding="utf-8")
    with contextlib.ExitStack() as stack:
        if session.replies:
            server = stack.enter_context(
                FakeServer(*(Reply(openai_reply(text)) for text in session.replies))
            )
            setenv("TRINHO_MODEL", "ollama:qwen3:8b")
            setenv("OLLAMA_HOST", server.url)
        return _replay_commands(session, folder, setenv)


def _replay_commands(
    session: Session, folder: Path, setenv: Callable[[str, str], None]
) -> list[str]:
    shown_home = real_home = ""
    shown: list[str] = []
    for line in session.lines:
        if not line.startswith("$ "):
            continue
        shown.append(line.rstrip())
        command = line[2:]
        if command.startswith("export "):
            name, _, value = command.removeprefix("export ").partition("=")
            if name == "TRINHO_HOME" and value.startswith("/"):
                shown_home, real_home = value, str(folder / "home")
                value = real_home
            setenv(name, value)
            continue
        pretty = command.endswith(PRETTY)
        argv = shlex.split(command.removesuffix(PRETTY))
        assert argv[0] == "trinho", f"{session.page}: only trinho commands replay: {command}"
        output = _run(argv[1:])
        if pretty:
            output = json.dumps(json.loads(output), indent=4, ensure_ascii=False) + "\n"
        if real_home:
            output = output.replace(real_home, shown_home)
        if output:
            shown += [out.rstrip() for out in output.rstrip("\n").split("\n")]
    return shown


# ---- Python examples ---------------------------------------------------------------------------


def _pycon_pages() -> dict[str, list[tuple[dict[str, str], str]]]:
    """Per page, its `<!-- pycon -->` blocks in order, each with the files named before it."""
    found: dict[str, list[tuple[dict[str, str], str]]] = {}
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        files: dict[str, str] = {}
        for match in re.finditer(
            r"<!-- (pycon|file: (\S+)) -->\n```[a-z]*\n(.*?)```", text, flags=re.S
        ):
            if match.group(2):
                files[match.group(2)] = match.group(3)
            else:
                found.setdefault(page.name, []).append((dict(files), match.group(3)))
    return found


PYCON = _pycon_pages()


@pytest.mark.parametrize("page", sorted(PYCON))
def test_the_python_sessions_of_a_page_run_as_shown(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The blocks of one page are one interpreter session, run in a fresh folder."""
    monkeypatch.chdir(tmp_path)
    for name in ("TRINHO_HOME", "TRINHO_NOW", "TRINHO_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    names: dict[str, object] = {}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report = io.StringIO()
    for number, (files, source) in enumerate(PYCON[page], start=1):
        for name, content in files.items():
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text(content, encoding="utf-8")
        where = f"{page} block {number}"
        test = doctest.DocTestParser().get_doctest(source, names, where, page, 0)
        runner.run(test, out=report.write, clear_globs=False)
        names = test.globs
    assert runner.failures == 0, report.getvalue()


# ---- the files under .trinho/ ------------------------------------------------------------------


def _internal_names() -> set[str]:
    """The first path part of every file or folder the code puts under `.trinho/`:
    `ws.internal / "x"` or `ws.internal / NAME` (NAME = "x" in the same module), and
    `f"{INTERNAL_DIR}/x"`."""
    names: set[str] = set()
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        constants = dict(re.findall(r"^([A-Z_]+) = \"([^\"]+)\"", text, flags=re.M))
        for ref in re.findall(r"\.internal / (\"[^\"]+\"|[A-Z_]+)", text):
            value = ref.strip('"') if ref.startswith('"') else constants.get(ref)
            if value:
                names.add(value.split("/")[0])
        names |= set(re.findall(r"\{INTERNAL_DIR\}/([\w.-]+)", text))
    return names


def test_every_file_under_the_internal_folder_is_documented() -> None:
    names = _internal_names()
    assert {"config.toml", "usage.jsonl", "outbox", "runs"} <= names
    text = _doc("files.md")
    for name in sorted(names):
        assert f".trinho/{name}" in text, f"docs/files.md does not describe .trinho/{name}"


def test_every_tool_and_resource_is_in_the_mcp_page() -> None:
    from trinho.mcp.server import RESOURCES
    from trinho.tools.service import TOOLS

    text = _doc("mcp.md")
    for tool in TOOLS:
        assert f"| `{tool.name}` |" in text, f"docs/mcp.md: no row for the tool {tool.name}"
        for argument in tool.parameters.get("properties", {}):
            assert f"`{argument}`" in text, f"docs/mcp.md: {tool.name}'s `{argument}` is missing"
    for resource in RESOURCES:
        assert f"`{resource.uri}`" in text, f"docs/mcp.md: no row for {resource.uri}"


# ---- the formats in docs/files.md ---------------------------------------------------------------


def _examples() -> dict[str, str]:
    text = _doc("files.md")
    found = re.findall(r"<!-- example: ([^>]+?) -->\n```[a-z]*\n(.*?)```", text, flags=re.S)
    return {name: body for name, body in found}


def test_the_documented_formats_are_read_by_the_real_parsers(tmp_path: Path) -> None:
    from trinho.conversations import store as transcripts
    from trinho.facts import parse_fact, render_fact
    from trinho.memory import format as memory_md
    from trinho.notes import format as note_format
    from trinho.proposals import store as proposals

    examples = _examples()
    assert set(examples) == {"fact home-city", "proposal", "conversations", "note", "memory"}
    fact = parse_fact(examples["fact home-city"], "files.md", expected_key="home-city")
    assert render_fact(fact) == examples["fact home-city"]  # written exactly so
    assert [v.value for v in fact.versions()] == ["Hà Nội", "Đà Nẵng"]
    proposal = json.loads(examples["proposal"])
    path = tmp_path / f"{proposal['id']}.json"
    path.write_text(examples["proposal"], encoding="utf-8")
    assert proposals._read(path).content_hash == proposal["content_hash"]  # the hash checks out
    turns = [
        transcripts.parse_turn_line(line, "files.md")
        for line in examples["conversations"].splitlines()
    ]
    assert [turn.role for turn in turns] == ["user", "assistant"]
    assert [e.lines for e in note_format.parse_note_file(examples["note"]).entries] == [1, 1, 2]
    kinds = [type(item).__name__ for item in memory_md.parse(examples["memory"]).items]
    assert kinds == ["Heading", "Entry", "Entry", "Loose", "Loose", "Heading", "Entry", "Loose"]


# ---- signatures --------------------------------------------------------------------------------


def _resolve(dotted: str) -> object:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise AssertionError(f"cannot import {dotted}")


def test_every_documented_signature_names_real_parameters() -> None:
    """`trinho.module.function(a, b=1, *, c=None)` in the docs: every name is a parameter of the
    real callable, so a renamed or removed argument cannot stay documented."""
    seen = 0
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        for dotted, params in re.findall(r"`(trinho(?:\.\w+)+)\(([^)`]*)\)", text):
            target = _resolve(dotted)
            assert callable(target), f"{page.name}: {dotted} is not callable"
            real = inspect.signature(target).parameters
            for part in params.split(","):
                name = part.split("=")[0].strip()
                if name == "ws" and "workspace" in real:
                    continue  # docs/python-api.md: `ws` stands for the workspace argument
                if name.isidentifier():
                    assert name in real, f"{page.name}: {dotted} has no parameter {name!r}"
            seen += 1
    assert seen >= 15


def _python_api_names() -> list[str]:
    """Every dotted name docs/python-api.md shows: `trinho.x.Name` in its prose and its code,
    and each name its `from trinho.x import a, b as c` and `import trinho.x` lines import."""
    text = _doc("python-api.md")
    names = set(re.findall(r"(?<![\w.])(trinho(?:\.[A-Za-z_]\w*)+)", text))
    for module, imported in re.findall(r"^(?:>>> )?from (trinho[\w.]*) import (.+)$", text, re.M):
        for part in imported.strip("()").split(","):
            names.add(f"{module}.{part.split(' as ')[0].strip()}")
    names |= set(re.findall(r"^(?:>>> )?import (trinho[\w.]*)", text, re.M))
    return sorted(names)


def test_every_dotted_name_in_the_python_api_page_imports() -> None:
    """Every name docs/python-api.md shows resolves: a moved module or a renamed value cannot
    stay documented."""
    names = _python_api_names()
    assert len(names) >= 40
    failed = []
    for dotted in names:
        try:
            _resolve(dotted)
        except (AssertionError, AttributeError) as exc:
            failed.append(f"{dotted}: {exc}")
    assert failed == []


def test_the_python_api_page_names_each_value_by_its_package() -> None:
    """A value a feature package exports (`trinho.notes.save_note`) is named by that path, not
    by the module it lives in (`trinho.notes.store.save_note`). `trinho.errors.TrinhoError` in
    a traceback is the class's own name, and the root's exports are the feature packages' too."""
    deeper = []
    for dotted in _python_api_names():
        *module, name = dotted.split(".")
        for cut in range(2, len(module)):
            package = importlib.import_module(".".join(module[:cut]))
            if name in getattr(package, "__all__", ()):
                deeper.append(f"{dotted} is {'.'.join(module[:cut])}.{name}")
                break
    assert deeper == []


def _fenced(page: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", _doc(page), flags=re.S)


def _check_server_command(command: str, args: list[str]) -> None:
    """A client's way of starting trinho is a command line `trinho mcp` accepts."""
    assert command == "trinho" and args[:1] == ["mcp"], (command, args)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main([*args, "--help"]) == 0, args


def test_every_client_snippet_parses_and_starts_a_real_command() -> None:
    import tomllib

    entries: list[dict[str, object]] = []
    for block in _fenced("clients.md", "json"):
        data = json.loads(block)
        entries += list((data.get("mcpServers") or data["servers"]).values())
    for block in _fenced("clients.md", "toml"):
        data = tomllib.loads(block)
        if "tools" in data:  # `trinho chat` offering Claude's memory tool
            assert data == {"tools": {"claude_memory": True}}
            continue
        entries += list(data["mcp_servers"].values())
    started = [e for e in entries if "command" in e]
    for entry in started:
        _check_server_command(str(entry["command"]), list(entry["args"]))  # type: ignore[call-overload]
        assert "TRINHO_HOME" in entry["env"]  # type: ignore[operator]
    for entry in (e for e in entries if "url" in e):
        assert entry["url"] == "http://127.0.0.1:8765/mcp"
    shell = [line for block in _fenced("clients.md", "sh") for line in block.splitlines()]
    for line in shell:
        words = shlex.split(line)
        if "--" in words:
            _check_server_command(words[words.index("--") + 1], words[words.index("--") + 2 :])
        else:
            assert "http://127.0.0.1:8765/mcp" in words
    assert len(started) >= 4 and len(shell) == 2


def test_every_client_python_snippet_compiles_and_starts_trinho_mcp() -> None:
    blocks = _fenced("clients.md", "python")
    memory_tool = [b for b in blocks if "TrinhoMemoryTool" in b]  # run by tests/integrations
    assert len(memory_tool) == 2 and len(blocks) == 4
    for block in memory_tool:
        compile(ast.parse(block), "clients.md", "exec")
    for block in (b for b in blocks if b not in memory_tool):
        tree = ast.parse(block)
        compile(tree, "clients.md", "exec")
        text = ast.unparse(tree)
        assert "MCPServerStdio" in text and "'trinho'" in text and "['mcp']" in text


def test_every_test_the_security_page_names_exists() -> None:
    """docs/security.md says which test holds each promise: each one it names is there."""
    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    named = re.findall(r"`tests/([\w/]+\.py)(?:::(\w+))?`", text)
    bare = re.findall(r"\(`(test_\w+)`\)|`(test_\w+)`", text)
    assert named and bare
    sources = {name: (ROOT / "tests" / name).read_text(encoding="utf-8") for name, _ in named}
    for name, function in named:
        assert not function or f"def {function}(" in sources[name], (name, function)
    everything = "\n".join(
        p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("test_*.py")
    )
    for first, second in bare:
        assert f"def {first or second}(" in everything, first or second


@pytest.mark.parametrize(
    ("dotted", "shown"),
    [("trinho.search.vectors.Embedder", "Embedder"), ("trinho.models.ChatModel", "ChatModel")],
)
def test_a_documented_protocol_is_shown_with_each_of_its_methods(dotted: str, shown: str) -> None:
    """The python-api page's words on a Protocol name every member a custom one must have:
    `embed(texts)` stayed documented after it became two methods."""
    protocol = _resolve(dotted)
    members = {name for name in vars(protocol) if not name.startswith("_")}
    text = _doc("python-api.md")
    start = text.index(f"`{shown}` is")
    ends = [end for end in (text.find("\n- ", start), text.find("\n\n", start)) if end > 0]
    named = set(re.findall(r"`(\w+)[`(]", text[start : min(ends)])) - {shown}
    assert members <= named, f"{shown}: {sorted(members - named)} not documented"
