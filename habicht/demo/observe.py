"""What crossed the two wires during the demo: every send attempt to the fake Telegram and
every fetch from the simulated willhaben, with its answer.

Recorded at the fakes' edges — the pipeline is not instrumented — and in the event loop's
own thread (both fakes answer in-process, without threads), so the records are in the
order things happened.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from habicht.clock import Clock
from habicht.demo.feed import feed_name
from habicht.fakes.telegram import FakeBotAPI
from habicht.fakes.willhaben_site import FakeWillhabenSite

__all__ = ["Attempt", "Fetch", "Recorder", "TappedBotAPI", "search_key"]

_PAGING = frozenset({"sort", "rows", "page"})


def search_key(url: httpx.URL) -> tuple[str, frozenset[tuple[str, str]]]:
    """What a fetch asks for, however habicht pages and orders it: the path and the
    parameters but `sort`, `rows` and `page`."""
    params = frozenset(pair for pair in url.params.multi_items() if pair[0] not in _PAGING)
    return url.path.rstrip("/"), params


@dataclass(frozen=True)
class Attempt:
    """One sendMessage or sendPhoto: to whom, what (a photo's caption), and Telegram's
    answer (`error` None when it worked)."""

    at: float
    chat_id: int
    text: str
    status: int
    error: str | None
    photo: bool = False


@dataclass(frozen=True)
class Fetch:
    """One request to willhaben for the search named `search` (a feed: "feed: …"), and its
    status."""

    at: float
    search: str
    status: int


class Recorder:
    """Collects attempts and fetches until `take()` hands them over; `searches` names the
    searches without words by their `search_key` (a search with words is named by them)."""

    def __init__(
        self, clock: Clock, searches: Mapping[tuple[str, frozenset[tuple[str, str]]], str]
    ) -> None:
        self.clock = clock
        self.searches = searches
        self.attempts: list[Attempt] = []
        self.fetches: list[Fetch] = []
        self.rate_limited = 0
        """429 answers seen in the whole run."""
        self.flat_pages = 0
        """Real-estate pages willhaben served in the whole run: each with a paid placement."""

    def attempt(
        self,
        chat_id: int,
        text: str,
        status: int,
        payload: Mapping[str, Any],
        *,
        photo: bool = False,
    ) -> None:
        error = None if payload.get("ok") else f"{status} {payload.get('description', '')}"
        self.rate_limited += status == 429
        self.attempts.append(Attempt(self.clock(), chat_id, text, status, error, photo))

    def willhaben(self, site: FakeWillhabenSite) -> httpx.MockTransport:
        """A transport serving `site` that records each request it answers."""

        def handle(request: httpx.Request) -> httpx.Response:
            response = site.handle(request)
            ok = response.status_code == 200
            self.flat_pages += ok and request.url.path.startswith("/iad/immobilien/")
            self.fetches.append(Fetch(self.clock(), self._named(request.url), response.status_code))
            return response

        return httpx.MockTransport(handle)

    def _named(self, url: httpx.URL) -> str:
        """A search's words, or its name; a feed's name; else the path."""
        feed = feed_name(str(url))
        if feed is not None:
            return f"feed: {feed}"
        return url.params.get("keyword") or self.searches.get(search_key(url), url.path)

    def take(self) -> tuple[list[Attempt], list[Fetch]]:
        taken = self.attempts, self.fetches
        self.attempts, self.fetches = [], []
        return taken


class TappedBotAPI(FakeBotAPI):
    """The fake Bot API, telling `recorder` about every sendMessage and sendPhoto and its
    answer.

    Served by `transport()` without the worker threads of `FakeBotAPI.transport`: the demo
    neither long-polls nor delays answers, so nothing blocks, and the records keep their order.
    """

    def __init__(self, recorder: Recorder) -> None:
        super().__init__(clock=recorder.clock)
        self.recorder = recorder

    def respond(
        self, token: str, method: str, params: Mapping[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        status, payload = super().respond(token, method, params)
        name = method.lower()
        if name in ("sendmessage", "sendphoto"):
            text = str(params.get("text", params.get("caption", "")))
            photo = name == "sendphoto"
            self.recorder.attempt(int(params["chat_id"]), text, status, payload, photo=photo)
        return status, payload

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)
