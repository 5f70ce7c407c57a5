"""One plugin per rules system: its rules, verbs, wording and fighters in one record
(:mod:`bot.systems.plugin`, its fighters' part in :mod:`bot.systems.fighters`), one
module each, all in ``registry.PLUGINS``."""
