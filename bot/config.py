"""Configuration: YAML validated by pydantic, secrets from the environment.

Errors name the file, the key and the problem (``config.yaml: irc.port: Input should
be a valid integer``). With no ``irc`` section the bot serves a local console.
Environment variables override any key of the file (:func:`environment`).
"""

from __future__ import annotations

import os
import re
import ssl
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import EnvSettingsSource, SettingsError

from bot import tls_settings as tls
from bot.config_rules import (
    ENV_NESTING,
    ENV_PREFIX,
    moderators_problem,
    nick_problem,
    others_problem,
    refuse,
    stray_variable,
)
from bot.masks import is_mask, unverified_masks
from storage.models import DEFAULT_NETWORK
from storage.signing import PublicKey

__all__ = ["NETWORK", "BotConfig", "ConfigError", "FloodConfig", "IrcConfig", "LogConfig",
           "WebConfig", "environment", "load_config", "network_name"]

DEFAULT_DATABASE = "sqlite:///ancath.sqlite3"
NETWORK = r"[a-z0-9-]{1,16}"
"""A network's name: the ``network:`` of a process, and the ``<network>:`` before another
network's accounts (bot/irc/session.py)."""


class ConfigError(Exception):
    """The configuration cannot be used; the message names file, key and problem."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FloodConfig(_Strict):
    """How fast the bot sends (bot/irc/budget.py explains the cost of a line and the defaults,
    which are safe on InspIRCd 3, Solanum and ngircd)."""

    burst: int = Field(4, ge=1, le=50)
    """Lines sent at once before pacing starts (a JOIN counts 2, a NICK 4)."""
    per_second: float = Field(1.0, gt=0, le=20)
    """Sustained lines per second after the burst."""
    burst_bytes: int = Field(2048, ge=512, le=65536)
    """Bytes sent at once (CR LF included): at most half the server's receive queue."""
    bytes_per_second: float = Field(512.0, gt=0, le=65536)
    """Sustained bytes per second after the burst."""
    max_backlog: int = Field(200, ge=10)
    reply_seconds: float = Field(5.0, gt=0, le=300)
    """A reply (chatter, CTCP, slow-down notices) that cannot be sent within this many
    seconds is dropped, not queued; a fight's lines and ledger anchors never are."""


class IrcConfig(_Strict):
    server: str
    port: int = Field(6697, ge=1, le=65535)
    tls: bool = True
    tls_ca_file: str | None = None
    """Trust only this CA bundle (PEM) for the server, not the system's CAs."""
    tls_fingerprint: str | None = None
    """SHA-256 of the server's DER certificate: accepted if and only if it matches
    (chain and host name unchecked); hex, colons and case ignored."""
    tls_client_cert: str | None = None
    """A client certificate (PEM) for CertFP or SASL EXTERNAL."""
    tls_client_key: str | None = None
    """Its private key, when not in ``tls_client_cert``'s file."""
    nick: str = "AnCath"
    alt_nicks: list[str] = ["AnCath_", "AnCath__"]
    username: str = "ancath"
    realname: str = "An Cath referee"
    channels: list[str] = []
    verified_idents: bool = False
    """The operator's word that this network verifies every ident (identd lookups
    required, or idents set by the server), so a ``nick!user@host`` mask names one
    person: only then may moderators be masks (in ``moderators:`` or by ``!mod add``).
    "No ``~``" proves nothing: InspIRCd without ident lookups shows the ident a client
    chose, with no ``~``."""
    shared_accounts: bool = False
    """This network's services accounts and host masks are the same people as on the
    club's home network (``home_network``), so they are named as they are; by default
    another network's are ``<network>:<account>``."""
    sasl_account: str | None = None
    sasl_mechanism: Literal["PLAIN", "EXTERNAL"] | None = None
    """PLAIN (account and password) or EXTERNAL (the client certificate); unset means
    PLAIN when ``sasl_account`` is set, else no SASL."""
    sasl_password_env: str = "ANCATH_SASL_PASSWORD"
    """The environment variable that holds the SASL password (never the file)."""
    sasl_required: bool = True
    """Quit (and try again later) rather than go on without SASL when the server cannot
    do the mechanism (offers no SASL, or lists only others); a refused login goes on."""
    server_password_env: str | None = None
    connect_timeout: float = 20.0
    ping_idle_seconds: float = 90.0
    ping_timeout_seconds: float = 60.0
    reconnect_max_seconds: float = 300.0
    nick_regain_seconds: float = 60.0
    """How often to try for ``nick`` again while on an alternative one."""
    flood: FloodConfig = FloodConfig()

    @field_validator("nick", "alt_nicks")
    @classmethod
    def _nicks(cls, value: str | list[str]) -> str | list[str]:
        for nick in [value] if isinstance(value, str) else value:
            refuse(nick_problem(nick))
        return value

    @field_validator("channels")
    @classmethod
    def _channels(cls, value: list[str]) -> list[str]:
        for channel in value:
            if not channel.startswith(("#", "&")) or any(c in channel for c in " ,\a\r\n\0"):
                raise ValueError(f"{channel!r} is not a channel name")
        return value

    @field_validator("tls_fingerprint")
    @classmethod
    def _fingerprint(cls, value: str | None) -> str | None:
        return None if value is None else tls.parse_fingerprint(value)

    @field_validator("tls_ca_file", "tls_client_cert", "tls_client_key")
    @classmethod
    def _readable(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                Path(value).read_bytes()
            except OSError as error:
                raise ValueError(f"cannot read {value}: {error.strerror}") from error
        return value

    @model_validator(mode="after")
    def _tls_usable(self) -> IrcConfig:
        given = [k for k in ("tls_ca_file", "tls_fingerprint", "tls_client_cert",
                             "tls_client_key") if getattr(self, k) is not None]
        if given and not self.tls:
            raise ValueError(f"{given[0]} needs tls: true")
        if self.tls_fingerprint and self.tls_ca_file:
            raise ValueError("tls_fingerprint and tls_ca_file: set one of the two (a pin "
                             "accepts its certificate whatever its CA)")
        if self.tls_client_key and not self.tls_client_cert:
            raise ValueError("tls_client_key needs tls_client_cert")
        if self.sasl_mechanism == "EXTERNAL" and not self.tls_client_cert:
            raise ValueError("sasl_mechanism EXTERNAL needs tls_client_cert")
        if self.sasl_mechanism == "PLAIN" and not self.sasl_account:
            raise ValueError("sasl_mechanism PLAIN needs sasl_account")
        if self.tls_ca_file:
            try:
                tls.context(ca_file=self.tls_ca_file)
            except ssl.SSLError as error:
                raise ValueError(f"tls_ca_file: {self.tls_ca_file}: not a usable CA "
                                 f"bundle: {error}") from error
        if self.tls_client_cert:
            try:
                tls.context(pinned=True, client_cert=self.tls_client_cert,
                            client_key=self.tls_client_key)
            except ssl.SSLError as error:
                raise ValueError(f"tls_client_cert: {self.tls_client_cert}: not a usable "
                                 f"certificate and key: {error}") from error
        return self

    def sasl(self) -> str | None:
        """The SASL mechanism to log in with, or None for no SASL."""
        return self.sasl_mechanism or ("PLAIN" if self.sasl_account else None)

    def tls_context(self) -> ssl.SSLContext:
        return tls.context(ca_file=self.tls_ca_file, pinned=self.tls_fingerprint is not None,
                           client_cert=self.tls_client_cert,
                           client_key=self.tls_client_key)

    def sasl_password(self) -> str | None:
        return os.environ.get(self.sasl_password_env)


class LogConfig(_Strict):
    """What the bot logs (bot/logs.py) and where."""

    level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    format: Literal["text", "json"] = "text"
    """``json``: one object a line with time, level, logger and message."""
    file: str | None = None
    """A file to append to; None is standard error."""


class WebConfig(_Strict):
    """The read-only leadership pages (``ancath-bot web``), a process of their own."""

    host: str = "127.0.0.1"
    port: int = Field(8080, ge=1, le=65535)
    token_env: str = "ANCATH_WEB_TOKEN"
    """The environment variable holding the pages' access token; when it is set, every
    page asks for it. Unset: anyone who reaches the address reads the pages."""
    base_url: str | None = Field(None, max_length=80)
    """Where players reach the pages (``https://ancath.club.example.org``), for ``!fight``'s
    link (None: none); at most 80 characters (``!fight``: one line). Served at its root."""

    @field_validator("base_url")
    @classmethod
    def _http(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"https?://[^\s]+", value):
            raise ValueError("an http:// or https:// address")
        return value.rstrip("/") if value else value

    session_days: int = Field(30, ge=1, le=365)   # how long a sign-in (its cookie) lasts
    public_key: str | None = None
    """The club's public key (``ed25519:<64 hex>``, as ``ancath-bot key public`` prints
    it): the pages prove the ledger with it, so their server needs no ledger secret."""

    @field_validator("public_key")
    @classmethod
    def _public_key(cls, value: str | None) -> str | None:
        if value is not None:
            PublicKey.parse(value)   # its ValueError names the form
        return value

    def club_key(self) -> PublicKey | None:
        """``public_key``, parsed."""
        return PublicKey.parse(self.public_key) if self.public_key else None

    def token(self) -> str | None:
        """The access token, from the environment (never the file)."""
        return os.environ.get(self.token_env) or None


class BotConfig(_Strict):
    database: str = DEFAULT_DATABASE
    """A SQLAlchemy URL, or a path to a SQLite file."""
    network: str = DEFAULT_NETWORK
    """The IRC network this process referees on, a short name (lowercase letters,
    digits, ``-``; 1 to 16): fights, challenges and channel settings are kept by network
    and channel, so processes on other networks share the database without their
    channels meeting. ``default`` for a club on one network."""
    home_network: str | None = None
    """The network whose services accounts and host masks are the club's names as they
    are (another network's are ``<network>:<account>``); unset, the first network an IRC
    bot of the club starts on becomes it. Give every process the same, or none."""
    ledger_key_file: str | None = None
    """A file of ledger keys, one per line: the first signs, all verify. The environment
    variable ``ANCATH_LEDGER_KEY`` overrides it; with neither, a SQLite database gets a
    key file of its own beside it on the first start (PostgreSQL needs one of the two)."""
    moderators: list[str] = []
    """Services accounts, exact ``nick!user@host`` masks with a verified ident, or the
    names of moderators who log in by password (``!mod login``) (R8.2)."""
    fairy_folk_open: bool = False
    rolls: Literal["auto", "manual"] = "auto"
    turn_timeout_minutes: float = Field(10, gt=0)
    command_prefix: str = Field("!", min_length=1, max_length=3)
    group_commit_ms: float = Field(1.0, ge=0, le=100)
    """Writing commands that arrive within this many milliseconds of each other share
    one transaction and one sync to disk (bot/chat/records_lane.py); 0: each its own."""
    heartbeat_file: str | None = None
    """The IRC bot's heartbeat for ``ancath-bot status`` (bot/heartbeat.py), one bot a file;
    unset: ``<db file>.heartbeat``, else ``ancath-bot-<network>.heartbeat`` in the cwd."""
    other_processes_env: list[str] = []
    """``ANCATH_*`` variables of a shared environment (one env_file) that other processes
    read, as another network's SASL password: not refused here as setting nothing."""
    irc: IrcConfig | None = None
    log: LogConfig = LogConfig()
    web: WebConfig = WebConfig()

    @field_validator("network", "home_network")
    @classmethod
    def _network(cls, value: str | None) -> str | None:
        return None if value is None else network_name(value)

    @field_validator("other_processes_env")
    @classmethod
    def _others(cls, value: list[str]) -> list[str]:
        refuse(others_problem(cls, value))
        return value

    @field_validator("moderators")
    @classmethod
    def _verified(cls, value: list[str]) -> list[str]:
        refuse(moderators_problem(value, NETWORK))
        unverified = unverified_masks(value)
        if unverified:
            raise ValueError(
                f"{', '.join(unverified)}: a '~' before the user means the server did not "
                "verify it, so anyone on that host can take it; list a services account, a "
                "mask with a verified ident, or a name that logs in with !mod login "
                "(ancath-bot moderator password <name>)")
        return value

    @model_validator(mode="after")
    def _masks_verified(self) -> BotConfig:
        masks = [m for m in self.moderators if is_mask(m)]
        if masks and not (self.irc is not None and self.irc.verified_idents):
            raise ValueError(
                f"moderators: {', '.join(masks)}: a host mask names a moderator only where "
                "the network verifies idents: set irc.verified_idents: true if it does; "
                "else list a services account, or a name that logs in with !mod login "
                "(ancath-bot moderator password <name>)")
        return self


def network_name(value: str) -> str:
    """``value`` when it is a network's name; else ``ValueError`` saying what one is."""
    if not re.fullmatch(NETWORK, value):
        raise ValueError(f"{value[:40]!r}: a network is a short name, 1 to 16 lowercase "
                         "letters, digits or '-' (libera, oftc-2)")
    return value


def environment() -> dict[str, Any]:
    """The configuration keys set in the environment: ``ANCATH_DATABASE``, ``ANCATH_IRC__PORT``
    (``__`` steps into a section), lists as JSON; :func:`load_config` refuses any other
    ``ANCATH_*`` but secrets' (:func:`bot.config_rules.stray_variable`)."""
    source = EnvSettingsSource(BotConfig, env_prefix=ENV_PREFIX,  # type: ignore[arg-type]
                               env_nested_delimiter=ENV_NESTING, case_sensitive=False)
    try:
        return source()
    except SettingsError as error:   # names only the top-level key
        field = re.search(r'field "(\w+)"', str(error))
        name = f"{ENV_PREFIX}{field[1].upper() if field else ''}"
        raise ConfigError(f"${name}...: a list or mapping set in the environment is JSON, "
                          f"e.g. {ENV_PREFIX}IRC{ENV_NESTING}CHANNELS='[\"#ancath\"]'") from None


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        inner = merged.get(key)
        if isinstance(inner, dict) and isinstance(value, dict):
            value = _merged(inner, value)
        merged[key] = value
    return merged


def _variable(loc: tuple[int | str, ...], env: dict[str, Any]) -> str | None:
    """The environment variable that set the key at ``loc`` (or a section around it)."""
    if not loc or loc[0] not in env:
        return None
    names = {name.upper(): name for name in os.environ}
    for depth in range(len(loc), 0, -1):
        wanted = ENV_PREFIX + ENV_NESTING.join(str(p) for p in loc[:depth]).upper()
        if wanted in names:
            return names[wanted]
    return None


def _read(source: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(source.read_text(encoding="utf-8")) or {}
    except OSError as error:
        raise ConfigError(f"{source}: cannot read: {error.strerror}") from error
    except UnicodeDecodeError as error:
        raise ConfigError(f"{source}: not UTF-8 text (byte {error.start + 1}): save it as "
                          "UTF-8") from error
    except yaml.YAMLError as error:
        raise ConfigError(f"{source}: not valid YAML: {error}") from error
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a mapping of keys")
    return data


def load_config(path: str | Path | None) -> BotConfig:
    """Read and validate a YAML file (None: the defaults, console and SQLite), with the
    environment's keys over the file's."""
    source = Path(path) if path is not None else None
    data = _read(source) if source is not None else {}
    env = environment()
    try:
        config = BotConfig.model_validate(_merged(data, env))
    except ValidationError as error:
        lines = []
        for e in error.errors():
            key = ".".join(str(p) for p in e["loc"])   # none: the whole (it names keys)
            variable = _variable(e["loc"], env)
            where = f"${variable}" if variable else (source or "environment")
            said = e["msg"].removeprefix("Value error, ")
            lines.append(f"{where}: {key}: {said}" if key else f"{where}: {said}")
        raise ConfigError("\n".join(lines)) from error
    irc = config.irc
    stray = stray_variable(BotConfig, os.environ, [config.web.token_env, *(
        (irc.sasl_password_env, irc.server_password_env) if irc else ()),
        *config.other_processes_env])
    if stray:
        raise ConfigError(stray)
    return config
