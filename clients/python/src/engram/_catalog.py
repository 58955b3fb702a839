"""A catalog directory as the files map of POST /catalog."""

from __future__ import annotations

from pathlib import Path


def read_catalog_directory(directory: str | Path) -> dict[str, str]:
    """Every file under `directory`, keyed by relative path with forward slashes. Hidden files and
    folders (.git, editor swap files) are skipped; every other file is sent, so the server refuses
    anything outside the layout."""
    root = Path(directory)
    files: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if not path.is_file() or any(part.startswith(".") for part in relative.parts):
            continue
        files[relative.as_posix()] = path.read_text(encoding="utf-8")
    return files
