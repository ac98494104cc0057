"""A fake willhaben site: search pages in the real structure, a catalogue that changes between
cycles, and injected faults.

Like the fake Bot API it is one request → response function, `FakeWillhabenSite.handle`,
served either as an httpx transport (in-process tests, `habicht demo`) or on a loopback port
(`serve()`, for a real `habicht run` pointed at it through `HABICHT_WILLHABEN_URL`).

Adverts live in one catalogue keyed by id, so a price drop shows in every search that lists
the advert. A search is registered by URL (host ignored); a request matches it when the paths
are equal and the request's query holds every registered parameter — habicht adds `sort=1`,
`rows` and `page` and reorders parameters, and the match must not care.

Paging is the real site's: `rows` adverts a page (30 without it, at most 200 whatever is
asked), `page=` from 1, and `rowsFound` the whole search. Bumping moves an advert to the top
and marks it bumped; a reserved advert stays where it is, shown as reserved.

Beside the registered searches there is the *world*: adverts `publish`ed to it are listed by
every search URL that is not registered, selected and ordered as willhaben's own search would
(`willhaben_world`: category tree, keywords over the whole description, price, seller, other
parameters) — so a category's feed and the searches it serves agree as they do on willhaben.

Real-estate searches (`/iad/immobilien/…`) are answered from the world's flats
(`FakeAdvert.estate`, built with `habicht.fakes.willhaben_flats`) as `EstateQuery` filters
them, and every such page — whatever its filters — starts with a paid placement
(`placements`, `REFERER` "pp"), the category's next one at each read, counted in `rowsFound`;
a building project shows only the units that fit the search (REALESTATE.md, traps 1 and 2).

`root_lists` makes the world's marketplace root (without a keyword: what habicht's shared
feed reads) list only the adverts it accepts — a willhaben whose root page is not the whole
marketplace, which no saved page rules out.

Each advert of the catalogue also has its own page, at the path its `SEO_URL` gives
(`FakeAdvert.url`), as it is now: active or reserved, at its current price — also after
`withdraw` or `remove`, which only take it out of searches. `take_down` takes it off the site:
out of every search, and its page answers 404 (or 410) from then on. `advert_pages` counts the
requests for each advert's page.

Faults come two ways: `fail_next` scripts the next answers (per search, per advert page, or
for any), and `intercept` puts a hook in front of every request — one fault for all of them
until lifted (`intercept(SiteFault.server_error())`), or a function of the request that may
answer, raise an httpx error, or let the page through. `log` keeps every request received, in order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from urllib.parse import parse_qsl, urlsplit

import httpx

from habicht.digits import whole_number
from habicht.fakes.willhaben_flats import PLACEMENTS
from habicht.fakes.willhaben_pages import (
    FakeAdvert,
    render_advert_page,
    render_block_page,
    render_search_page,
)
from habicht.fakes.willhaben_world import EstateQuery, lister, newest_first
from habicht.fakes.wire import FaultScript, LoopbackServer, Observable

__all__ = ["MARKETPLACE", "FakeWillhabenSite", "Hook", "SiteFault"]

_HTML = {"content-type": "text/html; charset=utf-8"}
DEFAULT_ROWS = 30
"""Adverts a page holds when the request names no `rows`."""
MAX_ROWS = 200
"""The most adverts a page holds, whatever `rows` asks for."""
_GONE_PAGE = (
    '<!DOCTYPE html><html lang="de"><head><meta charset="utf-8">'
    "<title>Seite nicht gefunden - willhaben</title></head><body>"
    "<h1>Diese Anzeige ist leider nicht mehr verfügbar.</h1></body></html>"
)
"""The answer of an advert page that is not there (taken down, or `SiteFault.not_found`)."""
_MISSING = (404, 410)
MARKETPLACE = "/iad/kaufen-und-verkaufen/marktplatz"
"""The marketplace's search path. Registered as it is, without parameters, it answers every
marketplace search (any keyword, any filter) with the same adverts: a site for tests about
something other than which search lists what."""


@dataclass(frozen=True)
class SiteFault:
    """The answer to the next matching request instead of the search page.

    `outage` drops the connection instead of answering (`httpx.ConnectError` in-process).
    `layout_change` serves the real listings with the data block renamed, as a redesign would.
    """

    status: int = 200
    body: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    outage: bool = False
    layout_change: bool = False

    @classmethod
    def forbidden(cls) -> SiteFault:
        return cls(403, render_block_page())

    @classmethod
    def rate_limited(cls, retry_after: int) -> SiteFault:
        return cls(429, "Too Many Requests", {"Retry-After": str(retry_after)})

    @classmethod
    def block_page(cls) -> SiteFault:
        """The block page with status 200: only its content says "blocked"."""
        return cls(200, render_block_page())

    @classmethod
    def server_error(cls, status: int = 500) -> SiteFault:
        return cls(status, "<html><body><h1>Es ist ein Fehler aufgetreten</h1></body></html>")

    @classmethod
    def not_found(cls, status: int = 404) -> SiteFault:
        """A 404 (or 410) with willhaben's error page: on an advert's page, as if it were gone;
        script it with `fail_next(…, url=advert.url)` for one passing answer."""
        return cls(status, _GONE_PAGE)

    @classmethod
    def redirect(cls, location: str, status: int = 302) -> SiteFault:
        return cls(status, headers={"Location": location})

    @classmethod
    def changed_layout(cls) -> SiteFault:
        return cls(layout_change=True)

    @classmethod
    def down(cls) -> SiteFault:
        return cls(outage=True)


Hook = Callable[[httpx.Request], httpx.Response | SiteFault | None]
"""Sees each request before the site answers it (see `FakeWillhabenSite.intercept`)."""


def _key(url: str) -> tuple[str, frozenset[tuple[str, str]]]:
    parts = urlsplit(url)
    return parts.path.rstrip("/") or "/", frozenset(parse_qsl(parts.query, keep_blank_values=True))


def _paging(url: httpx.URL) -> tuple[int, int]:
    """`rows` (default 30, capped at 200) and `page` (from 1) as the real site reads them."""
    rows = _number(url.params.get("rows"), DEFAULT_ROWS)
    return min(rows, MAX_ROWS), _number(url.params.get("page"), 1)


def _is_root(url: httpx.URL) -> bool:
    """Whether `url` is the marketplace root without a keyword (a shared feed's request)."""
    return url.path.rstrip("/") == MARKETPLACE and "keyword" not in url.params


def _number(text: str | None, default: int) -> int:
    """A positive query number as willhaben reads it; `default` for anything else."""
    number = None if text is None else whole_number(text)
    return number or default


class FakeWillhabenSite(Observable):
    """Search pages for registered searches; thread-safe; see the module docstring."""

    def __init__(self, *, world: bool = False) -> None:
        """`world`: answer every unregistered search from the world (as `publish` also turns
        on), even before anything is published; otherwise such a search is not found."""
        super().__init__()
        self._answers_world = world
        self._catalogue: dict[str, FakeAdvert] = {}
        self._searches: dict[str, list[str]] = {}  # registered url -> advert ids, newest first
        self._world: dict[str, None] = {}  # the ids published to the world, in any order
        self._taken_down: dict[str, int] = {}  # advert id -> what its page answers (404/410)
        self._faults: FaultScript[str | None, SiteFault] = FaultScript()
        self._hook: Hook | SiteFault | None = None
        self.root_lists: Callable[[FakeAdvert], bool] | None = None
        """Which adverts the world's marketplace root lists without a keyword (None: all)."""
        self.placements: Sequence[FakeAdvert] = PLACEMENTS
        """The paid placements the world shows on top of real-estate pages, in turn: each
        read of a category's page shows the next one of that category (none: no placement)."""
        self.all_of = False
        """Whether several `FREE_AREA/FREE_AREA_TYPE` or `ESTATE_PREFERENCE` values mean "has
        all of them" in the world (by default "has any of them"; `EstateQuery`)."""
        self._placement_reads: Counter[int] = Counter()
        self.log: list[httpx.Request] = []
        """Every request received, in order, matched, faulted or not."""
        self.requests: Counter[str] = Counter()
        """Requests per path, matched or not."""
        self.hits: Counter[str] = Counter()
        """Requests per registered search URL (a world search: the request's URL without
        `rows` and `page`), faulted ones included."""
        self.advert_pages: Counter[str] = Counter()
        """Requests for each advert's own page, by advert id (faulted and taken-down ones
        included); `advert_pages.total()` is how many page checks the client made."""

    # ----------------------------------------------------------------- the catalogue

    def set_listings(self, url: str, adverts: Sequence[FakeAdvert]) -> None:
        """Register the search `url` (or replace its results) with `adverts`, in page order."""
        with self._cond:
            for advert in adverts:
                self._catalogue[advert.id] = advert
            self._searches[url] = [advert.id for advert in adverts]
            self._cond.notify_all()

    def add(self, url: str, *adverts: FakeAdvert) -> None:
        """New adverts appear on top of the search `url` (newest first)."""
        with self._cond:
            for advert in adverts:
                self._catalogue[advert.id] = advert
            self._searches[url][:0] = [advert.id for advert in reversed(adverts)]
            self._cond.notify_all()

    def publish(self, *adverts: FakeAdvert) -> None:
        """Adverts appear in the world: every unregistered search that lists them shows them."""
        with self._cond:
            for advert in adverts:
                self._catalogue[advert.id] = advert
                self._world[advert.id] = None
            self._answers_world = True
            self._cond.notify_all()

    def withdraw(self, ad_id: str) -> None:
        """The advert leaves the world (sold, deleted)."""
        with self._cond:
            self._world.pop(ad_id, None)
            self._cond.notify_all()

    def take_down(self, ad_id: str, *, status: int = 404) -> None:
        """The advert is taken off willhaben (sold and deleted, expired): it leaves every
        search and the world, and its own page answers `status` (404 or 410) from now on."""
        if status not in _MISSING:
            raise ValueError(f"a taken-down advert's page answers 404 or 410, not {status}")
        with self._cond:
            if ad_id not in self._catalogue:
                raise KeyError(f"no advert {ad_id!r} on the fake willhaben to take down")
            for ids in self._searches.values():
                if ad_id in ids:
                    ids.remove(ad_id)
            self._world.pop(ad_id, None)
            self._taken_down[ad_id] = status
            self._cond.notify_all()

    def set_price(self, ad_id: str, price: Decimal | None) -> FakeAdvert:
        """Change an advert's price everywhere it is listed; the changed advert."""
        with self._cond:
            changed = replace(self._catalogue[ad_id], price=price)
            self._catalogue[ad_id] = changed
            self._cond.notify_all()
            return changed

    def bump(self, url: str | None, ad_id: str, *, published_ms: int | None = None) -> FakeAdvert:
        """The seller bumps the advert: it moves to the top of the search `url` (in the world,
        `url` None, its new date moves it), marked bumped, and `PUBLISHED` becomes
        `published_ms` (the bump time) when given; the changed advert."""
        with self._cond:
            advert = self._catalogue[ad_id]
            published = advert.published_ms if published_ms is None else published_ms
            changed = replace(advert, bumped=True, published_ms=published)
            self._catalogue[ad_id] = changed
            if url is not None:
                self._searches[url].remove(ad_id)
                self._searches[url].insert(0, ad_id)
            self._cond.notify_all()
            return changed

    def set_reserved(self, ad_id: str, reserved: bool) -> FakeAdvert:
        """The seller marks the advert reserved (or active again); the changed advert."""
        with self._cond:
            changed = replace(self._catalogue[ad_id], reserved=reserved)
            self._catalogue[ad_id] = changed
            self._cond.notify_all()
            return changed

    def remove(self, url: str, ad_id: str) -> None:
        """The advert disappears from the search `url` (sold, or fell off the page)."""
        with self._cond:
            self._searches[url].remove(ad_id)
            self._cond.notify_all()

    def listings(self, url: str) -> list[FakeAdvert]:
        with self._cond:
            return [self._catalogue[ad_id] for ad_id in self._searches[url]]

    def fail_next(self, *faults: SiteFault, url: str | None = None) -> None:
        """Answer the next requests with `faults`, in order: for the search `url`, the advert
        page `url` (its `FakeAdvert.url`), or any search or advert page."""
        self._faults.push(url, *faults)

    def intercept(self, hook: Hook | SiteFault | None) -> None:
        """Answer every request through `hook` from now on, before any scripted fault or page.

        A `SiteFault` is the answer to every request, a search's or not (the site is down,
        blocked, broken) until `intercept(None)`. A function is called with each request,
        outside the site's lock (so it may block or change the site): it returns an
        `httpx.Response` or a `SiteFault` to answer with, or None to let the site answer as
        usual; an httpx error it raises reaches the client in-process and drops the
        connection over loopback.
        """
        with self._cond:
            self._hook = hook

    def faults_pending(self, url: str | None = None) -> int:
        """Scripted faults not yet served, for the search `url` (or the ones for any)."""
        return self._faults.pending(url)

    # ----------------------------------------------------------------- serving

    def transport(self) -> httpx.MockTransport:
        """An httpx transport answering from this site (it never blocks, so no threads)."""
        return httpx.MockTransport(self.handle)

    def serve(self) -> LoopbackServer:
        """A loopback server for this site; use as a context manager and read `base_url`."""
        return LoopbackServer(self.handle)

    def _match(self, url: httpx.URL) -> str | None:
        path, query = _key(str(url))
        best: tuple[int, str] | None = None
        for registered in self._searches:
            want_path, want_query = _key(registered)
            if (
                want_path == path
                and want_query <= query
                and (best is None or len(want_query) > best[0])
            ):
                best = (len(want_query), registered)
        return best[1] if best else None

    def _advert_at(self, path: str) -> FakeAdvert | None:
        """The catalogue's advert whose own page is at `path`, if any (holding the lock).

        Its id ends the page's last segment (`…/rtx-3070-1001/`), so one look-up finds it; a
        search path that ends in a number (`…/grafikkarten-5882`) is told apart by the rest.
        """
        path = path.rstrip("/")
        advert = self._catalogue.get(path.rpartition("-")[2])
        return advert if advert is not None and _key(advert.url)[0] == path else None

    def _estate_page(self, url: httpx.URL, adverts: list[FakeAdvert]) -> list[FakeAdvert]:
        """A real-estate search's adverts as its pages show them: building projects with
        only the units that fit (`children`), and the category's next paid placement on top,
        whatever the filters, counted in `rowsFound` (REALESTATE.md, trap 1)."""
        query = EstateQuery(url, all_of=self.all_of)
        shown = [
            advert
            if advert.estate is None or not advert.estate.project
            else replace(advert, estate=replace(advert.estate, units=query.units(advert)))
            for advert in adverts
        ]
        pool = [
            placement
            for placement in self.placements
            if placement.estate is not None and placement.estate.category == query.category
        ]
        if pool and query.category is not None:
            turn = self._placement_reads[query.category]
            self._placement_reads[query.category] += 1
            shown.insert(0, pool[turn % len(pool)])
        return shown

    def handle(self, request: httpx.Request) -> httpx.Response:
        """Answer one GET: the hook's answer, a scripted fault, an advert's page, the search's
        page, or 404."""
        with self._cond:
            self.log.append(request)
            self.requests[request.url.path] += 1
            hook = self._hook
            self._cond.notify_all()
        answer = hook if isinstance(hook, SiteFault) or hook is None else hook(request)
        if isinstance(answer, httpx.Response):
            return answer
        with self._cond:
            advert = self._advert_at(request.url.path)
            if advert is not None:
                self.advert_pages[advert.id] += 1
                gone = self._taken_down.get(advert.id)
                self._cond.notify_all()
        if advert is not None:
            return self._advert_answer(request, advert, answer, gone)
        with self._cond:
            search = self._match(request.url)
            if search is not None:
                adverts = [self._catalogue[ad_id] for ad_id in self._searches[search]]
            elif self._answers_world and request.url.path.startswith("/iad/"):
                search = str(request.url.copy_remove_param("rows").copy_remove_param("page"))
                world = (self._catalogue[ad_id] for ad_id in self._world)
                adverts = newest_first(filter(lister(request.url, all_of=self.all_of), world))
                if EstateQuery.covers(request.url):
                    adverts = self._estate_page(request.url, adverts)
                if self.root_lists is not None and _is_root(request.url):
                    adverts = [advert for advert in adverts if self.root_lists(advert)]
            if search is not None:
                self.hits[search] += 1
                self._cond.notify_all()
        fault = answer
        if fault is None and search is not None:
            fault = self._faults.pop(search) or self._faults.pop(None)
        faulted = _faulted(request, fault)
        if faulted is not None:
            return faulted
        if search is None:
            return httpx.Response(404, text="<html><body>Seite nicht gefunden</body></html>")
        rows, number = _paging(request.url)
        start = (number - 1) * rows
        page = render_search_page(
            adverts[start : start + rows],
            rows_found=len(adverts),
            rows_requested=rows,
            page=number,
        )
        return _served(page, fault)

    def _advert_answer(
        self, request: httpx.Request, advert: FakeAdvert, hooked: SiteFault | None, gone: int | None
    ) -> httpx.Response:
        """The advert's own page, unless the hook or a scripted fault answers instead, or the
        advert was taken down (`gone`: the status its page answers)."""
        fault = hooked
        if fault is None:
            fault = self._faults.pop(advert.url) or self._faults.pop(None)
        faulted = _faulted(request, fault)
        if faulted is not None:
            return faulted
        if gone is not None:
            return httpx.Response(gone, text=_GONE_PAGE, headers=_HTML)
        return _served(render_advert_page(advert), fault)


def _faulted(request: httpx.Request, fault: SiteFault | None) -> httpx.Response | None:
    """The answer `fault` gives instead of the page (an outage raises); None when there is no
    fault or it only changes the page's layout."""
    if fault is not None and fault.outage:
        raise httpx.ConnectError("the fake willhaben is down", request=request)
    if fault is not None and not fault.layout_change:
        return httpx.Response(fault.status, text=fault.body, headers={**_HTML, **fault.headers})
    return None


def _served(page: str, fault: SiteFault | None) -> httpx.Response:
    """`page`, with its data block renamed when `fault` (a layout change) says so."""
    if fault is not None:
        page = page.replace('id="__NEXT_DATA__"', 'id="__APP_STATE__"')
    return httpx.Response(200, text=page, headers=_HTML)
