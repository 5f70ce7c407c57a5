"""What every rules system's wording shares: ``common`` (names, options, BP and awards)
and ``fit`` (a line cut to fit); each system's own is ``bot/systems/<name>/wording.py``."""
