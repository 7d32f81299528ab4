"""A proposal id the owner types is resolved alike on both backends (`resolve_in`): the
whole id, or a start of it at least `SHORT_ID` characters long that names one proposal; one
character shorter is refused with the length asked for, whatever the id."""

from __future__ import annotations

import pytest

from trinho.errors import NotFound, TrinhoError
from trinho.records.protocol import Records
from trinho.textnorm import SHORT_ID, shown_id


def test_an_id_resolves_from_its_shown_length_on_each_backend(records: Records) -> None:
    pid = records.submit("gadget", {"what": "a gadget"}, reason="r", origin="job:x").proposal.id
    assert records.resolve_id(pid) == pid
    assert records.resolve_id(shown_id(pid).upper()) == pid
    with pytest.raises(TrinhoError) as short:
        records.resolve_id(pid[: SHORT_ID - 1])
    assert short.value.key == "error.proposal.short_prefix"
    other = "0" * SHORT_ID if not pid.startswith("0" * SHORT_ID) else "f" * SHORT_ID
    with pytest.raises(NotFound):
        records.resolve_id(other)
