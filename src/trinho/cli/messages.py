"""The CLI's error lines in the owner's locale: trinho's own errors and click's usage errors.

Click words its usage errors in English; `usage_text` recognises its sentences and says them
again from the catalog, leaving anything it does not know as it was. The English catalog
entries repeat click's wording, so English text passes through unchanged.
"""

from __future__ import annotations

import re

from trinho.i18n import t

_QUOTED = r"""(?P<name>'[^']*'|"[^"]*")"""

_SENTENCES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), key)
    for pattern, key in (
        (rf"No such command {_QUOTED}\.", "error.usage.no_such_command"),
        (rf"Missing argument {_QUOTED}\.", "error.usage.missing_argument"),
        (rf"Missing option {_QUOTED}\.", "error.usage.missing_option"),
        (r"No such option: (?P<name>\S+)", "error.usage.no_such_option"),
        (rf"No such option {_QUOTED}\.", "error.usage.no_such_option_quoted"),
        (rf"Option {_QUOTED} requires an argument\.", "error.usage.option_needs_value"),
        (r"Invalid value for (?P<name>.+?): (?P<detail>.+)", "error.usage.bad_value"),
        (r"Got unexpected extra argument \((?P<args>.*?)\)", "error.usage.extra_argument"),
        (r"Got unexpected extra arguments \((?P<args>.*?)\)", "error.usage.extra_arguments"),
        (r"\(Did you mean one of: (?P<options>.+?)\?\)", "error.usage.did_you_mean_one_of"),
        (r"Did you mean (?P<options>.+?)\?", "error.usage.did_you_mean"),
    )
)


def usage_text(message: str, locale: str) -> str:
    """`message` (click's English) with every sentence click is known to write in `locale`."""
    out: list[str] = []
    position = 0
    while position < len(message):
        for pattern, key in _SENTENCES:
            found = pattern.match(message, position)
            if found is not None and found.end() > position:
                out.append(t(locale, key, **found.groupdict()))
                position = found.end()
                break
        else:
            out.append(message[position])
            position += 1
    return "".join(out)


def with_help(message: str, where: str, locale: str) -> str:
    """A usage error with the pointer to the command's help."""
    return t(locale, "error.see_help", message=message, where=where)
