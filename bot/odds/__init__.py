"""``!odds``: the advisor's exact chain, the worker process it is solved in, and the desk
that admits requests and sends answers later."""
