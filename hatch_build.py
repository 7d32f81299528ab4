"""Build hook: the message catalogs (src/trinho/i18n/locale/*/LC_MESSAGES/*.po) compiled to the
.mo files gettext reads, at every wheel and editable build.

The .mo files are not in git (a compiled copy of a source would drift from it): an editable
install finds them beside their .po, a wheel carries them. The tests recompile a stale one
(tests/conftest.py), so an edited .po is what they read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # tests/conftest.py imports compile_catalogs without the build backend
    BuildHookInterface = object

LOCALE_DIR = Path("src/trinho/i18n/locale")


def compile_catalogs(root: Path, *, only_stale: bool = False) -> list[Path]:
    """Write each catalog's .mo beside its .po; the .mo paths. A .po with an untranslated
    entry that should be translated is refused by the tests, not here."""
    written: list[Path] = []
    for po in sorted((root / LOCALE_DIR).glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        written.append(mo)
        if only_stale and mo.exists() and mo.stat().st_mtime_ns >= po.stat().st_mtime_ns:
            continue
        with po.open("rb") as handle:
            catalog = read_po(handle, locale=po.parent.parent.name)
        tmp = mo.with_name(f".{mo.name}.tmp")
        with tmp.open("wb") as handle:
            write_mo(handle, catalog)
        tmp.replace(mo)
    return written


class CatalogsHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        for mo in compile_catalogs(root):
            if version != "editable":  # an editable install reads the source tree
                build_data["force_include"][str(mo)] = str(mo.relative_to(root / "src"))
