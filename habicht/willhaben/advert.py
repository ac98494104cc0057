"""One advert's own page → what it says of the advert now: active, reserved, or something else.

habicht reads an alerted advert's page (`Listing.url`, `https://www.willhaben.at/iad/…`) when
no search has shown the advert for a while, to learn whether it is still there. The data sits
in the page's `__NEXT_DATA__` script under `props.pageProps.advertDetails` (the saved
`advert-immobilien-haus-kaufen-wien-1140.html`), read by the search parser's tools
(`habicht.willhaben.parse`): the same script finder, decoding, id bound, title and price rules.

This module only reports what one answer said, never more. A page without `advertDetails` —
an error page, a search page willhaben redirected to, a redesign — is a `LayoutError` and the
block page `Blocked`, never a status guessed from it; an `advertDetails` without an
`advertStatus` id is a `LayoutError` too. A 404 or 410 is `Missing` (`WillhabenClient.advert`):
"perhaps gone", which the caller confirms before it believes it, as willhaben's answer for an
advert taken off is not captured anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal, TypeAlias

import msgspec

from habicht.willhaben.errors import LayoutError
from habicht.willhaben.parse import (
    RESERVED,
    AdvertStatus,
    Attributes,
    NextData,
    advert_id,
    attribute_map,
    decode_next_data,
    listing_price,
    listing_title,
    next_data_script,
    price_display,
)

__all__ = ["AdvertAnswer", "AdvertPage", "Missing", "Status", "parse_advert_page"]

Status: TypeAlias = Literal["active", "reserved", "other"]
"""What an advert page says of its advert: "other" is every `advertStatus.id` but "active" and
"reserved" (sold, expired, deleted, or a status willhaben adds later)."""
_ACTIVE = "active"


@dataclass(frozen=True, slots=True)
class AdvertPage:
    """What an advert's own page said: its status, price (as a search page's `Listing.price`
    is read) and title (without a reserved advert's "(reserviert) ")."""

    ad_id: str
    status: Status
    price: Decimal | None
    price_display: str | None
    title: str | None


@dataclass(frozen=True, slots=True)
class Missing:
    """willhaben answered the advert's page with `status` 404 or 410: perhaps gone, perhaps a
    passing error — the caller asks again before it believes the advert is gone."""

    status: int


AdvertAnswer: TypeAlias = AdvertPage | Missing
"""What one read of an advert's page answers (`WillhabenClient.advert`)."""


# The decoder's schema, as in `habicht.willhaben.parse`: only what is read, `advertDetails` and
# its `id` and `advertStatus` required (without them the page is no advert page we know), the
# title left undecoded until read (`listing_title`), so no shape of it costs anything.
class _Details(msgspec.Struct, frozen=True, gc=False, rename="camel"):
    id: str | int
    advert_status: AdvertStatus
    description: msgspec.Raw = msgspec.Raw(b"null")
    attributes: Attributes | None = None


class _PageProps(msgspec.Struct, frozen=True, gc=False, rename="camel"):
    advert_details: _Details


_DECODER = msgspec.json.Decoder(NextData[_PageProps])


def parse_advert_page(page: bytes) -> AdvertPage:
    """What the advert page `page` (the body as it came) says; `LayoutError` if it is no
    advert page, `Blocked` if it is the block page."""
    script = next_data_script(page)
    details = decode_next_data(script, _DECODER, what="an advert page").advert_details
    ad_id = advert_id(details.id)
    if ad_id is None:
        raise LayoutError("advertDetails has an empty id")
    status = _status(details.advert_status.id)
    attributes = attribute_map(details.attributes)
    title = listing_title(details.description, reserved=status == RESERVED)
    return AdvertPage(
        ad_id=ad_id,
        status=status,
        price=listing_price(attributes),
        price_display=price_display(attributes),
        title=(title or "").strip() or None,
    )


def _status(text: str) -> Status:
    if text == _ACTIVE:
        return "active"
    if text == RESERVED:
        return "reserved"
    return "other"
