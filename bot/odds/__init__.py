"""``!odds``: the advisor's simulation, the worker process it runs in, and the desk
that admits requests and sends answers later."""
