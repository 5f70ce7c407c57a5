"""``Line.format`` is ``parse``'s inverse: every line the bot writes reads back as the
same line, every line written as the bot writes reads back as the same text, and what
cannot be one IRC line is refused, never sent."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.irc.line import Line, LineError, parse

_ANY = st.characters(blacklist_characters="\r\n\0")
_WORD = st.text(_ANY, min_size=1, max_size=12).filter(
    lambda w: " " not in w and not w.startswith(":"))
_TRAILING = st.text(st.sampled_from("ab :;\\@!\x01é"), max_size=12) | st.text(_ANY,
                                                                               max_size=12)
_KEY = st.text(st.characters(blacklist_characters="\r\n\0 ;="), min_size=1, max_size=8)
_TAGS = st.dictionaries(_KEY, st.none() | st.text(st.characters(blacklist_characters="\0"),
                                                  max_size=8), max_size=4)
_COMMAND = st.from_regex(r"[A-Z]{1,8}|[0-9]{3}", fullmatch=True)


@st.composite
def lines(draw: st.DrawFn) -> Line:
    """Any line that can be written: tags, a source, middles, and a last parameter that
    may hold spaces, start with ``:`` or be empty."""
    params = draw(st.lists(_WORD, max_size=6))
    if draw(st.booleans()):
        params.append(draw(_TRAILING))
    return Line(draw(_COMMAND), params, draw(st.none() | _WORD), draw(_TAGS),
                trailing=draw(st.booleans()))


@given(lines())
def test_every_line_the_bot_writes_reads_back_as_itself(line: Line) -> None:
    text = line.format()
    assert parse(text) == line
    assert parse(text).format() == text  # written the same way (its trailing colon)


_ESCAPED = st.lists(st.sampled_from(["a", "Z", "9", "-", "é", "\\:", "\\s", "\\\\", "\\r",
                                     "\\n"]), max_size=5).map("".join)


@st.composite
def canonical(draw: st.DrawFn) -> str:
    """A line written as ``format`` writes it: one space between parts, tag values with
    IRCv3's escapes, a trailing parameter wherever the sender put one."""
    keys = draw(st.lists(st.from_regex(r"\+?[a-z]{1,5}(/[a-z]{1,4})?", fullmatch=True),
                         unique=True, max_size=3))
    tags = [key + draw(st.sampled_from(["", "="]) | _ESCAPED.map("={}".format))
            for key in keys]
    parts = [f"@{';'.join(tags)}"] if tags else []
    parts += [f":{draw(_WORD)}"] if draw(st.booleans()) else []
    parts += [draw(_COMMAND), *draw(st.lists(_WORD, max_size=5))]
    parts += [f":{draw(_TRAILING)}"] if draw(st.booleans()) else []
    return " ".join(parts)


@given(canonical())
def test_every_canonical_text_formats_back_to_itself(text: str) -> None:
    assert parse(text).format() == text


@pytest.mark.parametrize("text", [
    "PRIVMSG #arena :Olaf (olaf) to act: !attack 25 | !parry",
    "PRIVMSG #arena ::) a smile", "PRIVMSG #arena :", "PRIVMSG #arena hi",
    "PONG :irc.test", "CAP REQ :account-tag", "WHO #a %tnuhact,42", "JOIN #a",
    r"@account=al\sice;time=x;flag :al!~a@h.example PRIVMSG #arena :!roll 1d6",
    r"@k=a\:b\\c\r\n :srv 354 me 42 #a u h n acct",
])
def test_what_the_bot_sends_and_reads_is_written_as_it_was(text: str) -> None:
    assert parse(text).format() == text


def test_a_reply_is_a_line_built_not_a_string_glued() -> None:
    said = Line("PRIVMSG", ["#arena", "Gorbag forfeits. ledger #9 0123abcd"], trailing=True)
    assert said.format() == "PRIVMSG #arena :Gorbag forfeits. ledger #9 0123abcd"
    assert Line("PONG", ["x"], trailing=True).format() == "PONG :x"
    assert Line("NICK", ["AnCath_"]).format() == "NICK AnCath_"
    assert Line("PRIVMSG", ["#a", ":)"]).format() == "PRIVMSG #a ::)"  # colon needed
    assert Line("QUIT", [""]).format() == "QUIT :"
    assert Line("PRIVMSG", ["Ref", "x"], "Ref!~r@h").format() == ":Ref!~r@h PRIVMSG Ref x"


@pytest.mark.parametrize(("line", "names"), [
    (Line("PRIVMSG", ["#arena", "hi\r\nQUIT :injected"]), "CR, LF or NUL"),
    (Line("PRIVMSG", ["#arena", "hi\rNICK x"]), "CR, LF or NUL"),
    (Line("PRIVMSG", ["#arena", "a\0b"]), "CR, LF or NUL"),
    (Line("PRIVMSG", ["#are na", "hi"]), "holds a space"),
    (Line("PRIVMSG", [":#arena", "hi"]), "starts with ':'"),
    (Line("PRIVMSG", ["", "hi"]), "is empty"),
    (Line("JOIN", ["#a\n", "x"]), "holds a space"),
    (Line("PRIVMSG", ["#a", "x"], "a b"), "not one word"),
    (Line("PRIVMSG", ["#a", "x"], tags={"a b": "x"}), "tag name"),
    (Line("PRIVMSG", ["#a", "x"], tags={"k": "a\0"}), "holds NUL"),
    (Line("privmsg", ["#a", "x"]), "not a command"),
    (Line("", ["#a"]), "not a command"),
], ids=["crlf", "lone-cr", "nul", "space-in-middle", "colon-middle", "empty-middle",
        "lf-in-middle", "source", "tag-name", "tag-nul", "lowercase", "no-command"])
def test_what_cannot_be_one_line_is_refused(line: Line, names: str) -> None:
    with pytest.raises(LineError, match=names.replace("(", r"\(")):
        line.format()
