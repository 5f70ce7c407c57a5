"""Pure rules engines: no I/O, no clock, no randomness, no chat prose.

Each system exposes ``apply(state, command) -> (new_state, events)``; rolls are
commands carrying their number, and every state says who must act or roll next. The
contract every system keeps is ``rules.system`` (``RuleSystem``, with the protocols of
``rules.contract``), each system's record in its package (``rules/<system>/system.py``;
the bot's registry names them); what they share, ``rules.common``; what their events
do to the warriors, ``rules.effects``; a fight rebuilt from its commands,
``rules.replay``.
"""
