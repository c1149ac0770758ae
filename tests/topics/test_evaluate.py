from collections import Counter

import orjson
import pytest
from typer.testing import CliRunner

from papersift.cli import app
from papersift.topics.classifier import WORDS_ONLY, ModelConfig, ViewSpec
from papersift.topics.evaluate import cross_validate, majority_scores, report_markdown

METRICS = ("area_top1", "area_top3", "subarea_top1", "subarea_top3")


def test_majority_baseline_against_counts(corpus_labeled):
    train, test = corpus_labeled.subset(range(1000)), corpus_labeled.subset(range(1000, 1992))
    scores = majority_scores(train.topics, test.areas, test.topics)
    top_area = Counter(train.areas).most_common(1)[0][0]
    top3_topics = {t for t, _ in Counter(train.topics).most_common(3)}
    assert sum(scores["area_top1"]) == sum(a == top_area for a in test.areas)
    assert sum(scores["subarea_top3"]) == sum(t in top3_topics for t in test.topics)


@pytest.mark.drill
def test_cross_validation_on_a_slice(corpus_labeled):
    labeled = corpus_labeled.subset(range(500))
    report = cross_validate(labeled, None, WORDS_ONLY, folds=3)
    for name in METRICS:
        assert 0 <= report[name] <= 1
        assert 0 <= report["baselines"]["tfidf_lr"][name] <= 1
    assert report["area_top1"] <= report["area_top3"] and report["subarea_top1"] <= report["subarea_top3"]
    assert report["area_top1"] > report["baselines"]["majority"]["area_top1"]
    assert report["subarea_top3"] > report["baselines"]["majority"]["subarea_top3"]
    confusion = report["confusion"]
    assert sum(confusion["area_support"].values()) == len(labeled)
    assert sum(sum(row.values()) for row in confusion["matrix"].values()) == len(labeled)
    correct = sum(confusion["matrix"][area][area] for area in confusion["matrix"])
    assert abs(correct / len(labeled) - report["area_top1"]) < 1e-3
    assert "| baseline: majority |" in report_markdown(report)


def test_evaluate_command_json(topics_data_dir):
    result = CliRunner().invoke(app, ["topics", "evaluate", "--data-dir", str(topics_data_dir), "--words-only",
                                      "--folds", "2", "--json"])
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    assert all(name in report for name in METRICS)
    assert set(report["baselines"]) == {"majority", "tfidf_lr"}


def test_evaluate_other_views(topics_data_dir):
    result = CliRunner().invoke(app, ["topics", "evaluate", "--data-dir", str(topics_data_dir), "--views",
                                      "title,words:lr:30", "--folds", "2", "--json"])
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    assert report["views"] == ["title", "words"] and report["embedding_model"] is None
    assert report["model"] == ModelConfig(views=(ViewSpec("title"), ViewSpec("words", C=30.0))).fingerprint()
    result = CliRunner().invoke(app, ["topics", "evaluate", "--data-dir", str(topics_data_dir), "--views", "nope"])
    assert result.exit_code != 0 and "unknown view nope" in result.stderr


def test_evaluate_without_labels_fails_clearly(store, tmp_path):
    from papersift.record import paper_from_dict

    store.upsert([paper_from_dict({"id": "p1", "title": "A paper", "abstract": "x" * 50})])
    result = CliRunner().invoke(app, ["topics", "evaluate", "--data-dir", str(store.data_dir), "--words-only"])
    assert result.exit_code != 0
    assert "too few" in result.stderr
