"""One plugin per rules system: its rules, verbs and wording in one record."""
