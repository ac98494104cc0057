"""What crossed the two wires during the demo: every send or edit attempt to the fake Telegram
and every fetch from the simulated willhaben (a search, a feed, an advert's own page), with
its answer.

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
from habicht.fakes import FakeAdvert
from habicht.fakes.telegram import FakeBotAPI
from habicht.fakes.willhaben_site import FakeWillhabenSite

__all__ = ["Attempt", "Fetch", "Recorder", "TappedBotAPI", "search_key"]

_PAGING = frozenset({"sort", "rows", "page"})
_SENDS = {"sendmessage": "text", "sendphoto": "caption"}
_EDITS = {"editmessagetext": "text", "editmessagecaption": "caption"}
"""The Bot API methods recorded, by their lower-cased names, and the parameter holding what
the chat reads (editMessageReplyMarkup changes no text, and habicht does not use it)."""


def search_key(url: httpx.URL) -> tuple[str, frozenset[tuple[str, str]]]:
    """What a fetch asks for, however habicht pages and orders it: the path and the
    parameters but `sort`, `rows` and `page`."""
    params = frozenset(pair for pair in url.params.multi_items() if pair[0] not in _PAGING)
    return url.path.rstrip("/"), params


@dataclass(frozen=True)
class Attempt:
    """One sendMessage or sendPhoto — or, with `edits`, an editMessageText or
    editMessageCaption of the chat's message `edits`: to whom, what (a photo's caption), and
    Telegram's answer (`error` None when it worked)."""

    at: float
    chat_id: int
    text: str
    status: int
    error: str | None
    photo: bool = False
    edits: int | None = None


@dataclass(frozen=True)
class Fetch:
    """One request to willhaben for the search named `search` (a feed: "feed: …"; an
    advert's own page, a page check: "page: " and its title), and its status."""

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
        """Real-estate search pages willhaben served in the whole run: each with a paid
        placement (an advert's own page has none)."""

    def attempt(
        self,
        chat_id: int,
        text: str,
        status: int,
        payload: Mapping[str, Any],
        *,
        photo: bool = False,
        edits: int | None = None,
    ) -> None:
        error = None if payload.get("ok") else f"{status} {payload.get('description', '')}"
        self.rate_limited += status == 429
        self.attempts.append(Attempt(self.clock(), chat_id, text, status, error, photo, edits))

    def willhaben(
        self, site: FakeWillhabenSite, *, adverts: Mapping[str, FakeAdvert]
    ) -> httpx.MockTransport:
        """A transport serving `site` that records each request it answers; `adverts` (by id,
        as the story knows them: it may grow) name the advert pages a page check fetches."""

        def handle(request: httpx.Request) -> httpx.Response:
            response = site.handle(request)
            advert = _advert_at(request.url, adverts)
            ok = response.status_code == 200 and advert is None
            self.flat_pages += ok and request.url.path.startswith("/iad/immobilien/")
            name = self._named(request.url) if advert is None else f"page: {advert.title}"
            self.fetches.append(Fetch(self.clock(), name, response.status_code))
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


def _advert_at(url: httpx.URL, adverts: Mapping[str, FakeAdvert]) -> FakeAdvert | None:
    """The advert whose own page `url` is (its id ends the path, as on willhaben), if any."""
    path = url.path.rstrip("/")
    advert = adverts.get(path.rpartition("-")[2])
    if advert is None or httpx.URL(advert.url).path.rstrip("/") != path:
        return None
    return advert


class TappedBotAPI(FakeBotAPI):
    """The fake Bot API, telling `recorder` about every sendMessage and sendPhoto, every
    editMessageText and editMessageCaption, and its answer.

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
        field = _SENDS.get(name) or _EDITS.get(name)
        if field is not None:
            self.recorder.attempt(
                int(params["chat_id"]),
                str(params.get(field, "")),
                status,
                payload,
                photo=field == "caption",
                edits=int(params["message_id"]) if name in _EDITS else None,
            )
        return status, payload

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)
