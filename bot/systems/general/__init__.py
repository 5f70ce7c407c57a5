"""The General rules (R10) as the bot plays them: ``plugin`` (the engine, verbs and
fighters), ``wording`` (its events in chat) and ``commands`` (``!travel``)."""
