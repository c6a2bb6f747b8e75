"""`d` on the dashboard starts a derive: the dialog checks its fields, the set is built in
the background on the real database, and the dashboard says what was made."""

from __future__ import annotations

from pathlib import Path

import pytest

from db import Store
from qcstation.app import make_app
from screens.dialogs.derive import DeriveFormError, DeriveModal, parse_derive_form
from tests.app.conftest import ANNOTATOR, make_config, settle
from tests.core.derive.helpers import make_db


def test_the_form() -> None:
    assert parse_derive_form("inverse", "  ") == parse_derive_form("inverse", "inverse")
    assert parse_derive_form("variants", "dyn-1").name == "dyn-1"
    with pytest.raises(DeriveFormError):
        parse_derive_form(None, "x")
    with pytest.raises(DeriveFormError):
        parse_derive_form("variants", "a name\x1b")


async def test_d_builds_a_derived_set(tmp_path: Path) -> None:
    db = make_db(tmp_path, ["james", "janet", "tom"])
    app = make_app(db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, DeriveModal)
        await pilot.press("down", "down", "down", "enter")    # counterfactual
        app.screen.query_one("#derive_name").value = "cf1"
        await pilot.press("ctrl+s")
        await settle(pilot, rounds=200)
        assert not isinstance(app.screen, DeriveModal)
        notes = [n.message for n in app._notifications]
    with Store(db) as store:
        made = store.scalar("SELECT COUNT(*) FROM derived_items di JOIN derive_sets ds ON "
                            "ds.id = di.set_id WHERE ds.name = 'cf1' AND di.transform = "
                            "'counterfactual'")
        kind = store.scalar("SELECT kind FROM derive_sets WHERE name = 'cf1'")
    # james and janet, up to 6 shifts each (tom restates a value: refused)
    assert kind == "counterfactual" and 6 <= made <= 12
    assert any(f"Set cf1: made counterfactual {made}." in n for n in notes), notes
