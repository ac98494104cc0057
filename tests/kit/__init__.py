"""The test kit: helpers and fixtures more than one test file needs (issue 22).

`tests/conftest.py` makes the fixtures available; the helpers are imported from here.
"""

from kit.waits import within

__all__ = ["within"]
