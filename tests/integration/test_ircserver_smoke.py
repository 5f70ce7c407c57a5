"""The IRC test server is real: relays between users, splits at a lone CR, restarts.

These check the test infrastructure (ircserver.py), not the bot: if they fail, the
bot's IRC tests prove nothing.
"""

from __future__ import annotations

import asyncio

from ircserver import IrcClient, IrcLine, NgircdServer


def test_two_users_in_a_channel_see_each_others_messages(ngircd: NgircdServer) -> None:
    async def scenario() -> None:
        alice = await IrcClient.connect(ngircd.port, "alice")
        bob = await IrcClient.connect(ngircd.port, "bob", user="robert")
        try:
            assert alice.mask is not None and alice.mask.startswith("alice!")
            await alice.join("#arena")
            await bob.join("#arena")
            joined = await alice.expect(lambda line: line.command == "JOIN" and line.nick == "bob")
            assert joined.user is not None and joined.user.endswith("robert")
            assert joined.host == "127.0.0.1"

            await alice.say("#arena", "!challenge bob")
            heard = await bob.expect(lambda line: line.command == "PRIVMSG")
            assert heard.nick == "alice"
            assert heard.params == ("#arena", "!challenge bob")

            await bob.say("#arena", "!accept")
            heard = await alice.expect(r"PRIVMSG #arena :!accept$")
            assert heard.nick == "bob"
            assert heard.prefix == bob.mask

            await bob.say("alice", "psst")  # a private message
            private = await alice.expect(lambda line: line.command == "PRIVMSG")
            assert (private.nick, private.target, private.text) == ("bob", "alice", "psst")
        finally:
            await alice.quit()
            await bob.quit()

    asyncio.run(scenario())


def test_a_lone_cr_ends_the_line_on_the_server(ngircd: NgircdServer) -> None:
    """What ngircd does with "hi\\rNICK x" is what a real network does to an unsanitised
    bot: the text after the CR runs as the sender's own command."""

    async def scenario() -> None:
        mallory = await IrcClient.connect(ngircd.port, "mallory")
        watcher = await IrcClient.connect(ngircd.port, "watcher")
        try:
            await mallory.join("#arena")
            await watcher.join("#arena")
            await mallory.send_raw("PRIVMSG #arena :hi\rNICK injected")

            said = await watcher.expect(lambda line: line.command == "PRIVMSG")
            assert said.text == "hi"  # the CR and what followed it did not get relayed
            renamed = await watcher.expect(lambda line: line.command == "NICK")
            assert (renamed.nick, renamed.params) == ("mallory", ("injected",))
            await mallory.expect(lambda line: line.command == "NICK" and line.nick == "mallory")
            assert mallory.nickname == "injected"
            assert mallory.mask is not None and mallory.mask.startswith("injected!")
            assert not any("\r" in line.raw for line in watcher.lines)

            # the client's own NICK still works after the server-side rename
            await mallory.nick("mallory2")
            assert mallory.nickname == "mallory2"
        finally:
            await mallory.close()  # a QUIT would wait out the 2 s penalty of each NICK
            await watcher.quit()

    asyncio.run(scenario())


def test_server_restarts_on_the_same_port_and_clients_reconnect(ngircd: NgircdServer) -> None:
    async def scenario() -> None:
        port = ngircd.port
        first = await IrcClient.connect(port, "referee")
        await first.join("#arena")

        ngircd.stop()
        assert not ngircd.running
        await first.wait_closed(timeout=10)
        farewell = await first.expect(lambda line: line.command == "ERROR", timeout=0)
        assert farewell.text == "Server going down"
        await first.close()

        ngircd.start()
        assert ngircd.port == port and ngircd.running
        again = await IrcClient.connect(port, "referee")
        try:
            await again.join("#arena")
            # a fresh server: the channel is new again, so we are its only member
            names = await again.expect(lambda line: line.command == "353")
            assert names.text.split() == ["@referee"]
        finally:
            await again.quit()

    asyncio.run(scenario())


def test_line_parser() -> None:
    line = IrcLine.parse("@time=2024-01-01T00:00:00Z;x=a\\sb :n!~u@h PRIVMSG #c :hello :) there")
    assert line.tags == {"time": "2024-01-01T00:00:00Z", "x": "a b"}
    assert (line.prefix, line.nick, line.user, line.host) == ("n!~u@h", "n", "~u", "h")
    assert line.command == "PRIVMSG"
    assert line.params == ("#c", "hello :) there")
    ping = IrcLine.parse("PING :irc.test")
    assert (ping.prefix, ping.nick, ping.command) == (None, None, "PING")
    assert ping.params == ("irc.test",)
    numeric = IrcLine.parse(":irc.test 353 bob = #arena :@alice bob")
    assert numeric.nick == "irc.test" and numeric.params == ("bob", "=", "#arena", "@alice bob")
