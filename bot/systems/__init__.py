"""One plugin per rules system: its rules, verbs and wording in one record
(:mod:`bot.systems.plugin`), one module each, all in ``registry.PLUGINS``."""
