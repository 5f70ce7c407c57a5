"""An Cath as the bot plays it: ``plugin`` (the record the registry holds: the engine,
fight verbs and wording), ``wording`` (its events in chat), ``fighters`` (how
``!create`` makes its warriors) and ``commands`` (``!buy`` and its ``!mod`` rulings,
outside a fight)."""
