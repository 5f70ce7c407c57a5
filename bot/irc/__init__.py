"""The IRC transport: a sans-I/O session (``session``), the asyncio supervisor that
runs it, the paced outbox, accounts, casemapping and line splitting."""
