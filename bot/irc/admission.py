"""Which of what people say on IRC goes on: a command (the command prefix, or ``/rol``)
to the referee, a CTCP request (VERSION) to its answer. Either only within their pace
(bot/irc/pacing.py); past it, the slow-down NOTICE at most once a minute, never to
someone the bot ignores. A command within the pace goes on whoever sent it: the referee
reads the ignore list for it, once (bot/referee.py); a CTCP request is answered only to
someone the bot does not ignore. Whatever they ask, answered or not, weighs on their
place in the send queue (bot/irc/fair.py). Chatter goes nowhere.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.chat.moderators import is_secret
from bot.irc.events import CtcpRequest
from bot.irc.fair import owed
from bot.irc.outbox import Outbox
from bot.irc.pacing import Pace
from bot.messages import Incoming, Priority, Sender

__all__ = ["Admission"]

log = logging.getLogger("ancath.irc")


class Admission:
    """The checks between what people say and the referee."""

    def __init__(self, outbox: Outbox, pace: Pace, is_ignored: Callable[[Sender], bool],
                 reply_seconds: float) -> None:
        self.outbox, self.pace, self.is_ignored = outbox, pace, is_ignored
        self.reply_seconds = reply_seconds
        """How long an answer (the CTCP reply, the slow-down NOTICE) is worth waiting."""

    def command(self, msg: Incoming, prefix: str) -> bool:
        """Whether ``msg`` is a command that goes on to the referee."""
        if not (msg.text.startswith((prefix, "/rol"))):
            return False
        self.outbox.asked(owed(msg.sender))  # dropped or not, it weighs on their place

        def shown() -> str:   # read only for a line dropped
            return f"{prefix}mod login ..." if is_secret(msg.text, prefix) else msg.text

        return self._paced(msg.sender, shown, ignored_quietly=True)

    def ctcp(self, request: CtcpRequest) -> None:
        """Answer ``request`` (a NOTICE) unless ignored or past its asker's pace."""
        sender, asker = request.sender, owed(request.sender)
        self.outbox.asked(asker)  # what they ask weighs on their place
        if request.answer is not None and not self.is_ignored(sender) and self._paced(
                sender, lambda: f"CTCP {request.command}"):
            self.outbox.message(sender.nick, request.answer, Priority.CHATTER, "NOTICE",
                                owed=asker, within=self.reply_seconds)

    def _paced(self, sender: Sender, what: Callable[[], str],
               ignored_quietly: bool = False) -> bool:
        """Whether a command from ``sender`` is within the pace (else the slow-down
        notice, once a minute; ``what`` names the line dropped, in the log). With
        ``ignored_quietly`` the ignore list is read only for a line past the pace,
        dropped with no word to someone ignored: one within it goes on to the referee,
        which reads the list once, fresh (a moderator in another process may have taken
        the ignore back)."""
        if self.pace.allowed(sender.identity):
            return True
        if ignored_quietly and self.is_ignored(sender):
            return False
        log.warning("rate limit: dropped %r from %s", what()[:40], sender.identity)
        if self.pace.tell(sender.identity):
            self.outbox.message(sender.nick, self.pace.notice, Priority.CHATTER, "NOTICE",
                                owed=owed(sender), within=self.reply_seconds)
        return False
