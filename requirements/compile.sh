#!/usr/bin/env bash
# Regenerate the pinned lockfiles from pyproject.toml (needs `uv`: pip install uv).
set -euo pipefail
cd "$(dirname "$0")/.."
uv pip compile pyproject.toml --python-version 3.11 -q -o requirements/run.lock
uv pip compile pyproject.toml --python-version 3.11 -q --extra dev --extra telegram --extra anthropic --extra semantic --extra local --extra mcp --extra web --extra postgres -o requirements/dev.lock
