"""habicht: watches willhaben.at searches for Telegram subscribers and never loses an alert."""

__version__ = "0.1.0"
