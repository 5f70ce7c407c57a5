"""One folder per rules system (``ancath/``, ``contest/``, ``general/``): its plugin
(:mod:`bot.systems.plugin`'s record, its fighters' part in :mod:`bot.systems.fighters`),
its wording and its commands outside a fight; the one registry,
:data:`bot.systems.registry.SYSTEMS`, lists the plugins."""
