"""The admin API's CSV (server/api/admin.py ``to_csv``)."""

from __future__ import annotations

import csv
import io

from server.api.admin import to_csv


def test_a_name_that_reads_as_a_formula_is_text_and_numbers_stay_numbers() -> None:
    """A player-chosen name opened by a spreadsheet must not run (CSV injection): a cell
    starting with = + - @ or a tab is opened with ' ; negative points stay numbers."""
    rows = [
        {"player": '=HYPERLINK("http://x","hi")', "points": -7, "seats": ["+1", "@a", "阿甲"]},
        {"player": "-x", "points": 12, "seats": ["\tb", "ok", "=1+1"]},
    ]
    parsed = list(csv.DictReader(io.StringIO(to_csv(rows))))
    assert [r["player"] for r in parsed] == ['\'=HYPERLINK("http://x","hi")', "'-x"]
    assert [r["points"] for r in parsed] == ["-7", "12"]
    assert [[r[f"seats.{i}"] for i in range(3)] for r in parsed] == [
        ["'+1", "'@a", "阿甲"],
        ["'\tb", "ok", "'=1+1"],
    ]
