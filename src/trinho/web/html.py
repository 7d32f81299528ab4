"""HTML built from escaped pieces: stored text never reaches a page as markup.

`Html` marks text that is already markup; `esc` escapes everything else (after showing each
invisible, control or format character as `⟨U+202E⟩` with `show_hidden`, line by line), and
`html` fills a template escaping every parameter that is not `Html` itself. That is the whole
autoescape: no template engine is needed.
"""

from __future__ import annotations

import difflib
import html as stdlib_html
import re
from collections.abc import Iterable

from trinho.textnorm import show_hidden


class Html(str):
    """Markup that is already safe to send."""

    __slots__ = ()


def esc(value: object) -> Html:
    """`value` as text in a page: `Html` kept, anything else escaped, every character of the
    gate's held class shown as the owner must see it (`⟨U+202E⟩`), its line breaks kept."""
    if isinstance(value, Html):
        return value
    shown = "\n".join(show_hidden(line) for line in str(value).split("\n"))
    return Html(stdlib_html.escape(shown, quote=True))


def html(template: str, /, **params: object) -> Html:
    """`template` (trusted markup) with each `{name}` filled by its escaped parameter."""
    return Html(template.format(**{name: esc(value) for name, value in params.items()}))


def join(parts: Iterable[object], sep: str = "") -> Html:
    return Html(sep.join(esc(part) for part in parts))


_TOKEN = re.compile(r"\d{4}-\d{2}-\d{2}|[\w\u0300-\u036f]+|\s+|[^\w\s]")
"""A date, a word, a run of spaces, or one punctuation mark: the units a changed line is
compared in, so an added semicolon marks the semicolon, not the word it follows, and a changed
date is marked whole."""


def tokens(line: str) -> list[str]:
    """`line` cut into words, spaces and single marks; joined, they give `line` back."""
    return _TOKEN.findall(line)


def _marked(parts: list[str], tag: str) -> Html:
    """A changed run, its spaces at either end left unmarked (a mark reads as the word's)."""
    text = "".join(parts)
    core = text.strip()
    if not core:
        return esc(text)
    start = text.index(core)
    lead, trail = text[:start], text[start + len(core) :]
    return html(f"{{lead}}<{tag}>{{core}}</{tag}>{{trail}}", lead=lead, core=core, trail=trail)


def word_diff(old: str, new: str) -> tuple[Html, Html]:
    """Both sides of a changed line, the words and marks that differ wrapped in <del> and
    <ins>."""
    a, b = tokens(old), tokens(new)
    left: list[Html] = []
    right: list[Html] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            left.append(esc("".join(a[i1:i2])))
            right.append(esc("".join(b[j1:j2])))
            continue
        if i2 > i1:
            left.append(_marked(a[i1:i2], "del"))
        if j2 > j1:
            right.append(_marked(b[j1:j2], "ins"))
    return join(left), join(right)


def _row(left: object, right: object, left_class: str, right_class: str) -> Html:
    return html(
        '<tr><td class="{lc}">{left}</td><td class="{rc}">{right}</td></tr>',
        lc=left_class,
        rc=right_class,
        left=left,
        right=right,
    )


def side_by_side(old: str, new: str, head: str = "") -> Html:
    """A two-column table of `old` against `new` under `head` (a row of markup), line by line, words
    marked in changed lines; on a narrow screen the page's style stacks the two columns."""
    a, b = old.split("\n") if old else [], new.split("\n") if new else []
    rows: list[Html] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            rows.extend(_row(line, line, "same", "same") for line in a[i1:i2])
            continue
        olds, news = a[i1:i2], b[j1:j2]
        for k in range(max(len(olds), len(news))):
            left = olds[k] if k < len(olds) else None
            right = news[k] if k < len(news) else None
            if left is not None and right is not None:
                marked_left, marked_right = word_diff(left, right)
                rows.append(_row(marked_left, marked_right, "old", "new"))
            else:
                rows.append(
                    _row(
                        "" if left is None else left,
                        "" if right is None else right,
                        "old" if left is not None else "none",
                        "new" if right is not None else "none",
                    )
                )
    return html('<table class="diff">{head}{rows}</table>', head=Html(head), rows=join(rows))
