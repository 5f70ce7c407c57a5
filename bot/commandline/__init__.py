"""The ``ancath-bot`` subcommands by family (:mod:`bot.cli` parses and dispatches):
``run`` and ``console`` (:mod:`.run`), ``warrior show`` and ``ledger``
(:mod:`.records`), ``audit verify`` and ``audit export`` (:mod:`.audit`), ``key``
(:mod:`.keys`), ``db`` and ``backup`` (:mod:`.db`), ``moderator password``
(:mod:`.moderators`); the options of all of them in :mod:`.parser`."""
