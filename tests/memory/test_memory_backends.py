"""MEMORY.md through the records facade, on each backend (`records`): replaced whole."""

from __future__ import annotations

from trinho.records.protocol import Records


def test_memory_md_is_replaced_whole(records: Records) -> None:
    assert records.memory_text() == ""
    records.write_memory("# Memory\n- 2026-11-22: likes phở\n")
    records.write_memory("# Memory\n- 2026-11-29: likes bún\n", run="r1")
    assert records.memory_text() == "# Memory\n- 2026-11-29: likes bún\n"
