"""Log lines as trinho writes them: one JSON object per line, stored text neutralised.

A log line can quote what an owner or a model wrote (a failed tool call, a refused message),
and logs are read on terminals: `textnorm.json_text` keeps every control character escaped.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from trinho.textnorm import json_text


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, and the record's `fields`."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created).astimezone().isoformat(),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, Mapping):
            data.update(fields)
        if record.exc_info:
            data["error"] = self.formatException(record.exc_info)
        return json_text(data)


POOL_LOGGER = "psycopg.pool"
"""The connection pool's logger: its reconnects to a database that restarts are a service's
log lines, and no line of a command's, which says its failure in one line of its own."""


def configure_logging(level: int = logging.INFO, stream: Any = None) -> None:
    """JSON lines on stderr for trinho and the libraries it runs (PTB, httpx: warnings only)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    logging.getLogger("trinho").setLevel(level)
    logging.getLogger(POOL_LOGGER).setLevel(logging.NOTSET)  # a service logs its reconnects
