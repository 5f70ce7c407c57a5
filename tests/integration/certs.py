"""Throwaway TLS certificates for tests, made with the ``openssl`` CLI (not a test).

``make_certs(directory)`` writes a CA, a server certificate it signed for 127.0.0.1 and
localhost, and a self-signed client certificate (P-256 keys, valid two days). The
fingerprints come from ``openssl x509 -fingerprint -sha256``, upper case with colons,
as an operator would copy them.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]


@dataclass(frozen=True)
class Certs:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def have_openssl() -> bool:
    return shutil.which("openssl") is not None


def _openssl(*args: str | Path) -> str:
    done = subprocess.run(["openssl", *map(str, args)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"openssl {args[0]} failed: {done.stderr}")
    return done.stdout


def openssl_fingerprint(cert: Path) -> str:
    """``AB:CD:...`` (SHA-256 of the DER certificate)."""
    out = _openssl("x509", "-in", cert, "-noout", "-fingerprint", "-sha256")
    return out.strip().split("=", 1)[1]


def make_certs(directory: Path) -> Certs:
    d = directory
    d.mkdir(parents=True, exist_ok=True)
    _openssl("req", "-x509", *_KEY, "-keyout", d / "ca.key", "-out", d / "ca.pem",
             "-days", "2", "-subj", "/CN=ancath test CA",
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    _openssl("req", *_KEY, "-keyout", d / "server.key", "-out", d / "server.csr",
             "-subj", "/CN=localhost")
    (d / "server.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                                  "basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
    _openssl("x509", "-req", "-in", d / "server.csr", "-CA", d / "ca.pem",
             "-CAkey", d / "ca.key", "-set_serial", "2", "-days", "2",
             "-extfile", d / "server.ext", "-out", d / "server.pem")
    _openssl("req", "-x509", *_KEY, "-keyout", d / "client.key", "-out", d / "client.pem",
             "-days", "2", "-subj", "/CN=AnCath")
    return Certs(d / "ca.pem", d / "server.pem", d / "server.key", d / "client.pem",
                 d / "client.key")
