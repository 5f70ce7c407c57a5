"""How the referee words each rules system's events, prompts and status lines."""
