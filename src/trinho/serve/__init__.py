"""`trinho serve`: the service (`service`) and stop signals (`signals`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.exports import lazy_exports

if TYPE_CHECKING:
    from trinho.serve.service import build_service as build_service
    from trinho.serve.service import serve_forever as serve_forever


__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "trinho.serve.service": ("build_service", "serve_forever"),
    },
)
