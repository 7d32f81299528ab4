"""`load_model` and the import boundary: vendor SDKs only inside models/, and only when used."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from trinho.models import ChatRequest, LedgeredModel, ModelError, load_model, user
from trinho.models.anthropic import AnthropicModel
from trinho.models.openai_compat import OpenAICompatModel
from trinho.workspace import Workspace

SRC = Path(__file__).resolve().parents[2] / "src" / "trinho"
VENDORS = ("openai", "anthropic", "httpx", "httpx2")


def test_the_configured_adapter_is_built_and_wrapped(workspace: Workspace) -> None:
    ollama = load_model(workspace, "chat", env={"TRINHO_MODEL": "ollama:qwen3:8b"})
    assert isinstance(ollama, LedgeredModel) and isinstance(ollama.inner, OpenAICompatModel)
    assert ollama.name == "ollama:qwen3:8b" and ollama.purpose == "chat"
    claude = load_model(
        workspace, "screen", run="r1", env={"TRINHO_MODEL": "anthropic:c", "ANTHROPIC_API_KEY": "k"}
    )
    assert isinstance(claude.inner, AnthropicModel) and claude.run == "r1"


def test_a_missing_sdk_says_how_to_install_it(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(ModelError) as info:
        load_model(workspace, "chat", env={"TRINHO_MODEL": "anthropic:c", "ANTHROPIC_API_KEY": "k"})
    assert info.value.kind == "not_installed"
    assert "pip install 'trinho[anthropic]'" in str(info.value)


def test_an_unknown_purpose_is_refused(workspace: Workspace) -> None:
    with pytest.raises(ValueError):
        load_model(workspace, "fun", env={"TRINHO_MODEL": "ollama:m"})  # type: ignore[arg-type]


def test_request_estimates_cover_the_prompt_and_the_answer_limit() -> None:
    request = ChatRequest((user("x" * 300),), max_tokens=50)
    assert request.estimated_tokens() == 150  # 3 ASCII letters a token


def test_no_module_outside_models_imports_a_vendor_sdk() -> None:
    pattern = re.compile(rf"^\s*(?:import|from)\s+({'|'.join(VENDORS)})\b", re.M)
    offenders = [
        path.relative_to(SRC).as_posix()
        for path in SRC.rglob("*.py")
        if "models" not in path.relative_to(SRC).parts and pattern.search(path.read_text())
    ]
    # The one other place: the backend the `anthropic` extra's SDK runs (its memory tool).
    offenders.remove("integrations/anthropic.py")
    assert offenders == []


def test_the_cli_starts_without_importing_any_sdk() -> None:
    probe = (
        "import sys, trinho.cli, trinho.models; "
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({VENDORS!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
