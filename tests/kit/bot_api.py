"""A real `telegram.Bot` over the fake Bot API (`habicht.fakes.telegram`), by either adapter:
the fake Telegram's own tests (tests/fakes/test_telegram*.py). tests/fakes/conftest.py makes
its fixtures available there."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack

import pytest
import telegram
from telegram.request import HTTPXRequest

from habicht.fakes.telegram import DEFAULT_TOKEN, FakeBotAPI

CHAT = 4242


def bot_over(
    fake: FakeBotAPI, adapter: str, stack: ExitStack, *, token: str, read: float
) -> telegram.Bot:
    """A `telegram.Bot` with `token` talking to `fake` over `adapter` ("transport" or
    "loopback"), reading answers for at most `read` seconds; the server closes with `stack`."""
    if adapter == "loopback":
        server = stack.enter_context(fake.serve())
        return telegram.Bot(
            token,
            base_url=server.base_url,
            request=HTTPXRequest(read_timeout=read),
            get_updates_request=HTTPXRequest(),
        )
    return telegram.Bot(
        token,
        request=HTTPXRequest(read_timeout=read, httpx_kwargs={"transport": fake.transport()}),
        get_updates_request=HTTPXRequest(httpx_kwargs={"transport": fake.transport()}),
    )


@pytest.fixture(params=["transport", "loopback"])
def adapter(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def fake() -> Iterator[FakeBotAPI]:
    with FakeBotAPI() as api:
        yield api


@pytest.fixture
async def bot(fake: FakeBotAPI, adapter: str) -> AsyncIterator[telegram.Bot]:
    with ExitStack() as stack:
        async with bot_over(fake, adapter, stack, token=DEFAULT_TOKEN, read=2.0) as real_bot:
            yield real_bot
