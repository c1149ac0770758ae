import numpy as np
import pytest
from sklearn.preprocessing import normalize
from topic_vectors import text_vectors

from papersift.topics.classifier import WORDS_ONLY, ModelConfig, TopicClassifier, ViewSpec
from papersift.topics.dataset import area_of
from papersift.topics.features import LSA_COMPONENTS, TopicInputs, UnlabeledCorpus, make_view, paper_text


@pytest.fixture(scope="module")
def split(corpus_labeled):
    train, test = corpus_labeled.subset(range(600)), corpus_labeled.subset(range(600, 800))
    return train, test


def test_hierarchy_is_consistent_and_probabilities_sum_to_one(split):
    train, test = split
    model = TopicClassifier(WORDS_ONLY).fit(TopicInputs.from_papers(train.papers), train.topics)
    ranking = model.rank(TopicInputs.from_papers(test.papers))
    assert np.allclose(ranking.area_probs.sum(axis=1), 1.0)
    assert np.allclose(ranking.topic_scores.sum(axis=1), 1.0)
    top_area = ranking.top_areas(1)[:, 0]
    top_topic = ranking.top_topics(3)
    for row in range(len(test)):
        first = ranking.topic_classes[top_topic[row, 0]]
        assert area_of(first) == ranking.area_classes[top_area[row]]  # subarea inside the predicted area
        assert len(set(top_topic[row])) == 3
    predictions = model.predict(TopicInputs.from_papers(test.papers))
    for prediction, row in zip(predictions, range(len(test))):
        assert prediction.area == ranking.area_classes[top_area[row]]
        assert 0 < prediction.confidence <= prediction.area_confidence <= 1
        assert prediction.alternatives[0][0] == prediction.topic


def test_words_model_beats_the_majority_class(split):
    train, test = split
    model = TopicClassifier(WORDS_ONLY).fit(TopicInputs.from_papers(train.papers), train.topics)
    predicted = [p.area for p in model.predict(TopicInputs.from_papers(test.papers))]
    accuracy = np.mean([p == t for p, t in zip(predicted, test.areas)])
    majority = max(np.mean([t == area for t in test.areas]) for area in set(train.areas))
    assert accuracy > majority + 0.1


@pytest.mark.drill
def test_combined_view_reads_embeddings(split):
    train, test = split
    vectors = text_vectors([*[p.title + " " + p.abstract for p in train.papers],
                            *[p.title + " " + p.abstract for p in test.papers]], dim=32)
    config = ModelConfig(views=(ViewSpec("combined", C=30.0),))
    assert config.needs_embeddings and not WORDS_ONLY.needs_embeddings
    model = TopicClassifier(config).fit(TopicInputs.from_papers(train.papers, vectors[:600]), train.topics)
    predictions = model.predict(TopicInputs.from_papers(test.papers, vectors[600:]))
    assert len(predictions) == len(test)
    with pytest.raises(ValueError, match="embeddings"):
        model.predict(TopicInputs.from_papers(test.papers))


def test_config_fingerprint_changes_with_config():
    assert ModelConfig().fingerprint() == ModelConfig().fingerprint()
    assert ModelConfig().fingerprint() != WORDS_ONLY.fingerprint()
    assert ModelConfig(area_blend=0.3).fingerprint() != ModelConfig().fingerprint()


def test_unknown_view_is_a_clear_error(split):
    train, _ = split
    with pytest.raises(ValueError, match="unknown feature view 'nope'"):
        TopicClassifier(ModelConfig(views=(ViewSpec("nope"),))).fit(TopicInputs.from_papers(train.papers), train.topics)


@pytest.fixture(scope="module")
def default_inputs(corpus_labeled):
    """600 training and 200 test papers with stand-in vectors for both embedding sources, and the
    texts of 1,192 other papers as the unlabeled corpus (their labels are not used)."""
    papers = corpus_labeled.papers[:800]
    vectors = text_vectors([paper_text(p) for p in papers], dim=48)
    embeddings = {"e5": vectors, "minilm": vectors[:, ::-1].copy()}
    corpus = UnlabeledCorpus([paper_text(p) for p in corpus_labeled.papers[800:]])
    inputs = TopicInputs.from_papers(papers, embeddings, corpus)
    return inputs.take(range(600)), inputs.take(range(600, 800))


@pytest.mark.drill
def test_default_model_averages_lr_and_lda_views(split, default_inputs):
    (train, test), (train_inputs, test_inputs) = split, default_inputs
    config = ModelConfig()
    assert config.embedding_sources == ("e5", "minilm") and config.needs_corpus
    assert {spec.learner for spec in config.views} == {"lr", "lda"}
    model = TopicClassifier(config).fit(train_inputs, train.topics)
    ranking = model.rank(test_inputs)
    assert np.allclose(ranking.area_probs.sum(axis=1), 1.0)
    accuracy = np.mean([model.area_classes[c] == t for c, t in zip(ranking.top_areas(1)[:, 0], test.areas)])
    majority = max(np.mean([t == area for t in test.areas]) for area in set(train.areas))
    assert accuracy > majority + 0.1
    # each view's probabilities are averaged: the mean of the single-view models' area probabilities
    lda_views = tuple(spec for spec in config.views if spec.learner == "lda")
    singles = [TopicClassifier(ModelConfig(views=(spec,), area_blend=1.0)).fit(train_inputs, train.topics)
               for spec in lda_views]
    blended = TopicClassifier(ModelConfig(views=lda_views, area_blend=1.0)).fit(train_inputs, train.topics)
    expected = np.mean([single.rank(test_inputs).area_probs for single in singles], axis=0)
    assert np.allclose(blended.rank(test_inputs).area_probs, expected, atol=1e-6)


@pytest.mark.drill
def test_lsa_is_fitted_once_per_corpus_and_never_on_training_texts(split, default_inputs):
    (train, _), (train_inputs, _) = split, default_inputs
    lsa_only = ModelConfig(views=(ViewSpec("lsa", learner="lda"),))
    first = TopicClassifier(lsa_only).fit(train_inputs, train.topics)
    second = TopicClassifier(lsa_only).fit(train_inputs.take(range(300)), train.topics[:300])
    corpus_lsa = train_inputs.corpus.lsa()
    assert first._models[0][1].transformer is second._models[0][1].transformer is corpus_lsa
    words = corpus_lsa[0]
    corpus_terms = {term for text in train_inputs.corpus.texts for term in words.build_analyzer()(text)}
    assert len(words.vocabulary_) <= 40_000 and words.vocabulary_.keys() <= corpus_terms
    with pytest.raises(ValueError, match="unlabeled corpus"):
        TopicClassifier(lsa_only).fit(TopicInputs(train_inputs.titles, train_inputs.texts), train.topics)


def test_missing_embedding_source_is_a_clear_error(split, default_inputs):
    (train, _), (train_inputs, _) = split, default_inputs
    without_minilm = TopicInputs(train_inputs.titles, train_inputs.texts, {"e5": train_inputs.vectors["e5"]},
                                 train_inputs.corpus)
    with pytest.raises(ValueError, match="minilm embeddings"):
        TopicClassifier(ModelConfig()).fit(without_minilm, train.topics)


def test_view_specs_parse_as_the_cli_writes_them():
    assert tuple(ViewSpec.parse(part) for part in ["combined_all:lr:30", "minilm:lda", "lsa:lda"]) == ModelConfig().views
    assert ViewSpec.parse("words") == ViewSpec("words", "lr", C=10.0)
    assert ViewSpec.parse("embed:knn:15") == ViewSpec("embed", "knn", neighbors=15)
    for bad, message in (("a:b:c:d", "expected view"), ("words:lr:x", "not a number"), ("", "expected view")):
        with pytest.raises(ValueError, match=message):
            ViewSpec.parse(bad)


def test_lda_on_a_sparse_view_is_a_clear_error(split):
    train, _ = split
    with pytest.raises(ValueError, match="lda learner needs a dense view"):
        TopicClassifier(ModelConfig(views=(ViewSpec("words", "lda"),))).fit(
            TopicInputs.from_papers(train.papers), train.topics)


@pytest.mark.drill
def test_combined_all_view_puts_words_both_embeddings_and_corpus_topics_side_by_side(default_inputs):
    train_inputs, test_inputs = default_inputs
    view = make_view("combined_all").fit(train_inputs)
    matrix = view.transform(test_inputs).toarray()
    words = view.parts[0].transformer
    width = len(words.vocabulary_)
    assert matrix.shape == (len(test_inputs), width + 48 + 48 + LSA_COMPONENTS)
    assert np.allclose(matrix[:, :width], words.transform(test_inputs.texts).toarray())
    assert np.allclose(matrix[:, width:width + 48], normalize(test_inputs.vectors["e5"]), atol=1e-6)
    assert np.allclose(matrix[:, width + 48:width + 96], normalize(test_inputs.vectors["minilm"]), atol=1e-6)
    # the topics block is the corpus LSA (fitted on unlabeled texts only, shared with the 'lsa' view)
    assert view.parts[3].transformer is train_inputs.corpus.lsa()
    assert np.allclose(matrix[:, width + 96:], train_inputs.corpus.lsa().transform(test_inputs.texts), atol=1e-5)
    config = ModelConfig()
    assert config.views[0] == ViewSpec("combined_all", C=30.0) and config.needs_corpus
