"""The glossary's readers of translation files kept unit by unit (ingest/glossary_sources.py):
gettext catalogues (po) and cheatsheet translation templates; and of glossaries kept as
markdown tables with named columns (term-table)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from papersift.ingest.glossary_sources import (
    DICTIONARY,
    DICTIONARY_GENERAL,
    LISTED,
    PROSE,
    TRANSLATED,
    SourceError,
    dictionary_senses,
    has_documents,
    load_manifest,
    read_pairs,
    read_source,
    translation_units,
)

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "glossary"


@pytest.fixture(scope="module")
def units_source():
    (source,) = load_manifest(FIXTURE / "units.toml")
    return source


def test_a_po_catalogue_gives_its_translated_messages_chinese_first_in_either_direction():
    guide = translation_units("po", (FIXTURE / "units/locales/en/guide.po").read_text())
    # msgid Chinese -> msgstr English; the untranslated, the fuzzy and the untranslatable are passed over
    assert guide[0] == ("梯度裁剪", "Gradient Clipping")
    assert len(guide) == 3
    assert not [zh for zh, _ in guide if zh in ("学习率预热", "学习率衰减", "参数")]
    api = translation_units("po", (FIXTURE / "units/locales/en/api.po").read_text())
    # msgid English -> msgstr Chinese: the pair still comes Chinese first
    assert api == [("输入张量。", "input tensor."), ("对模型的参数进行梯度裁剪。",
                                                 "Applies gradient clipping to the parameters of the model.")]


def test_a_cheatsheet_gives_each_translated_item():
    units = translation_units("cheatsheet", (FIXTURE / "units/cheatsheet.md").read_text())
    assert units[0] == ("监督学习简明指南", "Supervised Learning cheatsheet")
    assert units[1] == ("[回归，分类器，输出]", "[Regression, Classifier, Outcome]")
    assert units[3][0].startswith("样本空间 - 一个实验") and units[3][1].startswith("Sample space ― The set")
    # the other numbering, "**6. English**", with the translation on the next line
    assert units[4] == ("[词比较, 余弦相似度]", "[Comparing words, Cosine similarity]")
    assert len(units) == 5  # the item left untranslated is not a unit


def test_term_pairs_come_from_short_units_list_items_and_heads_and_prose_from_the_chinese_side(units_source):
    found = {(candidate.zh, candidate.en, candidate.how) for candidate in read_source(units_source)}
    translated = {(zh, en) for zh, en, how in found if how == TRANSLATED}
    assert {("梯度裁剪", "gradient clipping"), ("输入张量", "input tensor"), ("回归", "regression"),
            ("分类器", "classifier"), ("输出", "outcome"), ("样本空间", "sample space"),
            ("余弦相似度", "cosine similarity")} <= translated
    # a sentence is no term pair; a list with more items on one side gives none
    assert not {zh for zh, _ in translated if "。" in zh or len(zh) > 12}
    assert not {(zh, en) for zh, en in translated if zh in ("连续", "类别", "线性回归")}
    # "中文（English）" in a message is read as in prose: the term's start is resolved by the build
    assert ("以免出现梯度爆炸", "gradient explosion", PROSE) in found


def test_each_unit_is_a_document_pair_for_the_alignment(units_source):
    assert has_documents(units_source)
    documents = list(read_pairs(units_source, {units_source.key: units_source}))
    assert len(documents) == 3 + 2 + 5
    assert {document.source for document in documents} == {"units"}
    by_zh = {document.zh: document for document in documents}
    assert by_zh["梯度裁剪常用于循环神经网络。"].en == "Gradient clipping is often used in recurrent neural networks."
    assert by_zh["梯度裁剪常用于循环神经网络。"].path == "locales/en/guide.po"


def test_a_file_that_cannot_be_read_is_named(tmp_path):
    (tmp_path / "src" / "locales" / "en").mkdir(parents=True)
    (tmp_path / "src" / "LICENSE").write_text((FIXTURE / "units" / "LICENSE").read_text())
    (tmp_path / "src" / "locales" / "en" / "broken.po").write_text('msgid "梯度"\nmsgstr "Gradient\nmsgid')
    manifest = tmp_path / "sources.toml"
    manifest.write_text((FIXTURE / "units.toml").read_text().replace('location = "units"', 'location = "src"'))
    (source,) = load_manifest(manifest)
    with pytest.raises(SourceError, match=r"source units: locales/en/broken\.po: not a gettext catalogue"):
        list(read_source(source))


def test_a_manifest_naming_an_unknown_reader_fails_with_the_readers_known(tmp_path):
    manifest = tmp_path / "sources.toml"
    manifest.write_text((FIXTURE / "units.toml").read_text().replace('reader = "cheatsheet"', 'reader = "xliff"'))
    with pytest.raises(SourceError, match=r"unknown reader \['xliff'\].*po, cheatsheet"):
        load_manifest(manifest)


def test_a_term_table_gives_each_rows_chinese_and_english_cells_by_the_header_names():
    (source,) = load_manifest(FIXTURE / "table.toml")
    found = [(candidate.zh, candidate.en, candidate.how) for candidate in read_source(source)]
    assert found == [
        ("注意力机制", "attention", LISTED),
        ("阿姆达尔定律", "amdahl's law", LISTED),  # a link cell gives its text
        ("长短时记忆", "long short-term memory", LISTED),
        ("长短时记忆", "LSTM", LISTED),  # the abbreviation column is a second English form
        ("作业", "job", LISTED),
        ("批尺寸", "batch size", LISTED),  # columns found by their names, in any order
    ]
    # the contributor and note columns, and a table naming no English and Chinese column, are not read
    assert not {en for _, en, _ in found} & {"wang", "li", "zhang", "10M", "chen"}


def test_a_git_source_lists_and_reads_files_named_in_chinese(tmp_path):
    work = tmp_path / "work"
    shutil.copytree(FIXTURE / "table", work)
    (work / "GLOSSARY.md").rename(work / "术语表.md")
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    for command in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "fixture"]):
        subprocess.run([*git, *command], check=True, capture_output=True)
    manifest = tmp_path / "sources.toml"
    manifest.write_text((FIXTURE / "table.toml").read_text().replace('location = "table"', 'location = "work/.git"')
                        .replace('"GLOSSARY.md"', '"术语*.md"'))
    (source,) = load_manifest(manifest)
    assert source.tree().is_git
    assert source.tree().files() == ["LICENSE", "术语表.md"]
    assert ("注意力机制", "attention") in {(candidate.zh, candidate.en) for candidate in read_source(source)}
def test_a_dictionary_translation_splits_into_senses_with_their_domain_tag():
    senses = list(dictionary_senses("n. 罩；风帽；（布质）面罩\\nvt. 存入银行\\n[计] 存储体, 存储库\\n[数] 随机游走(的)"))
    assert senses == [("", "罩"), ("", "风帽"), ("", "面罩"), ("", "存入银行"), ("计", "存储体"), ("计", "存储库"),
                      ("数", "随机游走")]


def test_the_ecdict_reader_maps_each_sense_back_to_its_headword_tagged_or_general():
    (_, dictionary, _) = load_manifest(FIXTURE / "dictionary.toml")
    found = {(candidate.zh, candidate.en, candidate.how) for candidate in read_source(dictionary)}
    assert {("梯度下降", "gradient descent", DICTIONARY), ("随机游动", "random walk", DICTIONARY),
            ("随机游走", "random walk", DICTIONARY), ("存储体", "bank", DICTIONARY),
            ("鞍点", "saddle point", DICTIONARY), ("极小极大点", "saddle point", DICTIONARY)} <= found
    # senses without a technical tag (none, a part of speech, [网络] from the web, [医]) are general
    assert {("银行", "bank", DICTIONARY_GENERAL), ("河岸", "bank", DICTIONARY_GENERAL),
            ("感受野", "receptive field", DICTIONARY_GENERAL), ("兜帽", "hood", DICTIONARY_GENERAL),
            ("面罩", "hood", DICTIONARY_GENERAL)} <= found
    assert ("鞍点", "saddle point", DICTIONARY_GENERAL) in found  # untagged in one line, tagged in another
    # one character ("库", "罩"), an elided sense ("给…加罩"): no term
    assert not {zh for zh, _, _ in found if len(zh) < 2 or "…" in zh or "加罩" in zh}
    assert len([1 for zh, en, how in found if (zh, en) == ("银行", "bank")]) == 1  # once though given twice


def test_a_table_that_is_not_ecdicts_is_named(tmp_path):
    folder = tmp_path / "dictionary"
    folder.mkdir()
    (folder / "LICENSE").write_text((FIXTURE / "dictionary" / "LICENSE").read_text())
    (folder / "ecdict.csv").write_text("headword,gloss\nbank,银行\n")
    manifest = tmp_path / "dictionary.toml"
    manifest.write_text((FIXTURE / "dictionary.toml").read_text())
    (_, dictionary, _) = load_manifest(manifest)
    with pytest.raises(SourceError, match=r"source dict: ecdict\.csv: not an ECDICT table"):
        list(read_source(dictionary))


def test_the_cedict_reader_gives_each_english_sense_with_its_simplified_headword():
    (_, _, cedict) = load_manifest(FIXTURE / "dictionary.toml")
    found = {(candidate.zh, candidate.en, candidate.how) for candidate in read_source(cedict)}
    assert found == {("方差", "variance", DICTIONARY), ("梯度", "gradient", DICTIONARY_GENERAL),
                     ("银行", "bank", DICTIONARY_GENERAL), ("鞍点", "saddle point", DICTIONARY),
                     ("鞍点", "minimax point", DICTIONARY), ("随机游走", "random walk", DICTIONARY)}
    # a measure word (CL:), a cross-reference (see also), a one-character headword: no pair


def test_a_parallel_reading_whose_english_path_leaves_a_chinese_file_unchanged_is_refused(tmp_path):
    # a rewrite that does not match the Chinese file's name would pair the document with itself
    shutil.copytree(FIXTURE / "table", tmp_path / "docs")
    (tmp_path / "docs" / "intro_zh.rst").write_text("强化学习（reinforcement learning）是机器学习的一个分支。\n")
    (tmp_path / "docs" / "intro.rst").write_text("Reinforcement learning is a branch of machine learning.\n")
    manifest = tmp_path / "sources.toml"
    reading = '{ reader = "parallel", paths = ["*_zh.rst"], english_path = ["_cn\\\\.rst$", ".rst"] }'
    manifest.write_text((FIXTURE / "table.toml").read_text().replace('location = "table"', 'location = "docs"')
                        .replace('{ reader = "term-table", paths = ["GLOSSARY.md"] }', reading))
    (source,) = load_manifest(manifest)
    with pytest.raises(SourceError, match=re.escape("source table: english_path _cn\\.rst$ -> .rst leaves intro_zh.rst unchanged")):
        list(read_pairs(source, {source.key: source}))
    manifest.write_text(manifest.read_text().replace("_cn\\\\.rst$", "_zh\\\\.rst$"))
    (source,) = load_manifest(manifest)
    (document,) = read_pairs(source, {source.key: source})
    assert "强化学习" in document.zh and document.en.startswith("Reinforcement learning")
