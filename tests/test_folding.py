"""How words are compared (`habicht.folding`)."""

from __future__ import annotations

from habicht.folding import fold


def test_folding_ignores_case_accents_umlauts_and_spacing() -> None:
    assert fold("  Käse   CAFÉ Straße ") == "kaese cafe strasse"
    assert fold("Kaese") == fold("KÄSE")
