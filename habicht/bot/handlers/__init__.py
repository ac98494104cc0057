"""Everything that answers an update: commands, button presses, shared locations, and the
look at each message before them (`presence`).

Only `habicht.bot.app` imports these modules (it registers them in one block); they take
the services from the context at run time and import the services and the shared helpers
beside them, never each other.
"""
