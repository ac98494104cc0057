"""The test kit: helpers and fixtures more than one test file needs (issue 22).

`tests/conftest.py` makes the fixtures of `kit.fixtures` available to every test, and
`tests/queue/conftest.py` those of `kit.delivery` to the queue's tests; the helpers are
imported from here.
"""

from kit.clients import willhaben_client
from kit.listings import sofa
from kit.waits import answered, within

__all__ = ["answered", "sofa", "willhaben_client", "within"]
