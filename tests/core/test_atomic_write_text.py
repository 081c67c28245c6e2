"""``atomic_write_text``: a file replaced in one rename (the round's sheets and the hall's
standings page are written with it, and read by browsers while they are rewritten)."""

from __future__ import annotations

from pathlib import Path

from paiju.core.records import atomic_write_text


def test_it_replaces_an_existing_file_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    out = tmp_path / "hall.html"
    atomic_write_text(out, "first")
    atomic_write_text(out, "second")
    assert out.read_bytes() == b"second"
    assert [p.name for p in tmp_path.iterdir()] == ["hall.html"]


def test_non_ascii_text_is_written_as_utf8(tmp_path: Path) -> None:
    # players' names are Chinese as often as not; the page says it is UTF-8, whatever the locale
    text = "春天 · 反春 · Zoë <b>&</b>"
    out = tmp_path / "sheet.html"
    atomic_write_text(out, text)
    assert out.read_bytes().decode("utf-8") == text
    assert [p.name for p in tmp_path.iterdir()] == ["sheet.html"]
