import orjson

from papersift.bench.report import save_report


def test_saves_json_and_markdown_side_by_side(tmp_path):
    json_path, markdown_path = save_report(tmp_path / "reports", "bench-x", {"qps": 12.5, 7: "seven"}, "| a |\n|---|")
    assert orjson.loads(json_path.read_bytes()) == {"qps": 12.5, "7": "seven"}
    assert markdown_path.read_text() == "| a |\n|---|\n"
    assert (json_path.name, markdown_path.name) == ("bench-x.json", "bench-x.md")
