"""The vendored glossary and its loader (search/glossary.py)."""

from __future__ import annotations

import gzip

import pytest

from papersift.index.glossary_build import notice_sources
from papersift.search import glossary
from papersift.search.glossary import GlossaryEntry, lookup_en, lookup_zh, read_entries, zh_terms


def test_the_vendored_glossary_loads_and_every_entry_is_well_formed():
    entries = read_entries(glossary.glossary_path())
    assert len(entries) > 500
    for entry in entries:
        assert entry.zh and entry.en and entry.sources and 0 < entry.confidence <= 1
        assert entry.zh == entry.zh.strip() and "\t" not in entry.en


def test_every_source_an_entry_cites_is_in_the_notice():
    listed = set(notice_sources((glossary.glossary_path().parent / "GLOSSARY-NOTICE.md").read_text(encoding="utf-8")))
    cited = {source for entry in read_entries(glossary.glossary_path()) for source in entry.sources}
    assert cited and cited <= listed


def test_lookup_zh_finds_a_term_best_first_and_folds_full_width_forms():
    entries = lookup_zh("感受野")
    assert entries and entries[0].en == "receptive field"
    assert isinstance(entries[0], GlossaryEntry)
    assert [entry.confidence for entry in entries] == sorted((entry.confidence for entry in entries), reverse=True)
    assert lookup_zh("ｓｏｆｔｍａｘ回归") == lookup_zh("softmax回归") != []
    assert lookup_zh("不是术语的字串") == []


def test_lookup_en_ignores_case_hyphens_and_a_plural():
    assert "感受野" in {entry.zh for entry in lookup_en("Receptive Fields")}
    assert lookup_en("receptive-field") == lookup_en("receptive field") != []
    assert lookup_en("no such phrase at all") == []


def test_zh_terms_holds_every_chinese_key():
    terms = zh_terms()
    assert "感受野" in terms and all(lookup_zh(term) for term in list(terms)[:50])


def test_a_malformed_line_names_the_file_and_line(tmp_path):
    path = tmp_path / "bad.tsv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("zh\ten\tsources\tconfidence\n感受野\treceptive field\td2l-zh\n")
    with pytest.raises(ValueError, match=r"bad.tsv.gz:2: expected 4 tab-separated fields"):
        read_entries(path)


def test_the_wheel_carries_the_glossary_and_its_notice():
    import fnmatch
    from pathlib import Path

    from papersift.ingest.glossary_sources import tomllib  # tomli before 3.11

    root = Path(__file__).resolve().parents[2]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["papersift"]
    for name in ("glossary.tsv.gz", "GLOSSARY-NOTICE.md"):
        assert (glossary.glossary_path().parent / name).is_file()
        assert any(fnmatch.fnmatch(f"data/{name}", pattern) for pattern in patterns), name


def test_lines_become_entries_when_looked_up_and_the_english_side_on_its_first_use(tmp_path):
    """A process reads a few terms: the lines it does not ask for are never parsed, and reading
    Chinese does not pay for the English side."""
    path = tmp_path / "glossary.tsv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("zh\ten\tsources\tconfidence\n感受野\treceptive fields\tb\t0.7\n感受野\tReceptive Field\ta,c\t0.9\n"
                     "池化\tpooling\ta\tnot a number\n")
    opened = glossary.open_glossary(path)
    assert opened.zh_keys() == {"感受野", "池化"}  # the malformed line is not parsed yet
    assert [entry.en for entry in opened.by_zh("感受野")] == ["Receptive Field", "receptive fields"]  # best first
    assert "_rows_of_en" not in vars(opened)
    assert [entry.confidence for entry in opened.by_en("receptive field")] == [0.9]
    assert "_rows_of_en" in vars(opened)
    with pytest.raises(ValueError, match=r"glossary.tsv.gz:4: expected 4 tab-separated fields"):
        opened.by_zh("池化")


def test_best_confidence_is_the_best_entrys_without_making_entries(tmp_path):
    path = tmp_path / "glossary.tsv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("zh\ten\tsources\tconfidence\n感受野\treceptive fields\tb\t0.7\n感受野\tReceptive Field\ta\t0.9\n")
    opened = glossary.open_glossary(path)
    assert opened.best_confidence("感受野") == 0.9 and opened.best_confidence("池化") == 0.0
    assert opened._ranked == {}  # no entry was made
    assert glossary.best_confidence("感受野") == lookup_zh("感受野")[0].confidence
