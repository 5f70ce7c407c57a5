"""Persistence layer for ancath-bot (SQLAlchemy; SQLite by default)."""
