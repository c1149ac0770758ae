"""The glossary build (index/glossary_build.py) from the small fixture of source files."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import opencc
import orjson
import pytest
from typer.testing import CliRunner

from papersift.cli.app import app
from papersift.index import glossary_build as builder
from papersift.index.glossary_build import resolve_prose
from papersift.ingest.glossary_sources import Candidate, SourceError, check_licence, load_manifest
from papersift.search.crosslingual import GLOSSARY_CUT_CONFIDENCE
from papersift.search.glossary import open_glossary, read_entries

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "glossary"
T2S = opencc.OpenCC("tw2sp").convert


def built(tmp_path: Path, **evidence) -> tuple[Path, Path, builder.BuildReport]:
    sources = load_manifest(FIXTURE / "sources.toml")
    report = builder.build(sources, builder.reference_pairs(FIXTURE / "reference.jsonl"), converter=T2S, **evidence)
    glossary_file, notice = builder.write(tmp_path, sources, report)
    return glossary_file, notice, report


def test_the_build_is_reproducible_from_the_fixture(tmp_path):
    first, first_notice, _ = built(tmp_path / "a")
    second, second_notice, _ = built(tmp_path / "b")
    assert first.read_bytes() == second.read_bytes()
    assert first_notice.read_text() == second_notice.read_text()


def test_the_fixture_gives_the_pairs_its_sources_state(tmp_path):
    glossary_file, _, report = built(tmp_path)
    glossary = open_glossary(glossary_file)
    best = {zh: glossary.by_zh(zh)[0] for zh in glossary.zh_keys()}
    # a term list line, a table row, marked terms in prose, both kinds of parentheses
    assert best["鞍点"].en == "saddle point"
    assert best["特征图"].en == "feature map"
    assert best["反向传播"].en == "backpropagation"
    assert {entry.en for entry in glossary.by_zh("交并比")} == {"intersection over union", "IoU"}
    assert glossary.by_zh("交并比")[0].en == "intersection over union"  # the acronym is the alternative
    assert {entry.en for entry in glossary.by_zh("长短期记忆网络")} == {"long short-term memory", "LSTM"}
    # the traditional-script source is read as simplified, and agrees with the book on two terms
    assert best["卷积神经网络"].en == "convolutional neural networks"
    assert best["感受野"].sources == ("book", "trad") and best["感受野"].en == "receptive field"
    assert best["特征图"].sources == ("book", "trad")
    # agreement raises the confidence over a pair one source gives the same way
    assert best["感受野"].confidence > best["反向传播"].confidence
    # running text: the term starts after the function word, and a pair only running text gives
    # needs more evidence (corpus, model) than the sources alone; code blocks are not read
    assert [(pair.zh, pair.en) for pair in report.rejected] == [("批量规范化", "batch normalization")]
    assert "代码" not in glossary.zh_keys()


def test_a_source_copying_the_reference_is_dropped(tmp_path):
    glossary_file, notice, report = built(tmp_path)
    assert report.copy_share["copied"] == 0.75
    assert "copied" in report.dropped_sources
    entries = read_entries(glossary_file)
    assert entries and not [entry for entry in entries if "copied" in entry.sources]
    assert "甲术语" not in {entry.zh for entry in entries}
    assert builder.notice_sources(notice.read_text()) == ["book", "trad"]
    # the pair it shares with a kept source stays, from that source only
    assert [entry.sources for entry in entries if entry.zh == "鞍点"] == [("book",)]


def test_the_notice_names_each_source_with_licence_commit_and_url(tmp_path):
    _, notice, _ = built(tmp_path)
    text = notice.read_text()
    for line in ("- repository: example/book", "- url: https://example.org/book",
                 "- licence: Apache-2.0 (licence file read: `LICENSE`)", "- licence: MIT", "- commit: unversioned"):
        assert line in text


def fake_encoder(same: dict[str, str]):
    """Unit vectors, one random direction per text, but a text in `same` gets its partner's."""
    def encode(texts: list[str]) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha1(same.get(text, text).encode()).digest()[:4], "big")
            rows.append(np.random.default_rng(seed).normal(size=64))
        return np.array(rows)
    return encode


def test_corpus_and_model_evidence_move_the_confidence(tmp_path):
    papers = {"saddle point": 40, "receptive field": 3, "batch normalization": 2}.get
    _, _, plain = built(tmp_path / "plain")
    _, _, weighed = built(tmp_path / "weighed", papers=lambda en: papers(en, 0))
    before = {(pair.zh, pair.en): pair.confidence for pair in plain.kept}
    after = {(pair.zh, pair.en): pair for pair in weighed.kept + weighed.rejected}
    assert after[("鞍点", "saddle point")].papers == 40
    assert after[("鞍点", "saddle point")].confidence == pytest.approx(before[("鞍点", "saddle point")] + 0.15)
    assert after[("感受野", "receptive field")].confidence == pytest.approx(before[("感受野", "receptive field")] + 0.05)
    # a marked pair no paper uses falls under the bar
    assert after[("交并比", "IoU")] in weighed.rejected
    # a pair only running text gives needs papers using it and the model's agreement
    assert ("批量规范化", "batch normalization") not in before
    assert after[("批量规范化", "batch normalization")] in weighed.rejected
    _, _, agreed = built(tmp_path / "agreed", papers=lambda en: papers(en, 0),
                         encode=fake_encoder({"批量规范化": "batch normalization"}))
    found = {(pair.zh, pair.en): pair for pair in agreed.kept}
    assert found[("批量规范化", "batch normalization")].model_rank == 1


def test_a_running_text_term_starts_where_another_reading_marks_it(tmp_path):
    glossary_file, _, report = built(tmp_path)
    entries = read_entries(glossary_file)
    # "然后我们计算特征图（feature map）": not "计算特征图", the marked term of the same book
    assert not [pair for pair in report.kept + report.rejected if pair.zh == "计算特征图"]
    [pair] = [pair for pair in report.kept if pair.zh == "特征图"]
    assert set(pair.hows) == {"marked", "prose"}
    # "常用 dropout（暂退法）": an English term glossed in Chinese
    assert [(entry.zh, entry.en) for entry in entries if entry.zh == "暂退法"] == [("暂退法", "dropout")]


def test_the_model_picks_where_an_unmarked_running_text_term_starts():
    candidate = Candidate("常用交叉熵", "cross-entropy", "s", "prose", "p", ("交叉熵",))
    [resolved] = resolve_prose([candidate], fake_encoder({"交叉熵": "cross-entropy"}))
    assert resolved.zh == "交叉熵"
    [unresolved] = resolve_prose([candidate])
    assert unresolved.zh == "常用交叉熵"


def test_model_rank_counts_the_english_terms_nearer_to_the_chinese_one():
    pairs = [builder.Pair("甲", "a", ("s",), ("listed",)), builder.Pair("乙", "b", ("s",), ("listed",))]
    vectors = {"a": [1.0, 0.0], "b": [0.0, 1.0], "甲": [0.9, 0.1], "乙": [0.9, 0.2]}
    ranks = builder.model_ranks(pairs, lambda texts: np.array([vectors[text] for text in texts]))
    assert ranks == [1, 2]  # 乙 is nearer to "a" than to its own "b"


@pytest.mark.parametrize(("licence", "text", "why"), [
    ("CC-BY-NC-4.0", "Attribution-NonCommercial 4.0", "not one that allows"),
    ("CC-BY-4.0", "Attribution-NonCommercial 4.0 International", "NonCommercial"),
    ("MIT", "All rights reserved.", "does not read as MIT"),
])
def test_a_source_whose_licence_does_not_allow_redistribution_is_refused(tmp_path, licence, text, why):
    folder = tmp_path / "src"
    shutil.copytree(FIXTURE / "book", folder)
    (folder / "LICENSE").write_text(text)
    manifest = tmp_path / "sources.toml"
    manifest.write_text((FIXTURE / "sources.toml").read_text().split("[[source]]")[1].join(["[[source]]", ""])
                        .replace('licence = "Apache-2.0"', f'licence = "{licence}"').replace('location = "book"', 'location = "src"'))
    [source] = load_manifest(manifest)
    with pytest.raises(SourceError, match=why):
        check_licence(source)


def test_a_source_without_its_licence_file_is_refused(tmp_path):
    shutil.copytree(FIXTURE / "book", tmp_path / "book")
    (tmp_path / "book" / "LICENSE").unlink()
    sources = load_manifest(FIXTURE / "sources.toml", tmp_path)
    with pytest.raises(SourceError, match="source book: no licence file 'LICENSE'"):
        check_licence(sources[0])


def test_the_cli_builds_the_glossary_and_its_notice(tmp_path):
    result = CliRunner().invoke(app, ["glossary", "build", "--manifest", str(FIXTURE / "sources.toml"),
                                      "--reference", str(FIXTURE / "reference.jsonl"), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "copied: dropped" in result.output
    assert (tmp_path / "GLOSSARY-NOTICE.md").is_file()
    assert {entry.zh for entry in read_entries(tmp_path / "glossary.tsv.gz")} >= {"鞍点", "感受野", "卷积神经网络"}


def test_the_cli_needs_the_reference_terms(tmp_path):
    result = CliRunner().invoke(app, ["glossary", "build", "--manifest", str(FIXTURE / "sources.toml"),
                                      "--reference", str(tmp_path / "none.jsonl"), "--out", str(tmp_path)])
    assert result.exit_code == 1
    assert "no reference terms" in result.output


def test_an_alignment_over_several_sources_documents_is_one_source():
    aligned = builder.Pair("三个", "three", ("a", "b", "c"), ("parallel",),
                           (("a", "parallel"), ("b", "parallel"), ("c", "parallel")), papers=50, model_rank=1)
    assert builder.independent_sources(aligned) == 1
    assert builder.confidence(aligned) == pytest.approx(0.3 + 0.15 + 0.1)
    stated = builder.Pair("感受野", "receptive field", ("a", "b"), ("marked", "parallel"),
                          (("a", "marked"), ("b", "parallel")))
    assert builder.independent_sources(stated) == 2  # a work states it, another's documents align it
    same_work = builder.Pair("感受野", "receptive field", ("a",), ("marked", "parallel"), (("a", "marked"), ("a", "parallel")))
    assert builder.independent_sources(same_work) == 1


def test_measure_counts_coverage_and_precision_with_the_forms_papers_use(tmp_path):
    built(tmp_path)
    reference = tmp_path / "terms.jsonl"
    reference.write_text('{"term_zh": "鞍点", "term_en": "Saddle Points"}\n'  # a plural: right
                         '{"term_zh": "反向传播", "term_en": "back-propagation"}\n'  # another spelling: wrong
                         '{"term_zh": "没有的词", "term_en": "absent"}\n', encoding="utf-8")
    measure = ["glossary", "measure", "--glossary", str(tmp_path / "glossary.tsv.gz"), "--reference", str(reference), "--json"]
    result = CliRunner().invoke(app, measure)
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.output) == {"terms": 3, "covered": 2, "coverage": 0.667, "precision": 0.5,
                                           "sure": 0, "sure_precision": 0.0}  # one source, no corpus: none sure
    result = CliRunner().invoke(app, [*measure, "--min-confidence", "0.99"])
    assert orjson.loads(result.output)["covered"] == 0


def test_translation_units_give_pairs_and_documents_to_align(tmp_path):
    from papersift.index.termlexicon import analyzed

    sources = load_manifest(FIXTURE / "units.toml")
    plain = builder.build(sources, set())
    pairs = {(pair.zh, pair.en): pair for pair in plain.kept + plain.rejected}
    # a translated heading: both ends sure, weighed between a gloss and a marked term
    assert pairs[("梯度裁剪", "gradient clipping")].hows == ("translated",)
    assert pairs[("梯度裁剪", "gradient clipping")].confidence == builder.CONFIDENCE_BY_HOW["translated"]
    assert pairs[("样本空间", "sample space")] in plain.kept
    # the messages are document pairs: a term in two of them aligns with the phrase their twins share
    phrases = {analyzed(text): text for text in ("gradient clipping", "recurrent neural networks", "parameters")}
    aligned = builder.build(sources, set(), phrases=phrases, align_encode=fake_encoder({"梯度裁剪": "gradient clipping"}))
    found = {(pair.zh, pair.en): pair for pair in aligned.kept + aligned.rejected}
    assert "parallel" in found[("梯度裁剪", "gradient clipping")].hows


def test_a_dictionarys_senses_need_a_technical_tag_and_the_corpus_or_another_source(tmp_path):
    sources = load_manifest(FIXTURE / "dictionary.toml")
    papers = {"gradient descent": 30, "random walk": 5, "saddle point": 40, "receptive field": 3, "bank": 10}.get
    encode = fake_encoder({"梯度下降": "gradient descent", "随机游动": "random walk"})
    report = builder.build(sources, set(), papers=lambda en: papers(en, 0), encode=encode)
    kept = {(pair.zh, pair.en): pair for pair in report.kept}
    rejected = {(pair.zh, pair.en): pair for pair in report.rejected}
    # a sense under a technical tag that papers use and the model agrees with
    assert kept[("梯度下降", "gradient descent")].hows == ("dictionary",)
    assert kept[("梯度下降", "gradient descent")].confidence == pytest.approx(0.3 + 0.15 + 0.1)
    assert kept[("梯度下降", "gradient descent")].confidence < GLOSSARY_CUT_CONFIDENCE  # no cut point, never sure
    # one no paper uses is passed over before the model
    assert rejected[("普通术语", "plain term")].model_rank is None
    # a general sense counts only as agreement: the book's receptive field gains the dictionary as a
    # source, and no confidence (a dictionary never makes a reading sure)
    plain = builder.build(sources[:1], set(), papers=lambda en: papers(en, 0), encode=encode)
    before = {(pair.zh, pair.en): pair for pair in plain.kept}
    assert kept[("感受野", "receptive field")].sources == ("book", "dict")
    assert kept[("感受野", "receptive field")].confidence == before[("感受野", "receptive field")].confidence
    # two dictionaries giving a tagged sense are two sources; a general sense agrees with another's tagged one
    assert kept[("随机游走", "random walk")].sources == ("cedict", "dict")
    assert kept[("随机游走", "random walk")].confidence < GLOSSARY_CUT_CONFIDENCE  # two dictionaries: still no more
    assert ("gradient", "dictionary-general") not in {(pair.en, how) for pair in report.kept + report.rejected
                                                       for how in pair.hows}  # 梯度 in CC-CEDICT's layout only
    # a general sense nothing else gives is no entry, kept or weighed
    assert ("银行", "bank") not in kept and ("银行", "bank") not in rejected
    assert ("感受区", "receptive field") not in kept and ("感受区", "receptive field") not in rejected
    _, notice = builder.write(tmp_path, sources, report)
    assert "## dict" in notice.read_text(encoding="utf-8")


def test_the_no_copy_rule_counts_a_dictionarys_general_senses_too():
    # the made-up reference: the dictionary holds 甲术语 and 乙术语 untagged and 丙术语 tagged, 3 of 4
    report = builder.build(load_manifest(FIXTURE / "dictionary.toml"),
                           builder.reference_pairs(FIXTURE / "reference.jsonl"))
    assert report.copy_share["dict"] == pytest.approx(0.75)
    assert "dict" in report.dropped_sources
    assert not [pair for pair in report.kept + report.rejected if "dict" in pair.sources]


def test_a_start_another_source_gives_with_another_english_is_a_part_not_the_start():
    # 神经网络 "neural network" is listed elsewhere; in 物理信息神经网络（physics-informed neural
    # networks）it is the end of the term, which starts where the English says
    listed = Candidate("神经网络", "neural network", "list", "listed", "terms.md")
    candidate = Candidate("物理信息神经网络", "physics-informed neural networks", "s", "prose", "p",
                          ("信息神经网络", "神经网络"))
    [_, resolved] = resolve_prose([listed, candidate], fake_encoder({"物理信息神经网络": "physics-informed neural networks"}))
    assert resolved.zh == "物理信息神经网络"
    [_, unresolved] = resolve_prose([listed, candidate])
    assert unresolved.zh == "物理信息神经网络"  # without a model: the longest
    # the same English from another source still marks where the term starts
    marked = Candidate("信息神经网络", "physics-informed neural network", "other", "marked", "q")
    [_, _, taken] = resolve_prose([listed, marked, candidate])
    assert taken.zh == "信息神经网络"


def test_an_acronym_in_running_text_starts_at_the_longest_start_given_with_any_english():
    listed = Candidate("马尔可夫决策过程", "Markov decision process", "list", "listed", "terms.md")
    candidate = Candidate("马尔可夫决策过程", "MDP", "s", "prose", "p", ("决策过程", "过程"))
    [_, resolved] = resolve_prose([listed, candidate], fake_encoder({"过程": "MDP"}))
    assert resolved.zh == "马尔可夫决策过程"
