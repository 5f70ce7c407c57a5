"""Who is who: a line's sender as a moderator, a name or someone ignored
(``identity.py``), the moderators logged in by password (``logins.py``) and who is
behind a nick, for naming only (``people.py``)."""
