"""IRC casemapping moved down to bot/casemap.py, below every room that folds names."""

from bot.casemap import fold  # old name, kept until PLAY moves (bot/club_settings.py)

__all__ = ["fold"]
