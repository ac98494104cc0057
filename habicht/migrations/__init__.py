"""Numbered, forward-only SQL migrations (`NNN_name.sql`), applied by `habicht.db`."""
