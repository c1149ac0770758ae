"""Experiment (2026-11-30): can any rule over the signals papersift has offline pick the right
English reading of a Chinese term among its candidates?  Log: zhterms-reading-choice.md.

Usage: python docs/experiments/zhterms_reading_choice.py DATA_DIR  (term lexicon, phrase
vectors and the multilingual-e5-small model built; ~2 min on 2 cores).

Candidates per zhterms term: the composition's readings and the 20 phrases nearest by USE-m3
(the same as `bench zhterms --ceiling` at k = 20). Features per candidate: USE-m3 cosine,
e5 query-query and query-passage cosines, log papers, composition / alternative / sure flags,
neighbour rank, CC-CEDICT coverage of the Chinese characters and of the English words, word
counts, and a piece alignment (jieba pieces of the term against the candidate's words, both by
USE-m3, recall / precision / F1). Rules: today's (search/phrasebridge.py `choose`), and a
logistic regression over all features trained on one half of the terms and tested on the other.
"""

from __future__ import annotations

import logging
import math
import re
import sys
from pathlib import Path

import jieba
import numpy as np
from sklearn.linear_model import LogisticRegression

from papersift.bench.zhterms import DEFAULT_DATASET, K, load, term_half
from papersift.index.embeddings import Encoder
from papersift.index.phrasevectors import encode_texts
from papersift.index.termlexicon import analyzed
from papersift.search.phrasebridge import candidate_cosines, phrase_bridge_for
from papersift.search.service import SearchService
from papersift.search.termlexicon import lexicon_for
from papersift.search.types import SearchRequest

NEAREST = 20
NOTHING = {"rr": 0.0, "twin": False}  # no candidate at all
CJK = re.compile(r"[\u3400-\u9fff]")
WORD = re.compile(r"[a-z0-9]+")


def candidates(data_dir: Path) -> list[dict]:
    queries, qrels = load(DEFAULT_DATASET)
    service, lexicon, bridge = SearchService(data_dir), lexicon_for(data_dir), phrase_bridge_for(data_dir)
    english = {q.term: q for q in queries if q.lang == "en"}

    def rr(text: str, qid: str) -> float:
        hits = service.search(SearchRequest(query=text, mode="keyword", size=K)).hits
        rank = next((at for at, hit in enumerate(hits, 1) if hit.paper.id in qrels.get(qid, set())), None)
        return 1 / rank if rank else 0.0

    terms = []
    for query in (q for q in queries if q.lang == "zh"):
        token, reading = "".join(query.text.split()), lexicon.read(query.text)
        found: dict[str, dict] = {}
        sure = len(reading.terms) == 1 and reading.terms[0].sure
        found[reading.english] = {"kind": "read", "sure": sure, "rank": NEAREST}
        for term in reading.terms:
            for alternative in term.alternatives:
                found.setdefault(alternative, {"kind": "alt", "sure": False, "rank": NEAREST})
        for rank, neighbour in enumerate(bridge.neighbours(token, NEAREST)):
            spelled = lexicon.phrase(neighbour.key)
            if spelled:
                found.setdefault(spelled[0], {"kind": "near", "sure": False, "rank": rank})
        texts = [text for text in found if text]
        keys = [analyzed(text) for text in texts]
        twin = analyzed(query.term_en)
        rows = [{**found[text], "text": text, "key": key, "cos": cosine, "twin": key == twin, "rr": rr(text, query.qid),
                 "papers": (lexicon.phrase(key) or ("", 0))[1]}
                for text, key, cosine in zip(texts, keys, candidate_cosines(bridge, token, keys, texts))]
        terms.append({"zh": token, "half": term_half(query.term), "en_rr": rr(english[query.term].text, f"en-{query.term}"),
                      "candidates": rows})
    return terms


def add_features(terms: list[dict], data_dir: Path) -> None:
    lexicon, e5 = lexicon_for(data_dir), Encoder()
    texts = sorted({c["text"] for t in terms for c in t["candidates"]})
    as_query, as_passage = e5.encode_queries(texts), e5.encode_passages(texts)
    row = {text: at for at, text in enumerate(texts)}
    zh_e5 = e5.encode_queries([t["zh"] for t in terms])
    jieba.setLogLevel(logging.ERROR)
    words = sorted({w for t in terms for c in t["candidates"] for w in WORD.findall(c["text"].lower())})
    pieces = {t["zh"]: jieba.lcut(t["zh"]) for t in terms}
    word_vec = dict(zip(words, encode_texts(words)))
    all_pieces = sorted({p for ps in pieces.values() for p in ps})
    piece_vec = dict(zip(all_pieces, encode_texts(all_pieces)))
    for term, query in zip(terms, zh_e5):
        zh = term["zh"]
        subs = [(i, j, {w for key in lexicon.senses(zh[i:j]) for w in key.lstrip("~").split()})
                for i in range(len(zh)) for j in range(i + 1, min(len(zh), i + 6) + 1)]
        chars = max(1, len(CJK.findall(zh)))
        zp = np.array([piece_vec[p] for p in pieces[zh]])
        weights = np.array([len(p) for p in pieces[zh]], float) / len(zh)
        for c in term["candidates"]:
            key_words, covered, explained = c["key"].split(), set(), set()
            for i, j, senses in subs:
                hit = [w for w in key_words if w in senses]
                if hit:
                    covered.update(range(i, j))
                    explained.update(hit)
            ws = WORD.findall(c["text"].lower()) or ["?"]
            sims = zp @ np.array([word_vec.get(w, np.zeros(512)) for w in ws]).T
            recall, precision = float((sims.max(1) * weights).sum()), float(sims.max(0).mean())
            c["features"] = [c["cos"], float(as_query[row[c["text"]]] @ query), float(as_passage[row[c["text"]]] @ query),
                             math.log1p(c["papers"]), c["kind"] == "read", c["kind"] == "alt", c["sure"], c["rank"] / NEAREST,
                             len(covered) / chars, len(explained) / max(1, len(key_words)), len(key_words),
                             len(key_words) / chars, recall, precision, 2 * recall * precision / (recall + precision + 1e-9)]


def score(terms: list[dict], pick) -> tuple[float, float]:
    chosen = [pick(t) for t in terms]
    return sum(c["rr"] for c in chosen) / len(terms), sum(c["twin"] for c in chosen) / len(terms)


def todays_rule(term: dict) -> dict:
    read = next((c for c in term["candidates"] if c["kind"] == "read"), None)
    if read is not None and read["sure"]:
        return read
    pool = [c for c in term["candidates"] if c["kind"] != "near" or (c["rank"] < 5 and c["cos"] >= 0.3)]
    return max(pool, key=lambda c: c["cos"] + 0.05 * math.log1p(c["papers"]), default=NOTHING)


def main(data_dir: Path) -> None:
    terms = candidates(data_dir)
    add_features(terms, data_dir)
    halves = {half: [t for t in terms if t["half"] == half] for half in "AB"}
    for half, chosen in halves.items():
        en = sum(t["en_rr"] for t in chosen) / len(chosen)
        print(f"half {half}: en MRR@10 {en:.3f}; today's rule MRR@10 / twin chosen: {score(chosen, todays_rule)}")
    for train, test in (("A", "B"), ("B", "A")):
        x = np.array([c["features"] for t in halves[train] for c in t["candidates"]], float)
        y = [c["twin"] for t in halves[train] for c in t["candidates"]]
        model = LogisticRegression(max_iter=5000).fit(x, y)

        def learned(term: dict, model=model) -> dict:
            if not term["candidates"]:
                return NOTHING
            values = model.decision_function(np.array([c["features"] for c in term["candidates"]], float))
            return term["candidates"][int(np.argmax(values))]
        print(f"logistic regression trained on {train}, tested on {test}: MRR@10 / twin chosen {score(halves[test], learned)}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
