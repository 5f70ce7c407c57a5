"""``ancath-bot audit verify`` and ``audit export``: the ledger proved from a database
with its keys, or from an export with the club's public key alone.

``audit verify`` exits 0 when everything is proved, 1 when it found problems, 2 when it
cannot check (a key not available, an unreadable file); each problem is one line.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

from bot.commandline.keys import keyring_of
from bot.config import ConfigError
from bot.systems.registry import SYSTEMS
from storage.audit import Report
from storage.audit_export import ExportError, verify_export
from storage.chain import ranges
from storage.db import open_read_only
from storage.keys import Keyring
from storage.ledger import Anchor, anchors_in
from storage.signing import PublicKey
from storage.store import Store

__all__ = ["export", "printable", "public_key", "verify"]


def printable(text: str) -> str:
    """``text`` safe for a terminal: control and format characters (an escape sequence
    that would redraw the screen, a bidirectional override) shown as ``\\x1b``."""
    return "".join(c if unicodedata.category(c)[0] != "C" or c == " "
                   else f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"
                   for c in text)


def public_key(text: str) -> PublicKey:
    """``--public-key``'s value: ``ed25519:<64 hex>``."""
    try:
        return PublicKey.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def export(args: argparse.Namespace, url: str) -> int:
    """``audit export --out FILE``: written beside it, then renamed over it, so a reader
    never sees half a file."""
    out = Path(args.out)
    store = Store(open_read_only(url), systems=SYSTEMS.rules, keyring=keyring_of(args, url))
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent or ".")
    except OSError as error:
        raise ConfigError(f"{out}: cannot write there: {error.strerror}") from error
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            counts = store.export_audit(file)
        os.chmod(temporary, 0o644)
        os.replace(temporary, out)
    except BaseException:
        os.unlink(temporary)
        raise
    finally:
        store.engine.dispose()
    keys = ", ".join(key.text for key in store.keyring.public_keys) or "none known here"
    print(f"exported {counts['rows']} ledger rows, {counts['fights']} fights and "
          f"{counts['warriors']} warriors to {out}; check it with ancath-bot audit verify "
          f"--export {out} --public-key <the club's key> (this club's: {keys})")
    return 0


def _anchors(args: argparse.Namespace) -> list[Anchor]:
    anchors: list[Anchor] = list(args.anchor)
    for name in args.anchors:
        try:
            text = Path(name).read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            raise ConfigError(f"{name}: cannot read: {error.strerror}") from error
        found = anchors_in(text)
        if not found:
            print(f"note: {name}: no 'ledger #<id> <hash>' anchors in it")
        anchors += [anchor for anchor in found if anchor not in anchors]
    return anchors


def verify(args: argparse.Namespace, url: str | None) -> int:
    """``audit verify``, of the database (``--db``, ``--config``) or of ``--export``."""
    anchors = _anchors(args)
    trusted = [args.public_key] if args.public_key is not None else []
    if args.export is not None:
        if not trusted:
            raise ConfigError("--export needs --public-key ed25519:<64 hex digits> (the "
                              "club's key, as ancath-bot key public prints it)")
        return _verify_export(Path(args.export), trusted, anchors)
    assert url is not None
    keyring = keyring_of(args, url)
    store = Store(open_read_only(url), systems=SYSTEMS.rules, keyring=keyring)
    report = store.audit(anchors, trusted)
    return _said(report, keyring)


def _verify_export(path: Path, trusted: list[PublicKey], anchors: list[Anchor]) -> int:
    try:
        with path.open(encoding="utf-8-sig", errors="strict") as file:   # a BOM is fine
            proved = verify_export(file, trusted, anchors, source=str(path), systems=SYSTEMS.rules)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from error
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not text: not an audit export, or damaged") from None
    except ExportError as error:
        raise ConfigError(printable(str(error))) from None
    except RecursionError:   # a value nested deeper than any the bot writes
        raise ConfigError(f"{path}: a record nested too deep: not an audit export, or "
                          "damaged") from None
    code = _said(proved.report, None)
    if code == 0:
        _standings(proved.warriors)
        print(f"proved {proved.counts['rows']} ledger rows, {proved.counts['fights']} fights "
              f"and {proved.counts['warriors']} warriors with {trusted[0].text}")
    return code


def _said(report: Report, keyring: Keyring | None) -> int:
    """The report, one line each; 0 proved, 1 problems, 2 a key not available. Without
    a ``keyring`` (an export checked with the public key given) a row signed by any
    other key is not the club's: a problem, not a missing key."""
    for problem in report.problems:
        print(printable(problem))
    for note in report.notes:
        print(printable(f"note: {note}"))
    if keyring is None:
        for kid, ids in report.missing.items():
            print(printable(f"ledger rows {ranges(ids)} are signed with key {kid}: not the "
                            "key given, nor one it introduced (forged, or the wrong key)"))
        if report.missing or report.problems:
            return 1
    missing = report.missing_keys(keyring) if keyring is not None else []
    for line in missing:
        print(f"ancath-bot: {line}", file=sys.stderr)
    if missing:
        return 2
    if report.problems:
        return 1
    if report.head is not None:
        print(f"note: the head is {report.head} (publish it to anchor the ledger)")
    print("ledger intact; every total matches")
    return 0


def _standings(warriors: dict[int, dict[str, Any]]) -> None:
    """The warriors as the chain proved them, most BP first, one line each."""
    names = {wid: str(w.get("name", f"warrior {wid}")) for wid, w in warriors.items()}
    ranked = sorted(warriors.items(), key=lambda item: (-item[1]["bp"], names[item[0]]))
    for place, (wid, w) in enumerate(ranked, 1):
        skills = ", ".join(f"{k} {v}" for k, v in sorted(w["skills"].items())) or "no skills"
        status = w["status"]
        if status == "prisoner" and w.get("captor_id") in names:
            status = f"prisoner of {names[w['captor_id']]}"
        armour = f", {w['armour']} armour" if w.get("armour") else ""
        print(printable(f"{place}. {names[wid]} ({w.get('owner', '?')}): {w['bp'] / 10:.1f} "
                        f"BP ({w['bp_spent']} spent), {status}{armour}; {skills}"))
