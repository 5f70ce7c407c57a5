"""Logging as the configuration's ``log:`` section says: a level, text or JSON lines
(one object a line: time, level, logger, message), to standard error or a file."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from bot.config import ConfigError, LogConfig

__all__ = ["JsonFormatter", "setup_logging"]

TEXT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    """One JSON object a line; a traceback goes in ``exception``, inside the line."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def setup_logging(config: LogConfig) -> None:
    """Send the root logger's records at ``config.level`` or above where it says."""
    handler: logging.Handler
    if config.file is None:
        handler = logging.StreamHandler()
    else:
        try:
            handler = logging.FileHandler(config.file, encoding="utf-8")
        except OSError as error:
            raise ConfigError(f"log.file: cannot open {config.file}: {error.strerror}") from None
    handler.setFormatter(JsonFormatter() if config.format == "json" else logging.Formatter(TEXT))
    logging.basicConfig(level=config.level, handlers=[handler], force=True)
