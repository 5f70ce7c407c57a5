"""The audit export for download (``/audit-export.jsonl``): the very file ``ancath-bot
audit export`` writes (:func:`storage.audit_export.write_export`, through
``Store.export_audit``), which anyone checks with the club's public key alone:
``ancath-bot audit verify --export FILE --public-key KEY``.

It is written, in one read transaction, by a thread of its own to a temporary file
(already unlinked, so nothing is left behind) while the response streams what is
written so far: the transaction lasts as long as the writing, never as long as a slow
download, and memory stays flat however long the ledger is. ``EXPORTS`` are written at
once at most (each reads every row); another is refused as busy (503). A client that
goes away stops the writing."""

from __future__ import annotations

import io
import logging
import os
import tempfile
import threading
from collections.abc import Iterator
from typing import IO, cast

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from bot.web.query import NotNow
from bot.web.site import site_of
from storage.store import Store

__all__ = ["CHUNK", "EXPORTS", "FILENAME", "audit_export"]

log = logging.getLogger(__name__)

EXPORTS = 1
"""Exports written at once at most."""
CHUNK = 64 * 1024
"""Bytes sent at a time."""
FILENAME = "ancath-audit-export.jsonl"
_exports = threading.BoundedSemaphore(EXPORTS)


class _Gone(Exception):
    """The download was abandoned: stop writing."""


class _Spool(io.TextIOBase):
    """What ``write_export`` writes to: the temporary file, until the reader goes."""

    def __init__(self, file: IO[str], gone: threading.Event) -> None:
        self._file = file
        self._gone = gone

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self._gone.is_set():
            raise _Gone
        return self._file.write(text)


class _Export:
    """One export: written by a thread, read as it grows."""

    def __init__(self, store: Store) -> None:
        fd, path = tempfile.mkstemp(prefix="ancath-audit-", suffix=".jsonl")
        try:
            self._writer = os.fdopen(fd, "w", encoding="utf-8")
            self._reader = open(path, "rb")   # noqa: SIM115 (closed when the stream ends)
        finally:
            os.unlink(path)
        self._store = store
        self._done = threading.Event()
        self._gone = threading.Event()
        self._error: BaseException | None = None
        threading.Thread(target=self._write, name="audit-export", daemon=True).start()

    def _write(self) -> None:
        try:
            with self._writer:
                self._store.export_audit(cast(IO[str], _Spool(self._writer, self._gone)))
        except _Gone:
            pass
        except BaseException as error:
            log.exception("the audit export failed")
            self._error = error
        finally:
            self._done.set()
            _exports.release()

    def chunks(self) -> Iterator[bytes]:
        """The file as it is written; cut short (no ``end`` record: its reader says it
        was cut) when the writing failed."""
        try:
            while True:
                data = self._reader.read(CHUNK)
                if data:
                    yield data
                elif self._done.is_set():
                    rest = self._reader.read()   # written between the read and the end
                    if rest:
                        yield rest
                        continue
                    break
                else:
                    self._done.wait(0.02)
            if self._error is not None:
                raise RuntimeError("the audit export failed; the server's log says why")
        finally:
            self._gone.set()
            self._reader.close()


def audit_export(request: Request) -> Response:
    """``/audit-export.jsonl``: the audit export, streamed as it is written."""
    if not _exports.acquire(blocking=False):
        raise NotNow("an audit export is being written; try again in a moment")
    try:
        export = _Export(site_of(request).store)
    except BaseException:
        _exports.release()
        raise
    return StreamingResponse(export.chunks(), media_type="application/x-ndjson", headers={
        "content-disposition": f'attachment; filename="{FILENAME}"'})
