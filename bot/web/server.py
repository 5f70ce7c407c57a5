"""``ancath-bot web``: the leadership pages served by uvicorn, a process of its own
beside ``ancath-bot run``, reading the same database read-only (SQLite ``mode=ro`` for
as long as it runs; PostgreSQL in read-only transactions). What stops it from starting
(no database, a bad configuration, a port in use) is one :class:`ConfigError` line;
Ctrl-C or SIGTERM stops it cleanly. The ledger is proved from its first row as it
starts, in a thread of its own (:mod:`bot.web.proving`): the first pages may say
"not proved yet" for as long as that takes."""

from __future__ import annotations

import errno
import signal
import socket
import sys
from types import FrameType

import uvicorn

from bot.config import BotConfig, ConfigError
from bot.logs import setup_logging
from bot.systems.registry import SYSTEMS
from bot.web.access import Access
from bot.web.app import make_app
from bot.web.live import LiveFeeds
from storage.db import open_read_only
from storage.db_urls import shown_url, sqlite_path
from storage.keys import load_keyring
from storage.signing import PublicKey
from storage.store import Store

__all__ = ["listen", "serve"]

_LOOPBACK = ("127.0.0.1", "::1", "localhost")


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port`` (0: any free port)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as error:
        raise ConfigError(f"web: cannot listen on {host}: {error.strerror}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as error:
        sock.close()
        fix = ("another process listens there: stop it, or choose another port with --port "
               "or web.port" if error.errno == errno.EADDRINUSE else "choose another --host or "
               "--port")
        raise ConfigError(f"web: cannot listen on {host}:{port}: {error.strerror}; "
                          f"{fix}") from None
    return sock


class _Stopped(Exception):
    """SIGTERM, after uvicorn's own graceful shutdown."""


def _stopped(_signum: int, _frame: FrameType | None) -> None:
    raise _Stopped


class _Server(uvicorn.Server):
    """uvicorn's server; told to stop, it ends the live pages' streams first (an open
    stream would hold it until its browser leaves)."""

    def __init__(self, config: uvicorn.Config, live: LiveFeeds) -> None:
        super().__init__(config)
        self.live = live

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.live.close()
        super().handle_exit(sig, frame)


def serve(config: BotConfig, database: str, *, key_file: str | None = None,
          host: str | None = None, port: int | None = None,
          public_key: PublicKey | None = None) -> int:
    """Serve the pages over ``database`` until Ctrl-C or SIGTERM, proving the ledger
    with ``public_key`` (else the configuration's ``web.public_key``) beside any ledger
    key found; 0 when stopped."""
    host = host or config.web.host
    port = config.web.port if port is None else port
    engine = open_read_only(database, live=True)
    keyring = load_keyring(database, key_file or config.ledger_key_file, create=False)
    given = public_key or config.web.club_key()
    trusted = (given,) if given is not None else ()
    token = config.web.token()
    sock = listen(host, port)
    setup_logging(config.log)
    where = sqlite_path(database) or shown_url(database)
    shown = f"[{host}]" if ":" in host else host
    print(f"ancath-bot web: serving http://{shown}:{sock.getsockname()[1]}/ read-only from "
          f"{where}; " + (f"every page asks for the token in ${config.web.token_env}"
                          if token else f"no access token (${config.web.token_env} is unset)")
          + "; Ctrl-C stops it", file=sys.stderr, flush=True)
    if not token and host not in _LOOPBACK:
        print(f"ancath-bot web: note: {host} may be reached from other machines and no token "
              f"is set: anyone who reaches it reads the pages", file=sys.stderr, flush=True)
    store = Store(engine, systems=SYSTEMS.rules, keyring=keyring)
    access = Access(token, config.web.base_url, config.web.session_days * 86400)
    app = make_app(store, access=access, trusted=trusted)
    server = _Server(uvicorn.Config(app, log_config=None, access_log=False,
                                    server_header=False, lifespan="off"), app.state.live)
    previous = signal.signal(signal.SIGTERM, _stopped)
    try:
        server.run(sockets=[sock])
    except (KeyboardInterrupt, _Stopped):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        app.state.site.proof.stop()
        app.state.chances.stop()
        sock.close()
        engine.dispose()
    return 0
