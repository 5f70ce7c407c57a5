"""Text safe to send on IRC moved down to bot/safe_text.py, below every room that words lines."""

from bot.safe_text import DEFAULT_BUDGET  # old name, kept until PLAY moves (bot/fights/play.py)

__all__ = ["DEFAULT_BUDGET"]
