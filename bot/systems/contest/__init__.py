"""Simple Contest (R9) as the bot plays it: ``plugin`` (the engine, verbs and fighters)
and ``wording`` (its events in chat)."""
