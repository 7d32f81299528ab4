"""The catalog: every key the code uses exists in English and Vietnamese, with the same blanks."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

import trinho
from trinho.i18n import CATALOG, t

SRC = Path(trinho.__file__).parent

_USES = (
    re.compile(r"""\bt\(\s*[^,()]+,\s*"([^"{}]+)\""""),  # t(locale, "key", ...)
    re.compile(r"""\.keyed\(\s*(?:"[a-z_]+",\s*)?"([^"]+)\""""),  # X.keyed("key") / ("kind", "key")
    re.compile(r"""\bkey="([a-z_]+(?:\.[a-z_]+)+)\""""),  # ModelError(..., key="...")
    re.compile(r""""(error\.[a-z_]+(?:\.[a-z_]+)*)\""""),  # any other error key literal
)


def _used_keys() -> dict[str, str]:
    used: dict[str, str] = {}
    for path in sorted(SRC.rglob("*.py")):
        if path.name in ("i18n.py", "error_texts.py"):
            continue
        text = path.read_text(encoding="utf-8")
        for pattern in _USES:
            for found in pattern.finditer(text):
                used.setdefault(found.group(1), str(path.relative_to(SRC)))
    return used


def _blanks(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_the_scan_finds_the_keys_it_is_meant_to_find() -> None:
    used = _used_keys()
    for key in ("error.note.empty", "error.model.unreachable", "note.saved", "error.see_help"):
        assert key in used


def test_every_key_used_in_the_code_is_in_the_catalog_in_both_languages() -> None:
    missing = {
        key: where
        for key, where in _used_keys().items()
        if key not in CATALOG or not {"en", "vi"} <= CATALOG[key].keys()
    }
    assert missing == {}


def test_every_error_text_in_the_catalog_is_used() -> None:
    used = _used_keys()
    assert sorted(k for k in CATALOG if k.startswith("error.") and k not in used) == []


@pytest.mark.parametrize("key", sorted(CATALOG))
def test_both_languages_have_the_same_blanks(key: str) -> None:
    entry = CATALOG[key]
    assert _blanks(entry["en"]) == _blanks(entry.get("vi", entry["en"]))


def test_vietnamese_error_texts_are_vietnamese() -> None:
    """A crude check that nobody pasted the English into the Vietnamese slot."""
    same = [k for k, e in CATALOG.items() if k.startswith("error.") and e["vi"] == e["en"]]
    assert same == []


def test_params_named_like_the_key_argument_are_allowed() -> None:
    assert t("en", "error.fact.empty_value", key="đ") == "fact 'đ': the value is empty"


@pytest.mark.parametrize("key", sorted(k for k in CATALOG if k.startswith("error.")))
def test_vietnamese_errors_keep_the_commands_and_examples_that_say_how_to_fix(key: str) -> None:
    """The commands (`...`), config names and examples must survive translation verbatim."""
    entry = CATALOG[key]
    verbatim = re.compile(r"`[^`]+`|\b[A-Z][A-Z_]{2,}\b|\d{4}-\d{2}-\d{2}\S*|--[a-z-]+|\w+/\w+")
    assert sorted(verbatim.findall(entry["en"])) == sorted(verbatim.findall(entry["vi"]))
