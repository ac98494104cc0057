"""Fakes of habicht's far ends, shipped in the package so `habicht demo` and tests share them.

Nothing here talks to the network; everything renders or answers in memory.
"""

from habicht.fakes.willhaben_pages import FakeAdvert, render_block_page, render_search_page

__all__ = ["FakeAdvert", "render_block_page", "render_search_page"]
