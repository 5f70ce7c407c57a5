"""Configuration: the example file is valid, and errors name file, key and problem."""

from pathlib import Path

import pytest

from bot.config import BotConfig, ConfigError, load_config

ROOT = Path(__file__).resolve().parents[2]


def test_example_config_is_valid() -> None:
    config = load_config(ROOT / "config.example.yaml")
    assert config.rolls == "auto" and config.irc is None
    assert "alice" in config.moderators


def test_defaults_without_a_file() -> None:
    config = load_config(None)
    assert config.database.startswith("sqlite") and config.turn_timeout_minutes == 10
    assert config.network == "default"


@pytest.mark.parametrize(("text", "expected"), [
    ("rolls: sometimes\n", "rolls: Input should be 'auto' or 'manual'"),
    ("irc:\n  server: x\n  port: abc\n", "irc.port: Input should be a valid integer"),
    ("colour: red\n", "colour: Extra inputs are not permitted"),
    ("- a list\n", "the top level must be a mapping"),
    ("rolls: [\n", "not valid YAML"),
    ("network: Libera\n", "network: 'Libera': a network is a short name, 1 to 16 lowercase"),
    ("network: a-network-too-long\n", "network: 'a-network-too-long': a network is"),
    ("network: ''\n", "network: '': a network is"),
    ("network: irc.libera.chat\n", "network: 'irc.libera.chat': a network is"),
])
def test_errors_name_file_key_and_problem(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(path) in str(error.value) and expected in str(error.value)


@pytest.mark.parametrize("name", ["libera", "oftc-2", "0", "sixteen-letters1"])
def test_a_network_is_a_short_name(name: str) -> None:
    assert BotConfig(network=name).network == name


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "nope.yaml")


PIN = "AB:" * 31 + "AB"


@pytest.mark.parametrize(("irc", "expected"), [
    ("tls_fingerprint: 'ab:cd'", "irc.tls_fingerprint: 'ab:cd' is not a SHA-256 "
     "fingerprint (64 hex digits, colons allowed)"),
    ("tls_ca_file: {dir}/nope.pem", "irc.tls_ca_file: cannot read {dir}/nope.pem: No such "
     "file or directory"),
    ("tls_client_cert: {dir}", "irc.tls_client_cert: cannot read {dir}: Is a directory"),
    ("tls_ca_file: {dir}/junk.pem", "irc: tls_ca_file: {dir}/junk.pem: not a usable CA "
     "bundle: "),
    ("tls_client_cert: {dir}/junk.pem", "irc: tls_client_cert: {dir}/junk.pem: not a usable "
     "certificate and key: "),
    (f"tls: false\n  tls_fingerprint: '{PIN}'", "irc: tls_fingerprint needs tls: true"),
    (f"tls_fingerprint: '{PIN}'\n  tls_ca_file: {{dir}}/junk.pem",
     "irc: tls_fingerprint and tls_ca_file: set one of the two"),
    ("tls_client_key: {dir}/junk.pem", "irc: tls_client_key needs tls_client_cert"),
    ("sasl_mechanism: EXTERNAL", "irc: sasl_mechanism EXTERNAL needs tls_client_cert"),
    ("sasl_mechanism: PLAIN", "irc: sasl_mechanism PLAIN needs sasl_account"),
])
def test_tls_errors_are_one_line_naming_the_key(tmp_path: Path, irc: str,
                                                expected: str) -> None:
    (tmp_path / "junk.pem").write_text("not a certificate\n")
    path = tmp_path / "bot.yaml"
    path.write_text("irc:\n  server: x\n  " + irc.format(dir=tmp_path) + "\n")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    message = str(error.value)
    assert message.startswith(f"{path}: {expected.format(dir=tmp_path)}"), message
    assert "\n" not in message


def test_a_fingerprint_is_kept_as_lower_case_hex_and_sasl_is_inferred(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(f"irc:\n  server: x\n  tls_fingerprint: '{PIN}'\n  sasl_account: A\n")
    irc = load_config(path).irc
    assert irc is not None and irc.tls_fingerprint == "ab" * 32
    assert irc.sasl() == "PLAIN"


def test_environment_overrides_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text("database: file.sqlite3\nirc:\n  server: irc.example.org\n  port: 6697\n"
                    "  channels: ['#a']\n")
    monkeypatch.setenv("ANCATH_DATABASE", "env.sqlite3")
    monkeypatch.setenv("ANCATH_IRC__PORT", "6667")
    monkeypatch.setenv("ancath_irc__flood__burst", "2")   # names are not case-sensitive
    monkeypatch.setenv("ANCATH_MODERATORS", '["alice", "bob"]')
    monkeypatch.setenv("ANCATH_LOG__FORMAT", "json")
    config = load_config(path)
    assert config.database == "env.sqlite3" and config.moderators == ["alice", "bob"]
    assert config.irc is not None and config.irc.server == "irc.example.org"
    assert (config.irc.port, config.irc.flood.burst, config.irc.channels) == (6667, 2, ["#a"])
    assert config.log.format == "json"


def test_secrets_and_other_variables_are_not_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANCATH_LEDGER_KEY", "ANCATH_SASL_PASSWORD", "ANCATH_TEST_PG_URL"):
        monkeypatch.setenv(name, "x" * 40)
    assert load_config(None) == BotConfig()


@pytest.mark.parametrize(("name", "value", "expected"), [
    ("ANCATH_IRC__PORT", "abc", "$ANCATH_IRC__PORT: irc.port: Input should be a valid integer"),
    ("ANCATH_ROLLS", "sometimes", "$ANCATH_ROLLS: rolls: Input should be 'auto' or 'manual'"),
    ("ANCATH_IRC__PROT", "1", "$ANCATH_IRC__PROT: irc.prot: Extra inputs are not permitted"),
    ("ANCATH_MODERATORS", "alice", "$ANCATH_MODERATORS...: a list or mapping set in the "
     "environment is JSON"),
])
def test_environment_errors_name_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              name: str, value: str, expected: str) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text("irc:\n  server: irc.example.org\n")
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == expected or str(error.value).startswith(expected)


def test_log_section_is_strict(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text("log:\n  level: LOUD\n")
    with pytest.raises(ConfigError, match=r"log\.level: Input should be"):
        load_config(path)
    path.write_text("log: {level: DEBUG, format: json, file: /tmp/x.log}\n")
    assert load_config(path).log.file == "/tmp/x.log"


def test_a_section_set_whole_as_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANCATH_IRC", '{"server": "irc.example.org", "port": "x"}')
    with pytest.raises(ConfigError) as error:
        load_config(None)
    assert str(error.value).startswith("$ANCATH_IRC: irc.port: Input should be a valid integer")
    monkeypatch.setenv("ANCATH_IRC", '{"server": "irc.example.org"}')
    monkeypatch.setenv("ANCATH_IRC__PORT", "6667")
    irc = load_config(None).irc
    assert irc is not None and (irc.server, irc.port) == ("irc.example.org", 6667)


def test_a_host_mask_moderator_needs_the_operators_word_that_idents_are_verified(
        tmp_path: Path) -> None:
    """InspIRCd without ident lookups shows the ident a client chose with no '~': a mask
    counts only where the operator says the network verifies idents."""
    path = tmp_path / "bot.yaml"
    path.write_text('moderators: ["mboss!mboss@127.0.0.1"]\n')
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == (
        f"{path}: moderators: mboss!mboss@127.0.0.1: a host mask names a moderator only "
        "where the network verifies idents: set irc.verified_idents: true if it does; else "
        "list a services account, or a name that logs in with !mod login (ancath-bot "
        "moderator password <name>)")
    path.write_text('moderators: ["mboss!mboss@127.0.0.1"]\n'
                    "irc: {server: irc.example.org, verified_idents: false}\n")
    with pytest.raises(ConfigError, match=r"irc\.verified_idents: true"):
        load_config(path)
    path.write_text('moderators: ["mboss!mboss@127.0.0.1", alice]\n'
                    "irc: {server: irc.example.org, verified_idents: true}\n")
    assert load_config(path).moderators == ["mboss!mboss@127.0.0.1", "alice"]
