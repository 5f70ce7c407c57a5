"""The leadership pages (``ancath-bot web``): a read-only web application over the
club's records, run as a process of its own beside the bot.

Pages, server-rendered, working without script (two small files of the site's own,
``static/replay.js`` and ``static/live.js``, add keys and live steps; ``make_app`` in
:mod:`bot.web.app` builds them over one read-only store; :mod:`bot.web.server` serves
them with uvicorn):

- ``/``: the standings (:mod:`bot.web.standings`) and the ranking history
  (:mod:`bot.web.ranking`, kept by :mod:`bot.web.ranking_history`);
- ``/search?q=``: a warrior or a fight number (:mod:`bot.web.search`);
- ``/warriors/<name>``: a warrior's sheet, BP chart, purchases, fights and prisoner
  history (:mod:`bot.web.warriors`, the chart :mod:`bot.web.chart`);
- ``/ledger``, ``/ledger.csv``, ``/ledger.json``: the ledger filtered and paged, and its
  downloads (:mod:`bot.web.ledger`, :mod:`bot.web.downloads`);
- ``/fights``, ``/fights/<number>[?step=N]``: the fights and each one's replay
  (:mod:`bot.web.fights`, :mod:`bot.web.replay`, :mod:`bot.web.glance`), with its win
  chances (:mod:`bot.web.chances`, drawn by :mod:`bot.web.swing`);
- ``/fights/<number>/live``, ``/fights/<number>/events``: a fight going on, live, and
  its stream of server-sent events (:mod:`bot.web.live`);
- ``/moderators``: the moderators' actions (:mod:`bot.web.moderators`);
- ``/integrity``: the ledger's proof, the audit, the ledger's head, a pasted anchor
  checked, the club's public key (:mod:`bot.web.integrity`);
- ``/audit-export.jsonl``: the audit export, streamed (:mod:`bot.web.export`);
- ``/sign-in``, ``/sign-out``: the token's form and the session ended
  (:mod:`bot.web.sign_in`).

Every page shows what the ledger proves (:mod:`bot.web.proving`: walked when the server
starts, then each new row), and says on every page (``id="integrity-status"``) whether
it is proved.

Who may read them is :mod:`bot.web.access`; how people and typed text are shown
(never a ``user@host``) :mod:`bot.web.redact`; query parameters :mod:`bot.web.query`.
"""
