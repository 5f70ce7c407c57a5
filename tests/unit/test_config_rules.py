"""What the configuration refuses beyond its types, each in one line naming the fix:
moderator entries that could never match anyone (R8.2), nicks no server takes, and
``ANCATH_*`` variables that set nothing (a misspelt ``ANCATH_DATABSE`` would start a
second club on the default SQLite file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError, load_config


def refused(tmp_path: Path, text: str) -> str:
    path = tmp_path / "bot.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    message = str(error.value)
    assert "\n" not in message and message.startswith(f"{path}: ")
    return message.removeprefix(f"{path}: ")


# -- moderators: an account, or an exact nick!user@host; never a wildcard ---------------

IRC = "irc: {server: irc.example.org, verified_idents: true}\n"


@pytest.mark.parametrize(("entry", "said"), [
    ("bob!*@*.example", "moderators: 'bob!*@*.example': a moderator mask is exact, no * or ? "
     "(R8.2): the one nick!user@host /whois shows, or a services account"),
    ("bob@host", "moderators: 'bob@host': a mask is the whole nick!user@host /whois shows "
     "(bob!bob@staff.example.org), or write a services account"),
    ("bob!bob", "moderators: 'bob!bob': a mask is the whole nick!user@host"),
    ("al ice", "moderators: 'al ice': a moderator is one word: a services account, or "
     "nick!user@host"),
    ("*", "moderators: '*': a moderator mask is exact"),
    ("alice,bob", "moderators: 'alice,bob': one moderator an entry: list them as a YAML list"),
    ("bob!bob@host@x", "moderators: 'bob!bob@host@x': a mask is the whole nick!user@host"),
    ("oftc:bob!*@*", "moderators: 'oftc:bob!*@*': a moderator mask is exact"),
])
def test_a_moderator_who_could_never_match_stops_the_start(tmp_path: Path, entry: str,
                                                           said: str) -> None:
    assert refused(tmp_path, f"moderators: [alice, {entry!r}]\n{IRC}").startswith(said)


def test_every_such_entry_is_named_in_the_one_line(tmp_path: Path) -> None:
    said = refused(tmp_path, "moderators: ['bob!*@*.example', 'bob@host', 'al ice']\n" + IRC)
    assert said.endswith("(also 'bob@host', 'al ice')")


def test_accounts_network_accounts_and_exact_masks_stand(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    entries = ["alice", "Boss[1]", "oftc:bob", "bob!bob@staff.example.org",
               "libera:carol!carol@2001:db8::1"]
    path.write_text(f"moderators: {entries}\n{IRC}", encoding="utf-8")
    assert load_config(path).moderators == entries


# -- nicks ------------------------------------------------------------------------------


@pytest.mark.parametrize("nick", ["An Cath", "1Ref", "-Ref", "Ref,2", "Ref*", "Ref!x", "Ref@x",
                                  "#Ref", "Ref:", "", "R" * 31, "Réf"])
def test_a_nick_no_server_takes_stops_the_start(tmp_path: Path, nick: str) -> None:
    said = refused(tmp_path, f"irc: {{server: irc.example.org, nick: {nick!r}}}\n")
    assert said == (f"irc.nick: {nick!r} is not a nick: 1 to 30 letters, digits or "
                    "[]\\`_^{|}-, not starting with a digit or '-' (AnCath, Ref_2)")


def test_an_alternative_nick_is_checked_too(tmp_path: Path) -> None:
    said = refused(tmp_path, "irc: {server: irc.example.org, alt_nicks: [Ref_, 'Ref 2']}\n")
    assert said.startswith("irc.alt_nicks: 'Ref 2' is not a nick")


@pytest.mark.parametrize("nick", ["AnCath", "Ref_", "[Ref]", "R-2", "`ref^", "{x}|y",
                                  "R" * 30])
def test_nicks_of_rfc_2812_characters_stand(tmp_path: Path, nick: str) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(f"irc: {{server: irc.example.org, nick: {nick!r}}}\n", encoding="utf-8")
    irc = load_config(path).irc
    assert irc is not None and irc.nick == nick


# -- ANCATH_* variables -----------------------------------------------------------------


@pytest.mark.parametrize(("name", "said"), [
    ("ANCATH_DATABSE", "$ANCATH_DATABSE sets nothing: correct it ($ANCATH_DATABASE?) or "
     "unset it"),
    ("ANCATH_IRC_SERVER", "$ANCATH_IRC_SERVER sets nothing: correct it "
     "($ANCATH_IRC__SERVER?) or unset it"),
    ("ancath_ledger_key", "$ancath_ledger_key sets nothing: correct it ($ANCATH_LEDGER_KEY?) "
     "or unset it"),
    ("ANCATH_SOMETHING_ELSE", "$ANCATH_SOMETHING_ELSE sets nothing: correct it or unset it "
     "(ANCATH_<key>, ANCATH_<section>__<key>, or a secret's variable)"),
])
def test_a_variable_that_sets_nothing_stops_the_start(monkeypatch: pytest.MonkeyPatch,
                                                      name: str, said: str) -> None:
    monkeypatch.setenv(name, "club.sqlite3")
    with pytest.raises(ConfigError) as error:
        load_config(None)
    assert str(error.value) == said


def test_variables_read_elsewhere_stand(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANCATH_LEDGER_KEY", "ANCATH_SASL_PASSWORD", "ANCATH_WEB_TOKEN",
                 "ANCATH_TEST_PG_URL", "ANCATH_TEST_NGIRCD", "ANCATH_BENCH_PG_URL",
                 "ANCATH_OFTC_SASL", "ANCATH_OFTC_PASS", "ANCATH_PAGES", "ancath_database",
                 "ANCATH_IRC__PORT"):
        monkeypatch.setenv(name, "6667")
    path = tmp_path / "bot.yaml"   # the secrets this config names are its own to read
    path.write_text("irc: {server: irc.oftc.net, sasl_password_env: ANCATH_OFTC_SASL, "
                    "server_password_env: ANCATH_OFTC_PASS}\nweb: {token_env: ANCATH_PAGES}\n")
    config = load_config(path)
    assert config.database == "6667" and config.irc is not None and config.irc.port == 6667
    path.write_text("irc: {server: irc.oftc.net}\n")   # named by no config: a mistake
    with pytest.raises(ConfigError, match=r"^\$ANCATH_OFTC_PASS sets nothing"):
        load_config(path)


def test_another_processes_secret_in_a_shared_environment_is_listed_not_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two networks' bots (and ``ancath-bot web``) on one compose env_file: each config
    names its own secret, and each stopped on the other's."""
    monkeypatch.setenv("ANCATH_LIBERA_SASL", "a")
    monkeypatch.setenv("ANCATH_OFTC_SASL", "b")
    path = tmp_path / "libera.yaml"
    libera = "irc: {server: irc.libera.chat, sasl_account: AnCath, " \
        "sasl_password_env: ANCATH_LIBERA_SASL}\n"
    path.write_text(libera)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == (
        "$ANCATH_OFTC_SASL sets nothing: if another process reads it (a shared env_file), "
        "list it in other_processes_env:, else correct it or unset it")
    path.write_text(libera + "other_processes_env: [ANCATH_OFTC_SASL]\n")
    assert load_config(path).other_processes_env == ["ANCATH_OFTC_SASL"]


@pytest.mark.parametrize(("name", "said"), [
    ("ANCATH_SALS_PASSWORD", "$ANCATH_SALS_PASSWORD sets nothing: correct it "
     "($ANCATH_SASL_PASSWORD?) or unset it, or list it in other_processes_env: if another "
     "process reads it"),
    ("ANCATH_OFTC_TOKEN", "$ANCATH_OFTC_TOKEN sets nothing: if another process reads it (a "
     "shared env_file), list it in other_processes_env:, else correct it or unset it"),
    ("ANCATH_DATABSE", "$ANCATH_DATABSE sets nothing: correct it ($ANCATH_DATABASE?) or "
     "unset it"),   # no secret's name: a typo, as it was
    ("ancath_sasl_password", "$ancath_sasl_password sets nothing: correct it "
     "($ANCATH_SASL_PASSWORD?) or unset it"),   # the secret's own name, in lower case
])
def test_a_secrets_name_that_sets_nothing_says_other_processes_env(
        monkeypatch: pytest.MonkeyPatch, name: str, said: str) -> None:
    monkeypatch.setenv(name, "x")
    with pytest.raises(ConfigError) as error:
        load_config(None)
    assert str(error.value) == said


@pytest.mark.parametrize(("entry", "said"), [
    ("ANCATH_DATABASE", "other_processes_env: 'ANCATH_DATABASE' sets database here: another "
     "process's value of it needs an environment of its own"),
    ("ANCATH_IRC__PORT", "other_processes_env: 'ANCATH_IRC__PORT' sets irc here"),
    ("OFTC_SASL", "other_processes_env: 'OFTC_SASL': only ANCATH_* variables are checked, so "
     "only they are listed here"),
])
def test_other_processes_env_lists_only_variables_that_set_nothing(
        tmp_path: Path, entry: str, said: str) -> None:
    assert refused(tmp_path, f"other_processes_env: [{entry}]\n").startswith(said)
