"""End-to-end tests: the real `habicht run` process against the fakes on 127.0.0.1."""
