"""Shared pytest configuration for the ancath-bot test suite."""
