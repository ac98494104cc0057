"""Reading an advert's own page: the real fixture, variants of it, and pages that are no advert."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from conftest import FIXTURES
from kit.outsized import MIB, traced

from habicht.fakes import FakeAdvert, render_block_page, render_search_page
from habicht.willhaben.advert import AdvertPage, parse_advert_page
from habicht.willhaben.errors import Blocked, LayoutError
from habicht.willhaben.parse import next_data_span

REAL_ADVERT = (FIXTURES / "advert-immobilien-haus-kaufen-wien-1140.html").read_bytes()
TITLE = "Gepflegte Immobilie mit überzeugender Rendite in bewährter Lage"


def changed(change: Callable[[dict[str, Any]], object]) -> bytes:
    """The real advert page with `change` applied to its `__NEXT_DATA__` (in place)."""
    span = next_data_span(REAL_ADVERT)
    assert span is not None
    data = json.loads(REAL_ADVERT[span[0] : span[1]])
    change(data)
    script = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c").encode()
    return REAL_ADVERT[: span[0]] + script + REAL_ADVERT[span[1] :]


def details(data: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = data["props"]["pageProps"]["advertDetails"]
    return found


def set_attribute(name: str, values: list[Any] | None) -> Callable[[dict[str, Any]], None]:
    """A change that gives attribute `name` these `values`, or removes it (None)."""

    def change(data: dict[str, Any]) -> None:
        attributes = details(data)["attributes"]["attribute"]
        kept = [entry for entry in attributes if entry["name"] != name]
        attributes[:] = kept + ([] if values is None else [{"name": name, "values": values}])

    return change


def test_the_real_advert_page_parses() -> None:
    """The saved page of advert 969757460: active, € 2.350.000, its title."""
    assert parse_advert_page(REAL_ADVERT) == AdvertPage(
        ad_id="969757460",
        status="active",
        price=Decimal(2350000),
        price_display="€ 2.350.000",
        title=TITLE,
    )


def test_a_reserved_advert_is_reserved_and_keeps_its_plain_title() -> None:
    """`advertStatus` "reserved" is reserved; the "(reserviert) " before the title, as search
    pages write it, is not part of the title."""

    def reserve(data: dict[str, Any]) -> None:
        advert = details(data)
        advert["advertStatus"] = {"id": "reserved", "description": "reserviert", "statusId": 55}
        advert["description"] = f"(reserviert) {TITLE}"

    page = parse_advert_page(changed(reserve))
    assert (page.status, page.title, page.price) == ("reserved", TITLE, Decimal(2350000))


@pytest.mark.parametrize("status", ["sold", "expired", "deleted", "ACTIVE", ""])
def test_any_other_status_is_other(status: str) -> None:
    """A status but "active" and "reserved" (sold, expired, one willhaben adds) is "other"."""

    def mark(data: dict[str, Any]) -> None:
        details(data)["advertStatus"] = {"id": status, "description": status, "statusId": 0}

    assert parse_advert_page(changed(mark)).status == "other"


@pytest.mark.parametrize(
    ("change", "price", "shown"),
    [
        (set_attribute("PRICE", None), None, "€ 2.350.000"),
        (set_attribute("PRICE", ["auf Anfrage"]), None, "€ 2.350.000"),
        (set_attribute("PRICE", ["1E+999999"]), None, "€ 2.350.000"),
        (set_attribute("PRICE", ["676.22"]), Decimal("676.22"), "€ 2.350.000"),
        (set_attribute("PRICE_FOR_DISPLAY", None), Decimal(2350000), None),
    ],
    ids=["no-price", "words", "exponent", "cents", "no-display"],
)
def test_the_price_is_read_as_search_pages_read_it(
    change: Callable[[dict[str, Any]], None], price: Decimal | None, shown: str | None
) -> None:
    """A missing or non-numeric `PRICE` is no price (None), never a guess; the shown price
    is `PRICE_FOR_DISPLAY` as it is."""
    page = parse_advert_page(changed(change))
    assert (page.price, page.price_display) == (price, shown)


def test_an_advert_without_a_title_has_none() -> None:
    """An empty `description` is no title."""
    page = parse_advert_page(changed(lambda data: details(data).update(description="  ")))
    assert page.title is None


def test_a_title_of_another_shape_is_none_and_never_built() -> None:
    """A `description` that is no text — here 100,000 lists — is no title, and is not decoded
    at all (issue 35: it was built, list by list, before)."""
    body = changed(lambda data: details(data).update(description=[[]] * 100_000))
    with traced() as memory:
        page = parse_advert_page(body)
    assert (page.ad_id, page.title) == ("969757460", None)
    assert memory.peak < MIB // 4


@pytest.mark.parametrize(
    ("page", "error"),
    [
        (b"<html><body><h1>Hello</h1></body></html>", "no __NEXT_DATA__ script"),
        (
            render_search_page([FakeAdvert("1", "RTX 3070", Decimal(400))]).encode(),
            "missing required field `advertDetails`",
        ),
        (
            changed(lambda data: data["props"]["pageProps"].pop("advertDetails")),
            "missing required field `advertDetails`",
        ),
        (
            changed(lambda data: data["props"]["pageProps"].update(advertDetails=None)),
            r"Expected `object`, got `null` - at `\$.props.pageProps.advertDetails`",
        ),
        (
            changed(lambda data: details(data).pop("advertStatus")),
            "missing required field `advertStatus`",
        ),
        (
            changed(lambda data: details(data).update(advertStatus={"description": "aktiv"})),
            "missing required field `id` - at `\\$.props.pageProps.advertDetails.advertStatus`",
        ),
        (changed(lambda data: details(data).pop("id")), "missing required field `id`"),
        (changed(lambda data: details(data).update(id="")), "advertDetails has an empty id"),
        (changed(lambda data: details(data).update(id="9" * 41)), "longer than 40 characters"),
    ],
    ids=[
        "not-willhaben",
        "search-page",
        "no-advert-details",
        "null-advert-details",
        "no-status",
        "status-without-id",
        "no-id",
        "empty-id",
        "long-id",
    ],
)
def test_a_page_that_is_no_advert_page_is_a_layout_error(page: bytes, error: str) -> None:
    """An error page, a search page or an advert without id or status is a LayoutError
    saying what is missing: no status is guessed from it."""
    with pytest.raises(LayoutError, match=error):
        parse_advert_page(page)


def test_the_block_page_is_a_block() -> None:
    """The block page (status 200) is `Blocked`, as for a search, so the client backs off."""
    with pytest.raises(Blocked, match="block page"):
        parse_advert_page(render_block_page().encode())
