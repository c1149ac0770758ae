"""Synthetic corpora for scale tests: N papers in the corpus schema, made from a real one.

Why: the shared corpus has 44,693 papers; the questions of issue #20 (memory, segments,
phrase queries, disk per paper) only show at 1M and more. Copying the corpus 25 times would
keep its vocabulary fixed, which flatters every index (posting lists only get longer, the
term dictionary never grows). Real vocabularies keep growing with the text (Heaps' law:
distinct terms V = K * n^beta over n tokens, beta about 0.5-0.6), so the generator does too.

How a paper is made, all drawn from the seeded generator (same seed, same bytes):
- metadata (venue, year, status, track, area, subarea, keywords) from one real "donor"
  paper, so their joint distribution is the real one; the title-only share is the source's;
- the title is a real title with one content word swapped (so titles rarely repeat, which the
  store would merge as one paper), the abstract a real abstract's length in sentences, each
  sentence a real sentence picked from the whole pool (real sentences recombined);
- authors: the donor's author count; each name is a real name (drawn by its frequency)
  or, at the source's rate of one-paper authors, a real first name with a real surname;
- vocabulary: a Heaps curve through the source's end point (its tokens, its distinct terms)
  with exponent DEFAULT_BETA (0.55, mid-range for English text; the shared corpus in file
  order fits 0.48) is the target; whenever the distinct words emitted so far fall behind it, a content word of the sentence
  is replaced by a newly minted word form (a character-trigram chain trained on the source's
  words, so it reads like one: "regularistic", "transformerization"); earlier minted words
  come back with falling frequency (older words are commoner, as in real text).

Memory is the source corpus plus the minted vocabulary (which grows as n^beta: ~0.5 M words at
1 M papers), never the papers written: they stream to the gzip file.
"""

from __future__ import annotations

import bisect
import gzip
import math
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

import orjson

from papersift.ingest.jsonl import read_jsonl

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[$\\])")
_TERM = re.compile(r"[^\W_]+")
_CONTENT_WORD = re.compile(r"[A-Za-z]{4,}")
_WORD_FORM = re.compile(r"[a-z]{4,16}")
_STOP = frozenset([
    "this", "that", "with", "from", "have", "their", "which", "these", "those", "been", "were", "into",
    "than", "then", "also", "such", "only", "more", "most", "other", "over", "under", "both", "each",
    "when", "where", "while", "what", "there", "here", "they", "them", "does", "done", "show", "shows",
    "shown", "using", "used", "well", "many", "much", "very", "some", "given", "between", "paper",
    "propose", "proposed", "method", "methods", "results"
])
DEFAULT_BETA = 0.55
# minted words replace at most this share of a sentence's content words
_MAX_REPLACED_SHARE = 0.5


def terms_of(text: str) -> list[str]:
    """Lower-cased letter/digit runs: the unit distinct-vocabulary counts are measured in."""
    return _TERM.findall(text.lower())


@dataclass(frozen=True)
class HeapsFit:
    """V = K * n^beta, least squares in log-log over (tokens, distinct terms) points."""

    k: float
    beta: float

    def expected(self, tokens: int) -> float:
        return self.k * tokens ** self.beta

    @classmethod
    def of(cls, points: list[tuple[int, int]]) -> HeapsFit:
        usable = [(math.log(n), math.log(v)) for n, v in points if n > 0 and v > 0]
        if len(usable) < 2:
            raise ValueError("a Heaps fit needs at least two points")
        mean_x = sum(x for x, _ in usable) / len(usable)
        mean_y = sum(y for _, y in usable) / len(usable)
        sxx = sum((x - mean_x) ** 2 for x, _ in usable)
        sxy = sum((x - mean_x) * (y - mean_y) for x, y in usable)
        beta = sxy / sxx
        return cls(k=math.exp(mean_y - beta * mean_x), beta=beta)


class VocabularyCurve:
    """Distinct terms against tokens, sampled at geometrically spaced token counts."""

    def __init__(self, first_point: int = 1000, step: float = 1.25):
        self.seen: set[str] = set()
        self.tokens = 0
        self.points: list[tuple[int, int]] = []
        self._next, self._step = first_point, step

    def add(self, text: str) -> None:
        for term in terms_of(text):
            self.tokens += 1
            self.seen.add(term)
            if self.tokens >= self._next:
                self.points.append((self.tokens, len(self.seen)))
                self._next = int(self._next * self._step) + 1

    def fit(self, min_tokens: int | None = None) -> HeapsFit:
        """The fit over the points past `min_tokens` (default: past the first 10,000 tokens
        once there are over 100,000, where the curve has settled)."""
        if min_tokens is None:
            min_tokens = 10_000 if self.tokens > 100_000 else 0
        points = self.points + [(self.tokens, len(self.seen))]
        return HeapsFit.of([(n, v) for n, v in points if n >= min_tokens])


class WordMinter:
    """New word forms from a character-trigram chain over real words; never a real word, never twice."""

    def __init__(self, words: Iterable[str], rng: random.Random):
        self.rng = rng
        self.taken: set[str] = set()
        chain: dict[str, Counter] = {}
        lengths: list[int] = []
        for word in words:
            self.taken.add(word)
            lengths.append(len(word))
            padded = f"^^{word}$"
            for i in range(len(padded) - 2):
                chain.setdefault(padded[i:i + 2], Counter())[padded[i + 2]] += 1
        self.lengths = sorted(lengths)
        self.chain = {state: (list(next_chars), list(accumulate(next_chars.values())))
                      for state, next_chars in sorted(chain.items())}

    def mint(self) -> str:
        while True:
            word = self._walk()
            if word is not None and word not in self.taken:
                self.taken.add(word)
                return word

    def _walk(self) -> str | None:
        target = self.lengths[self.rng.randrange(len(self.lengths))]
        state, out = "^^", list[str]()
        while len(out) < 18:
            chars, weights = self.chain[state]
            char = chars[bisect.bisect_right(weights, self.rng.random() * weights[-1])]
            if char == "$":
                return "".join(out) if len(out) >= max(5, target - 2) else None
            out.append(char)
            state = state[1] + char
        return None


@dataclass
class _Sentence:
    text: str
    terms: tuple[str, ...]
    content_spans: tuple[tuple[int, int], ...]  # where a minted word may replace a real one


class SourceCorpus:
    """What the generator draws from, read once from a corpus file."""

    def __init__(self, paths: Iterable[Path], beta: float = DEFAULT_BETA):
        self.donors: list[dict] = []
        self.titles: list[str] = []
        self.sentences: list[_Sentence] = []
        self.sentence_counts: list[int] = []
        author_counts: Counter = Counter()
        curve = VocabularyCurve()
        paths = list(paths)
        for record in (record for path in paths for record in read_jsonl(path)):
            data = record.data
            if not data or not isinstance(data.get("title"), str):
                continue
            authors = [name for name in data.get("authors") or [] if isinstance(name, str) and name.strip()]
            author_counts.update(authors)
            abstract = data.get("abstract") if isinstance(data.get("abstract"), str) else None
            self.titles.append(data["title"])
            pieces = [piece.strip() for piece in _SENTENCE_END.split(abstract)] if abstract and len(abstract) >= 30 else []
            pieces = [piece for piece in pieces if piece]
            self.sentence_counts.append(len(pieces))
            for piece in pieces:
                spans = tuple(match.span() for match in _CONTENT_WORD.finditer(piece)
                              if match.group().lower() not in _STOP)
                self.sentences.append(_Sentence(piece, tuple(terms_of(piece)), spans))
            curve.add(f"{data['title']} {abstract or ''}")
            self.donors.append({key: data.get(key) for key in ("venue", "year", "status", "track", "area",
                                                               "subarea", "keywords", "tldr")}
                               | {"authors": len(authors)})
        if len(self.donors) < 2 or not self.sentences:
            raise ValueError(f"{', '.join(map(str, paths))}: too few papers with abstracts to draw from")
        self.vocabulary, self.tokens = curve.seen, curve.tokens
        self.source_heaps = curve.fit()
        # the target curve passes through the source's end point, so it carries on from it
        self.heaps = HeapsFit(k=len(curve.seen) / curve.tokens ** beta, beta=beta)
        self.author_names = list(author_counts)
        self.author_weights = list(accumulate(author_counts.values()))
        singles = sum(1 for count in author_counts.values() if count == 1)
        self.new_author_share = singles / max(1, sum(author_counts.values()))
        split_names = [name.split() for name in author_counts if len(name.split()) >= 2]
        self.first_names = [parts[0] for parts in split_names]
        self.surnames = [parts[-1] for parts in split_names]
        self.title_only_share = self.sentence_counts.count(0) / len(self.sentence_counts)
        self.abstract_lengths = [count for count in self.sentence_counts if count]


def synthesize(source: SourceCorpus, papers: int, seed: int = 0) -> Iterator[dict]:
    """`papers` records in the corpus schema, the same for the same source and seed."""
    rng = random.Random(seed)
    minter = WordMinter(sorted(word for word in source.vocabulary if _WORD_FORM.fullmatch(word)), rng)
    minted: list[str] = []
    seen_real: set[str] = set()
    used_sentences = bytearray(len(source.sentences))
    tokens = 0

    def vocabulary_deficit() -> int:
        return int(source.heaps.expected(max(tokens, 1))) - len(seen_real) - len(minted)

    def rewrite(sentence: _Sentence) -> str:
        nonlocal tokens
        tokens += len(sentence.terms)
        deficit = vocabulary_deficit()
        spans = sentence.content_spans
        if not spans or (deficit <= 0 and not minted):
            return sentence.text
        # new words when behind the curve, and reuse of minted words at a rate that grows with
        # their number (so minted words, like real rare words, recur)
        reuse = rng.random() < min(0.5, len(minted) / max(1.0, len(seen_real)))
        count = min(max(0, deficit) + (1 if reuse else 0), max(1, int(len(spans) * _MAX_REPLACED_SHARE)))
        if count <= 0:
            return sentence.text
        chosen = sorted(rng.sample(range(len(spans)), min(count, len(spans))))
        text, last, out = sentence.text, 0, []
        for position, index in enumerate(chosen):
            start, end = spans[index]
            if position < max(0, deficit):
                word = minter.mint()
                minted.append(word)
            else:  # an older minted word: index ~ u^2 favours the early (commoner) ones
                word = minted[int(len(minted) * rng.random() ** 2)]
            if text[start].isupper():
                word = word.capitalize()
            out.append(text[last:start])
            out.append(word)
            last = end
        out.append(text[last:])
        return "".join(out)

    for number in range(papers):
        donor = source.donors[rng.randrange(len(source.donors))]
        title = _varied_title(source, rng)
        tokens += len(terms_of(title))
        abstract = None
        if rng.random() >= source.title_only_share:
            length = source.abstract_lengths[rng.randrange(len(source.abstract_lengths))]
            parts = []
            for _ in range(length):
                index = rng.randrange(len(source.sentences))
                sentence = source.sentences[index]
                if not used_sentences[index]:
                    used_sentences[index] = 1
                    seen_real.update(sentence.terms)
                parts.append(rewrite(sentence))
            abstract = " ".join(parts)
        venue, year = donor["venue"], donor["year"]
        paper_id = f"{venue or 'SYN'}-{year or 0}-syn{seed}x{number:08d}"
        yield {
            "id": paper_id,
            "title": title,
            "authors": [_author(source, rng) for _ in range(donor["authors"])],
            "abstract": abstract,
            "venue": venue,
            "year": year,
            "area": donor["area"],
            "subarea": donor["subarea"],
            "keywords": list(donor["keywords"] or []),
            "url": f"https://papers.example.org/forum?id={paper_id}",
            "pdf": f"https://papers.example.org/pdf?id={paper_id}",
            "status": donor["status"],
            "track": donor["track"],
            "tldr": donor["tldr"],
            "source": f"synthetic:seed={seed}",
        }


def _varied_title(source: SourceCorpus, rng: random.Random) -> str:
    """A real title with one of its content words swapped for a content word of a random real
    sentence. Unchanged titles collide: the store merges papers of one venue, year and
    normalized title (the first 1 M file, made so, held 743,543 distinct papers)."""
    title = source.titles[rng.randrange(len(source.titles))]
    spans = [match.span() for match in _CONTENT_WORD.finditer(title) if match.group().lower() not in _STOP]
    donor = source.sentences[rng.randrange(len(source.sentences))]
    if not spans or not donor.content_spans:
        return title
    start, end = spans[rng.randrange(len(spans))]
    word_start, word_end = donor.content_spans[rng.randrange(len(donor.content_spans))]
    word = donor.text[word_start:word_end]
    word = word.capitalize() if title[start].isupper() else word.lower()
    return title[:start] + word + title[end:]


def _author(source: SourceCorpus, rng: random.Random) -> str:
    if rng.random() < source.new_author_share and source.first_names:
        first = source.first_names[rng.randrange(len(source.first_names))]
        return f"{first} {source.surnames[rng.randrange(len(source.surnames))]}"
    weights = source.author_weights
    return source.author_names[bisect.bisect_right(weights, rng.random() * weights[-1])]


def write_corpus(source_paths: list[Path], out: Path, papers: int, seed: int = 0, beta: float = DEFAULT_BETA,
                 on_progress: Callable[[int], None] | None = None) -> dict:
    """Write `papers` synthetic papers to `out` (gzipped when it ends in .gz; the gzip header
    carries no time, so the same seed gives the same bytes); written to a temp name and renamed
    when complete, so a killed run leaves no half file under the final name."""
    source = SourceCorpus(source_paths, beta)
    partial = out.with_name(out.name + ".partial")
    curve = VocabularyCurve()
    written = 0
    with open(partial, "wb") as raw:
        handle = gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0, compresslevel=6) if out.name.endswith(".gz") else raw
        try:
            for record in synthesize(source, papers, seed):
                handle.write(orjson.dumps(record) + b"\n")
                curve.add(f"{record['title']} {record['abstract'] or ''}")
                written += 1
                if on_progress and written % 50_000 == 0:
                    on_progress(written)
        finally:
            if handle is not raw:
                handle.close()
    partial.replace(out)
    fit = curve.fit()
    return {
        "papers": written, "seed": seed, "out": str(out), "bytes": out.stat().st_size,
        "source": [str(path) for path in source_paths], "source_papers": len(source.donors),
        "source_sentences": len(source.sentences), "source_tokens_distinct": len(source.vocabulary),
        "source_heaps_beta": round(source.source_heaps.beta, 4), "target_heaps_beta": round(source.heaps.beta, 4),
        "tokens": curve.tokens, "distinct_terms": len(curve.seen),
        "heaps_k": round(fit.k, 3), "heaps_beta": round(fit.beta, 4),
    }
