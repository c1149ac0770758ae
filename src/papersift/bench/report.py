"""Every benchmark writes the same pair of files: NAME.json for scripts, NAME.md to read."""

from __future__ import annotations

from pathlib import Path

import orjson


def save_report(reports_dir: Path, name: str, data, markdown: str) -> tuple[Path, Path]:
    """Write reports_dir/NAME.json and reports_dir/NAME.md (the latest run of that bench)."""
    reports_dir = Path(reports_dir)
    reports_dir.mkdir(parents=True, exist_ok=True)
    json_path, markdown_path = reports_dir / f"{name}.json", reports_dir / f"{name}.md"
    json_path.write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS))
    markdown_path.write_text(markdown if markdown.endswith("\n") else markdown + "\n", encoding="utf-8")
    return json_path, markdown_path
