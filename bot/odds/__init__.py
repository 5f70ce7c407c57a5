"""``!odds``: the advisor's exact chain, the worker process it is solved in, and the pending
requests: who may ask now, and the answers sent later."""
