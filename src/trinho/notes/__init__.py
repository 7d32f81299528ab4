"""Daily notes: their format (`format`, pure), the note files (`store`) and the journal that
keeps acknowledged notes through writers that take no lock (`journal`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.exports import lazy_exports

if TYPE_CHECKING:
    from trinho.notes.format import MAX_NOTE_CHARS as MAX_NOTE_CHARS
    from trinho.notes.format import NoteEntry as NoteEntry
    from trinho.notes.format import NoteFile as NoteFile
    from trinho.notes.format import parse_note_file as parse_note_file
    from trinho.notes.format import render_note_file as render_note_file
    from trinho.notes.store import SavedNote as SavedNote
    from trinho.notes.store import note_days as note_days
    from trinho.notes.store import read_notes as read_notes
    from trinho.notes.store import save_note as save_note


__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "trinho.notes.format": (
            "MAX_NOTE_CHARS",
            "NoteEntry",
            "NoteFile",
            "parse_note_file",
            "render_note_file",
        ),
        "trinho.notes.store": ("SavedNote", "note_days", "read_notes", "save_note"),
    },
)
