"""The catalogs: every key the code asks for is in English and Vietnamese, with the same
blanks; every entry is asked for; a count picks the plural form; click speaks the owner's
language through the same catalogs."""

from __future__ import annotations

import ast
import re
import string
import subprocess
import sys
from pathlib import Path

import click
import pytest
from babel.messages.extract import extract_from_file, extract_python
from hypothesis import given
from hypothesis import strategies as st

import trinho
from support.catalogs import (
    CATALOG,
    LOCALES,
    PO,
    cli_helps,
    forms,
    internal_terms_in,
    is_key,
    msgid,
)
from trinho.i18n import catalog, click_in, t

SRC = Path(trinho.__file__).parent
KEY = re.compile(r"[a-z_]+(?:\.[a-z0-9_]+)+")

KEYWORDS: dict[str, tuple[int, ...]] = {
    "t": (2,),  # t(locale, "key", ...)
    "N_": (1,),  # N_("key"): a key kept in a mapping (trinho.i18n.keys)
    "keyed": (1, 2),  # Error.keyed("key") / Failure.keyed("kind", "key")
    "failed": (3,),  # ModelError.failed(model, "kind", "key")
    "text": (1,),  # the demo's ctx.text("key", ...)
}
"""Babel's extraction keywords: each function and the argument positions a key may be at."""


def _extracted() -> dict[str, str]:
    """Every key Babel's Python extractor finds in src/, and the file it is in. (Babel glues
    the literals of `t(l, "a" if x else "b")` into "ab", a key no catalog has: write
    `N_("a") if x else N_("b")`.)"""
    used: dict[str, str] = {}
    for path in sorted(SRC.rglob("*.py")):
        with path.open("rb") as handle:
            for _, func, args, _ in extract_python(handle, dict.fromkeys(KEYWORDS), [], {}):
                raw: object = args  # one per argument (None: no literal), or one string
                given_args = tuple(raw) if isinstance(raw, tuple | list) else (raw,)
                for position in KEYWORDS[str(func)]:
                    arg = given_args[position - 1] if len(given_args) >= position else None
                    if isinstance(arg, str) and KEY.fullmatch(arg):
                        used.setdefault(arg, str(path.relative_to(SRC)))
    return used


def _error_literals() -> dict[str, str]:
    """Error keys held in a variable before they are raised (`which = "error.x" if ...`)."""
    used: dict[str, str] = {}
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and value.startswith("error.") and KEY.fullmatch(value):
                used.setdefault(value, str(path.relative_to(SRC)))
    return used


USED = {**_error_literals(), **_extracted()}


def _blanks(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_the_extraction_finds_the_keys_it_is_meant_to_find() -> None:
    for key in ("error.note.empty", "error.model.unreachable", "note.saved", "error.see_help"):
        assert key in USED
    assert "gate.class.archive" in USED  # through trinho.i18n.keys
    assert "demo.tool.found" in USED  # the demo's ctx.text


def test_no_key_is_built_from_pieces_where_extraction_cannot_see_it() -> None:
    """A key from an f-string is invisible to extraction: keys are literals (trinho.i18n.keys)."""
    built = re.compile(r"""\b(?:t|keyed|text)\([^()]*?f["'][a-z_]+\.""")
    found = {
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if built.search(path.read_text(encoding="utf-8"))
    }
    assert found == set()


def test_every_key_used_in_the_code_is_in_both_catalogs() -> None:
    missing = {
        key: where
        for key, where in USED.items()
        if key not in CATALOG or set(CATALOG[key]) != set(LOCALES)
    }
    assert missing == {}


def test_every_key_in_the_catalogs_is_used() -> None:
    assert sorted(k for k in CATALOG if k not in USED) == []


def test_both_catalogs_hold_the_same_messages() -> None:
    ids = {loc: {msgid(m) for m in PO[loc] if msgid(m)} for loc in LOCALES}
    assert ids["en"] == ids["vi"]
    for m in PO["en"]:
        if msgid(m):
            assert m.pluralizable == PO["vi"][msgid(m)].pluralizable, msgid(m)


def test_every_message_is_translated_and_no_entry_is_fuzzy() -> None:
    for loc in LOCALES:
        for m in PO[loc]:
            if not msgid(m):
                continue
            assert not m.fuzzy, (loc, msgid(m))
            if is_key(m) or loc == "vi":
                assert all(forms(m)), (loc, msgid(m))
            else:  # click's msgids: English is click's own wording
                assert not any(forms(m)), msgid(m)


def test_the_plural_forms_are_the_languages_own() -> None:
    assert PO["en"].plural_forms == "nplurals=2; plural=(n != 1);"
    assert PO["vi"].plural_forms == "nplurals=1; plural=0;"
    for loc in LOCALES:
        for m in PO[loc]:
            if m.pluralizable:
                assert len(forms(m)) == PO[loc].num_plurals, (loc, msgid(m))


@pytest.mark.parametrize("key", sorted(CATALOG))
def test_every_form_in_both_languages_has_the_same_blanks(key: str) -> None:
    all_forms = [f for loc in LOCALES for f in forms(PO[loc][key])]
    assert all(_blanks(f) == _blanks(all_forms[0]) for f in all_forms), all_forms


@pytest.mark.parametrize("message", [m for m in PO["vi"] if msgid(m) and not is_key(m)])
def test_clicks_messages_keep_clicks_blanks(message: object) -> None:
    ids = message.id if isinstance(message.id, tuple | list) else (message.id,)  # type: ignore[attr-defined]
    blanks = set().union(*(_blanks(i) for i in ids))
    for form in forms(message):  # type: ignore[arg-type]
        assert _blanks(form) <= blanks
        assert ("%(" in form) == any("%(" in i for i in ids)


def test_every_message_about_a_count_has_plural_forms() -> None:
    """ "1 changes wait" is a bug of the class: a noun after {count} needs its forms."""
    exempt = {"channel.count", "condense.loss.more", "condense.loss.removed", "error.config.more"}
    singular = sorted(
        msgid(m)
        for m in PO["en"]
        if is_key(m) and not m.pluralizable and "{count}" in forms(m)[0] and msgid(m) not in exempt
    )
    assert singular == []


@pytest.mark.parametrize(
    ("key", "params", "one", "many"),
    [
        ("channel.waiting", {}, "1 change waits for your approval:", "3 changes wait"),
        ("web.bulk.confirm", {}, "Apply this 1 change", "Apply these 3 changes"),
        ("condense.loss.added", {}, "would add 1 line:", "would add 3 lines:"),
        ("condense.undo.archive_lines", {}, "1 line moved", "3 lines moved"),
        ("error.get.past_end", {"path": "p", "line": 9}, "has 1 line;", "has 3 lines;"),
    ],
)
def test_a_count_picks_the_english_form(
    key: str, params: dict[str, object], one: str, many: str
) -> None:
    assert one in t("en", key, count=1, **params)
    assert many in t("en", key, count=3, **params)
    assert t("vi", key, count=1, **params).replace("1", "3") == t("vi", key, count=3, **params)


@given(
    st.sampled_from(sorted(k for k in CATALOG if PO["en"][k].pluralizable)), st.integers(0, 10**6)
)
def test_every_plural_message_renders_every_count_in_both_languages(key: str, n: int) -> None:
    params = {name: "x" for name in _blanks(CATALOG[key]["en"])} | {"count": n}
    for loc in LOCALES:
        assert str(n) in t(loc, key, **params)
    assert (t("en", key, **params) == forms(PO["en"][key])[0].format(**params)) == (n == 1)


def test_a_singular_message_ignores_a_count_it_does_not_govern() -> None:
    assert t("en", "channel.count", label="l", count=1) == "- l: 1"


def test_an_unknown_key_is_a_key_error_in_every_locale() -> None:
    for loc in (*LOCALES, "fr"):
        with pytest.raises(KeyError):
            t(loc, "no.such.key")


def test_a_locale_trinho_does_not_speak_reads_english() -> None:
    assert t("fr", "note.saved", path="p", line="l") == t("en", "note.saved", path="p", line="l")


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


def test_the_compiled_catalogs_say_what_the_sources_say() -> None:
    for loc in LOCALES:
        for m in PO[loc]:
            if is_key(m) and not m.pluralizable:
                assert catalog(loc).gettext(msgid(m)) == forms(m)[0]


# ---- click's own messages, through the same catalogs ------------------------------------------


def _clicks_msgids() -> set[str]:
    """Every msgid click's installed source asks gettext for (Babel's extractor)."""
    found: set[str] = set()
    for path in Path(click.__file__).parent.glob("*.py"):
        for _, message, _, _ in extract_from_file(
            "python", path, keywords={"_": None, "ngettext": (1, 2)}
        ):
            found.add(message if isinstance(message, str) else message[0])
    return found


def test_every_click_msgid_in_the_catalog_is_one_click_still_asks_for() -> None:
    ours = {msgid(m) for m in PO["vi"] if msgid(m) and not is_key(m)}
    assert ours - _clicks_msgids() - cli_helps() == set()


def test_every_help_of_the_commands_is_in_the_catalogs() -> None:
    """The commands' and options' help (English msgids, as click's) is said in Vietnamese."""
    ours = {msgid(m) for m in PO["vi"] if msgid(m) and not is_key(m)}
    assert cli_helps() - ours == set()


@pytest.mark.parametrize(
    "msgid_",
    ["Usage:", "Options", "Commands", "Show this message and exit.", "No such command {name!r}."],
)
def test_the_click_messages_every_owner_meets_are_in_vietnamese(msgid_: str) -> None:
    assert catalog("vi").gettext(msgid_) != msgid_
    assert catalog("en").gettext(msgid_) == msgid_


def test_click_speaks_the_locale_asked_for_and_is_put_back_after() -> None:
    @click.command()
    @click.argument("name")
    def hello(name: str) -> None:
        """Say hello."""

    def usage(*args: str) -> str:
        try:
            hello.main(list(args), prog_name="hello", standalone_mode=False)
        except click.UsageError as exc:
            return exc.format_message()
        raise AssertionError("no usage error")

    with click_in(lambda: "vi"):
        assert usage() == "Thiếu đối số 'NAME'."
        assert usage("a", "b") == "Thừa đối số không mong đợi (b)"
        assert "Cách dùng:" in hello.get_help(click.Context(hello, info_name="hello"))
    assert usage() == "Missing argument 'NAME'."
    with click_in(lambda: "en"):
        assert usage() == "Missing argument 'NAME'."


def test_a_click_wording_the_catalog_lacks_stays_clicks_english() -> None:
    with click_in(lambda: "vi"):
        assert click.core._("Some wording click adds one day.") == (  # type: ignore[attr-defined]
            "Some wording click adds one day."
        )
        assert click.core.ngettext("a {n} thing", "{n} things", 2) == "{n} things"  # type: ignore[attr-defined]


def test_a_fresh_interpreter_reads_the_catalogs_without_babel() -> None:
    """Babel builds the catalogs; reading them needs only the standard library."""
    code = (
        "import sys; sys.modules['babel'] = None; from trinho.i18n import t; "
        "print(t('vi', 'channel.waiting', count=2))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "2 thay đổi đang chờ bạn duyệt:\n"


FOR_THE_MODEL_OR_A_FILE = ("jobs.", "error.config.", "error.fact_file.", "error.budget.")
"""Keys whose Vietnamese text may name an English code: prompts the model reads, and errors
that name the field of a config or fact file as it must be typed."""


def test_no_vietnamese_message_carries_an_internal_term() -> None:
    """Every message an owner reads in vi (pages, Telegram, CLI output all come from the
    catalog) is free of trinho's inside words; a placeholder's name is not shown."""
    found = {}
    for m in PO["vi"]:
        key = msgid(m)
        if not key or key.startswith(FOR_THE_MODEL_OR_A_FILE):
            continue
        for text in forms(m):
            shown = re.sub(r"\{[^{}]*\}|`[^`]*`|\[[a-z_]+\]|--[a-z-]+", "", text)
            if internal_terms_in(shown):
                found[key] = internal_terms_in(shown)
    assert found == {}
