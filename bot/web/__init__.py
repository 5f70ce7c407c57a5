"""The leadership pages (``ancath-bot web``): a read-only web application over the
club's records, run as a process of its own beside the bot.

Pages, server-rendered, no script (``make_app`` in :mod:`bot.web.app` builds them over
one read-only store; :mod:`bot.web.server` serves them with uvicorn):

- ``/``: the standings (:mod:`bot.web.standings`);
- ``/warriors/<name>``: a warrior's sheet, BP chart, purchases, fights and prisoner
  history (:mod:`bot.web.warriors`, the chart :mod:`bot.web.chart`);
- ``/ledger``, ``/ledger.csv``, ``/ledger.json``: the ledger filtered and paged, and its
  downloads (:mod:`bot.web.ledger`, :mod:`bot.web.downloads`);
- ``/fights``, ``/fights/<number>[?step=N]``: the fights and each one's replay
  (:mod:`bot.web.fights`, :mod:`bot.web.replay`, :mod:`bot.web.glance`);
- ``/moderators``: the moderators' actions (:mod:`bot.web.moderators`);
- ``/integrity``: the audit and the ledger's head (:mod:`bot.web.integrity`).

Who may read them is :mod:`bot.web.access`; how people and typed text are shown
(never a ``user@host``) :mod:`bot.web.redact`; query parameters :mod:`bot.web.query`.
"""
