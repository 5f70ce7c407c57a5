"""Pure rules engines: no I/O, no clock, no randomness, no chat prose.

Each system exposes ``apply(state, command) -> (new_state, events)`` (the contract is
``rules.system``, the shared values ``rules.common``); rolls are
commands carrying their number, and every state says who must act or roll next.
"""
