"""Build the vendored bilingual glossary from fetched sources (`papersift glossary build`).

Reads the candidate pairs of every source in a manifest (ingest/glossary_sources.py), drops a
source that is a copy of the reference terms (the no-copy rule: one holding more than half of
the reference pairs verbatim is the benchmark's source or derived from it), weighs each
(Chinese, English) pair's evidence and writes the glossary file (search/glossary.py reads it)
and its NOTICE. Evidence, each optional but the sources:

- how the sources give the pair: a term list or a marked term ("*感受野*（receptive field）")
  is surer than a translated heading or list item, and that than a term in running text,
  whose Chinese start is a guess; and how many independent sources agree;
- the corpus: how many papers use the English phrase (the term lexicon's phrase table);
- the multilingual model: where the English term ranks among every English term of the
  build by its e5 cosine with the Chinese term.

The confidence adds these up (CONFIDENCE_* below); a pair is kept at KEEP_CONFIDENCE or more.
Deterministic: the same sources and evidence give byte-identical files.
"""

from __future__ import annotations

import gzip
import io
import re
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from papersift.index.glossary_align import unit_rows
from papersift.ingest.glossary_sources import (
    DICTIONARY,
    DICTIONARY_GENERAL,
    DICTIONARY_READERS,
    GLOSSED,
    LISTED,
    MARKED,
    PARALLEL,
    PROSE,
    TRANSLATED,
    Candidate,
    DocumentPair,
    Source,
    check_licence,
    english_key,
    has_documents,
    is_acronym,
    normalize_zh,
    read_pairs,
    read_source,
)

GLOSSARY_FILE = "glossary.tsv.gz"
NOTICE_FILE = "GLOSSARY-NOTICE.md"
HEADER = ("zh", "en", "sources", "confidence")
COPY_SHARE = 0.5  # a source holding more than this share of the reference pairs verbatim is a copy

# a translated unit (a heading, a list item: "梯度" / "Gradient") is sure of both ends, but a
# heading is not always a term: between a gloss and a marked term
# a dictionary's sense: one of the many senses a general dictionary lists for a word, a guess
# like running text (0.4 at first, lowered to 0.3 with the rule below after measuring half A of the
# zhterms dev terms: as cut points, 0.6+, dictionary-only pairs broke phrases the composition read
# whole); any other sense of it only counts where another source agrees
CONFIDENCE_BY_HOW = {LISTED: 0.6, MARKED: 0.55, TRANSLATED: 0.45, GLOSSED: 0.4, PROSE: 0.3, PARALLEL: 0.3,
                     DICTIONARY: 0.3, DICTIONARY_GENERAL: 0.3}
# a guessed start, an alignment, a dictionary's sense: need more evidence to be kept
UNSURE_HOWS = frozenset({PROSE, PARALLEL, DICTIONARY, DICTIONARY_GENERAL})
DICTIONARY_HOWS = frozenset({DICTIONARY, DICTIONARY_GENERAL})
CONFIDENCE_PER_SOURCE = 0.15  # each further source that gives the pair (up to two)
CONFIDENCE_SECOND_HOW = 0.05  # the same source gives it two ways (listed and marked)
CONFIDENCE_ACRONYM = -0.1  # "CNN" for 卷积神经网络: an alternative, the full term first
# papers using the English phrase -> confidence added (a phrase no 2 papers use: CORPUS_NONE)
CORPUS_STEPS = ((20, 0.15), (5, 0.1), (2, 0.05))
CORPUS_NONE = -0.2
# the English term's rank among all English terms by cosine with the Chinese term -> added
MODEL_STEPS = ((3, 0.1), (20, 0.05))
MODEL_FAR_RANK, MODEL_FAR = 100, -0.1
KEEP_CONFIDENCE = 0.35
AGREE_RANK = 20  # a pair only running text gives needs the model to rank its English this near


@dataclass(frozen=True)
class Pair:
    zh: str
    en: str  # the spelling most sources use
    sources: tuple[str, ...]
    hows: tuple[str, ...]
    source_hows: tuple[tuple[str, str], ...] = ()  # (source, how) of each reading that gave it
    papers: int | None = None  # papers using the English phrase; None: not measured
    model_rank: int | None = None  # None: not measured
    confidence: float = 0.0


@dataclass
class BuildReport:
    candidates: dict[str, int] = field(default_factory=dict)  # source -> candidate pairs read
    dropped_sources: dict[str, str] = field(default_factory=dict)  # source -> why
    copy_share: dict[str, float] = field(default_factory=dict)  # source -> share of reference pairs held
    kept: list[Pair] = field(default_factory=list)
    rejected: list[Pair] = field(default_factory=list)
    commits: dict[str, str] = field(default_factory=dict)
    paths: dict[str, list[str]] = field(default_factory=dict)  # source -> files that gave pairs

    def per_source(self) -> dict[str, int]:
        counts: Counter[str] = Counter(source for pair in self.kept for source in pair.sources)
        return dict(sorted(counts.items()))


def merge_key(en: str) -> str:
    """Spellings of one English term merge: case, hyphens and a plural last word ignored."""
    words = english_key(en).split()
    last = words[-1] if words else ""
    if len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is")):
        words[-1] = last[:-1]
    return " ".join(words)


def copy_shares(candidates: Iterable[Candidate], reference: set[tuple[str, str]]) -> dict[str, float]:
    """Source -> share of the reference pairs (zh, english_key(en)) it holds verbatim."""
    held: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for candidate in candidates:
        pair = (candidate.zh, english_key(candidate.en))
        if pair in reference:
            held[candidate.source].add(pair)
    return {source: len(pairs) / len(reference) for source, pairs in held.items()} if reference else {}


def group_pairs(candidates: Iterable[Candidate]) -> list[Pair]:
    """One Pair per (zh, merge key): its sources, how they give it, and the most used spelling."""
    spellings: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    sources: dict[tuple[str, str], dict[str, None]] = defaultdict(dict)
    hows: dict[tuple[str, str], dict[str, None]] = defaultdict(dict)
    source_hows: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    for candidate in candidates:
        key = (candidate.zh, merge_key(candidate.en))
        spellings[key][candidate.en] += 1
        sources[key][candidate.source] = None
        hows[key][candidate.how] = None
        source_hows[key].add((candidate.source, candidate.how))
    pairs = []
    for key in sorted(spellings):
        # most used spelling; a tie goes to the shorter (singular), then the lower-case one
        en = min(spellings[key].items(), key=lambda item: (-item[1], len(item[0]), item[0].swapcase()))[0]
        pairs.append(Pair(key[0], en, tuple(sorted(sources[key])), tuple(how for how in CONFIDENCE_BY_HOW if how in hows[key]),
                          tuple(sorted(source_hows[key]))))
    return pairs


def independent_sources(pair: Pair, sources_of: Callable[[str], str] = lambda key: key) -> int:
    """How many independent sources give a pair: the works (repositories) that state it, and the
    alignment of documents in both languages as one more (one inference over all the documents,
    whichever sources they come from), unless only works already counted gave it that way."""
    stated = {sources_of(source) for source, how in pair.source_hows if how != PARALLEL}
    aligned = {sources_of(source) for source, how in pair.source_hows if how == PARALLEL}
    if not pair.source_hows:  # a pair built by hand (tests): each source counts
        return len({sources_of(source) for source in pair.sources})
    return len(stated) + (1 if aligned - stated else 0)


def confidence(pair: Pair, sources_of: Callable[[str], str] = lambda key: key) -> float:
    """The evidence of a pair added up, in 0..1 (see the module's CONFIDENCE_* constants)."""
    score = max(CONFIDENCE_BY_HOW[how] for how in pair.hows)
    # a dictionary's agreement lets a pair be kept (keep) but adds no confidence: dictionaries never
    # make a reading sure (half A: the readings shown as sure went from 31 of 33 right to 43 of 50)
    texts = tuple(item for item in pair.source_hows if item[1] not in DICTIONARY_HOWS)
    counted = independent_sources(Pair(**{**pair.__dict__, "source_hows": texts}), sources_of) \
        if texts or not pair.source_hows else 1
    score += CONFIDENCE_PER_SOURCE * min(counted - 1, 2)
    if LISTED in pair.hows and MARKED in pair.hows:
        score += CONFIDENCE_SECOND_HOW
    if all(is_acronym(word) for word in pair.en.split()):
        score += CONFIDENCE_ACRONYM
    if pair.papers is not None:
        score += next((bonus for least, bonus in CORPUS_STEPS if pair.papers >= least), CORPUS_NONE)
    if pair.model_rank is not None:
        score += next((bonus for most, bonus in MODEL_STEPS if pair.model_rank <= most),
                      MODEL_FAR if pair.model_rank > MODEL_FAR_RANK else 0.0)
    return round(min(max(score, 0.0), 1.0), 3)


def keep(pair: Pair, sources_of: Callable[[str], str] = lambda key: key) -> bool:
    """Whether the evidence holds: the confidence reaches KEEP_CONFIDENCE, and a pair that only
    running text or an alignment gives has two independent sources, or papers using its English
    and the model's agreement."""
    if pair.confidence < KEEP_CONFIDENCE:
        return False
    if not set(pair.hows) <= UNSURE_HOWS or independent_sources(pair, sources_of) >= 2:
        return True
    return (pair.papers or 0) >= 2 and pair.model_rank is not None and pair.model_rank <= AGREE_RANK


def lexicon_papers(lexicon: Path) -> Callable[[str], int | None]:
    """English term -> papers using it, from a data dir's term lexicon (1-4 word phrases in 2+
    papers; 0 for a shorter phrase it lacks, None for one longer than it counts)."""
    from papersift.index.phrasecounts import MAX_PHRASE_WORDS
    from papersift.index.termlexicon import analyzed

    db = sqlite3.connect(f"file:{lexicon}?mode=ro", uri=True)

    def papers(en: str) -> int | None:
        key = analyzed(en)
        if not key or len(key.split()) > MAX_PHRASE_WORDS:
            return None
        row = db.execute("SELECT papers FROM phrase WHERE key = ?", (key,)).fetchone()
        return int(row[0]) if row else 0

    return papers


def model_ranks(pairs: Sequence[Pair], encode: Callable[[list[str]], np.ndarray]) -> list[int]:
    """For each pair, the rank (1 = nearest) of its English term among every English term of
    the pairs by cosine with its Chinese term. `encode` gives unit vectors (e5 queries)."""
    english = sorted({pair.en for pair in pairs})
    chinese = sorted({pair.zh for pair in pairs})
    en_at = {text: at for at, text in enumerate(english)}
    zh_at = {text: at for at, text in enumerate(chinese)}
    en_vectors = unit_rows(encode(english))
    zh_vectors = unit_rows(encode(chinese))
    ranks = [0] * len(pairs)
    rows_of: dict[int, list[int]] = defaultdict(list)  # a Chinese term -> its pairs
    for at, pair in enumerate(pairs):
        rows_of[zh_at[pair.zh]].append(at)
    chinese_rows = sorted(rows_of)
    for start in range(0, len(chinese_rows), 512):  # one matrix product per block of Chinese terms
        block = chinese_rows[start:start + 512]
        scores = zh_vectors[block] @ en_vectors.T
        for row, zh_row in zip(scores, block):
            for at in rows_of[zh_row]:
                ranks[at] = int((row > row[en_at[pairs[at].en]]).sum()) + 1
    return ranks


def reference_pairs(path: Path) -> set[tuple[str, str]]:
    """The (zh, english_key(en)) pairs of a term benchmark's queries (JSON lines with
    term_zh / term_en): what the no-copy rule checks each source against."""
    import orjson

    pairs = set()
    with path.open("rb") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = orjson.loads(line)
                pairs.add((normalize_zh(row["term_zh"]), english_key(row["term_en"])))
            except (orjson.JSONDecodeError, KeyError, TypeError):
                raise ValueError(f"{path}:{number}: expected a JSON object with term_zh and term_en") from None
    return pairs


def resolve_prose(candidates: Sequence[Candidate], encode: Callable[[list[str]], np.ndarray] | None = None
                  ) -> list[Candidate]:
    """Where each running-text term starts: the longest of its possible starts that a term list
    or a marked term of any source gives with the same English, else (with a model) the one
    nearest its English, else the longest. A start another source gives with another English is
    a part of the term, not its start: 神经网络 "neural network" in 物理信息神经网络（physics-informed
    neural networks）; but an acronym (MDP) takes the longest start given with any English."""
    sure: dict[str, set[str]] = defaultdict(set)
    for candidate in candidates:
        if candidate.how != PROSE:
            sure[candidate.zh].add(merge_key(candidate.en))

    def known(candidate: Candidate) -> str | None:
        starts = (candidate.zh, *candidate.options)
        same = next((start for start in starts if merge_key(candidate.en) in sure.get(start, ())), None)
        if same is None and all(is_acronym(word) for word in candidate.en.split()):
            # an acronym is not the English another source gives in full: 马尔可夫决策过程（MDP）
            return next((start for start in starts if start in sure), None)
        return same

    unsure = [candidate for candidate in candidates
              if candidate.how == PROSE and candidate.options and known(candidate) is None]
    nearest: dict[tuple[str, str], str] = {}
    if encode is not None and unsure:
        texts = sorted({text for candidate in unsure for text in (candidate.en, candidate.zh, *candidate.options)})
        vectors = dict(zip(texts, unit_rows(encode(texts))))
        for candidate in unsure:
            starts = (candidate.zh, *candidate.options)
            scores = [float(vectors[start] @ vectors[candidate.en]) for start in starts]
            nearest[(candidate.zh, candidate.en)] = starts[int(np.argmax(scores))]
    resolved = []
    for candidate in candidates:
        if candidate.how == PROSE and candidate.options:
            zh = known(candidate) or nearest.get((candidate.zh, candidate.en), candidate.zh)
            resolved.append(Candidate(zh, candidate.en, candidate.source, candidate.how, candidate.path))
        else:
            resolved.append(candidate)
    return resolved


def remembered(encode: Callable[[list[str]], np.ndarray]) -> Callable[[list[str]], np.ndarray]:
    """`encode` that embeds each text once per build (the steps ask for many of the same texts)."""
    vectors: dict[str, np.ndarray] = {}

    def encode_once(texts: list[str]) -> np.ndarray:
        new = sorted({text for text in texts if text not in vectors})
        if new:
            vectors.update(zip(new, encode(new)))
        return np.array([vectors[text] for text in texts])

    return encode_once


def build(sources: Sequence[Source], reference: set[tuple[str, str]], *,
          papers: Callable[[str], int | None] | None = None,
          encode: Callable[[list[str]], np.ndarray] | None = None,
          phrases: dict[str, str] | None = None,
          align_encode: Callable[[list[str]], np.ndarray] | None = None,
          converter: Callable[[str], str] | None = None,
          log: Callable[[str], None] = lambda _: None) -> BuildReport:
    """Read, check and weigh every source's pairs (nothing written: see write). Documents in
    both languages are aligned only given corpus phrases and an encoder to align with
    (`align_encode`, USE-m3 in the CLI; `encode`, e5, gives the model evidence)."""
    from papersift.index.glossary_align import align

    report = BuildReport()
    candidates: list[Candidate] = []
    encode = remembered(encode) if encode is not None else None
    by_key = {source.key: source for source in sources}
    documents: list[DocumentPair] = []
    copy_only: list[Candidate] = []  # dictionary senses held back (agreement only): for the no-copy rule
    for source in sources:
        check_licence(source)
        read, held_back = [], 0
        for candidate in read_source(source, converter):
            held_back += candidate.how == DICTIONARY_GENERAL
            if candidate.how != DICTIONARY_GENERAL:
                read.append(candidate)
            elif (candidate.zh, english_key(candidate.en)) in reference:
                copy_only.append(candidate)
        if has_documents(source):
            if align_encode is None or phrases is None:
                log(f"{source.key}: documents in both languages not aligned (needs the corpus phrases and an encoder)")
            else:
                documents.extend(read_pairs(source, by_key, converter))
        report.commits[source.key] = source.tree().commit
        report.candidates[source.key] = len(read) + held_back
        report.paths[source.key] = sorted({candidate.path for candidate in read})
        log(f"{source.key}: {len(read):,} candidate pairs from {len(report.paths[source.key])} files")
        candidates.extend(read)
    if documents and align_encode is not None and phrases is not None:
        aligned = align(documents, phrases, align_encode, log)
        for key in sorted({candidate.source for candidate in aligned}):
            report.candidates[key] = report.candidates.get(key, 0) + sum(candidate.source == key for candidate in aligned)
            report.paths[key] = sorted({*report.paths.get(key, []), *(c.path for c in aligned if c.source == key)})
        candidates.extend(aligned)
    report.copy_share = copy_shares([*candidates, *copy_only], reference)
    for key, share in report.copy_share.items():
        if share > COPY_SHARE:
            report.dropped_sources[key] = (f"holds {share:.0%} of the reference pairs verbatim "
                                           f"(more than {COPY_SHARE:.0%}): treated as a copy")
            log(f"{key}: dropped, {report.dropped_sources[key]}")
    kept = [candidate for candidate in candidates if candidate.source not in report.dropped_sources]
    resolved = resolve_prose(kept, encode)
    resolved += agreeing_senses(sources, resolved, report, converter)
    pairs = group_pairs(resolved)
    repo_of = {source.key: source.repo for source in sources}
    if papers is not None:
        pairs = [Pair(**{**pair.__dict__, "papers": papers(pair.en)}) for pair in pairs]
    # a dictionary's sense that nothing else gives and papers do not use cannot be kept (keep):
    # weighed without the model, which it would only crowd
    unused = [pair for pair in pairs if set(pair.hows) <= DICTIONARY_HOWS and (pair.papers or 0) < 2
              and independent_sources(pair, lambda key: repo_of.get(key, key)) < 2]
    if unused:
        dropped = {(pair.zh, pair.en) for pair in unused}
        report.rejected.extend(Pair(**{**pair.__dict__, "confidence": confidence(pair)}) for pair in unused)
        pairs = [pair for pair in pairs if (pair.zh, pair.en) not in dropped]
        log(f"dictionary senses no other source gives and under 2 papers use: {len(unused):,} passed over")
    if encode is not None and pairs:
        pairs = [Pair(**{**pair.__dict__, "model_rank": rank}) for pair, rank in zip(pairs, model_ranks(pairs, encode))]
    for pair in pairs:
        weighed = Pair(**{**pair.__dict__, "confidence": confidence(pair, lambda key: repo_of.get(key, key))})
        (report.kept if keep(weighed, lambda key: repo_of.get(key, key)) else report.rejected).append(weighed)
    log(f"glossary: {len(report.kept):,} pairs kept ({len({pair.zh for pair in report.kept}):,} Chinese terms), "
        f"{len(report.rejected):,} rejected")
    return report


def agreeing_senses(sources: Sequence[Source], resolved: Sequence[Candidate], report: BuildReport,
                    converter: Callable[[str], str] | None = None) -> list[Candidate]:
    """The general senses of the dictionary sources (DICTIONARY_GENERAL: no technical tag) that
    another work gives too: read again (a dictionary holds about a million), each kept only when
    its (Chinese, English) pair is among another work's resolved candidates (a general sense of
    another dictionary is no such agreement; its tagged sense is)."""
    repo_of = {source.key: source.repo for source in sources}
    readers = [source for source in sources if source.key not in report.dropped_sources
               and any(reading.reader in DICTIONARY_READERS for reading in source.readings)]
    if not readers:
        return []
    given: dict[tuple[str, str], set[str]] = defaultdict(set)
    for candidate in resolved:
        if candidate.how != DICTIONARY_GENERAL:
            given[(candidate.zh, merge_key(candidate.en))].add(repo_of.get(candidate.source, candidate.source))
    agreeing = [candidate for source in readers for candidate in read_source(source, converter)
                if candidate.how == DICTIONARY_GENERAL
                and given.get((candidate.zh, merge_key(candidate.en)), set()) - {source.repo}]
    return agreeing


def glossary_bytes(pairs: Sequence[Pair]) -> bytes:
    """The glossary file: gzip TSV (HEADER), by Chinese term then best first; no timestamp in
    the gzip header, so equal pairs give equal bytes."""
    rows = sorted(pairs, key=lambda pair: (pair.zh, -pair.confidence, pair.en))
    text = "\t".join(HEADER) + "\n" + "".join(
        f"{pair.zh}\t{pair.en}\t{','.join(pair.sources)}\t{pair.confidence:.3f}\n" for pair in rows)
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=9) as handle:
        handle.write(text.encode("utf-8"))
    return buffer.getvalue()


@dataclass(frozen=True)
class TermFigures:
    terms: int  # reference terms
    covered: int  # terms with an entry
    right: int  # covered terms whose best entry's English is the term's (or a form papers use)
    sure: int  # covered terms whose best entry is sure (confidence >= SURE_CONFIDENCE)
    sure_right: int

    @property
    def coverage(self) -> float:
        return self.covered / self.terms if self.terms else 0.0

    @property
    def precision(self) -> float:
        return self.right / self.covered if self.covered else 0.0

    @property
    def sure_precision(self) -> float:
        return self.sure_right / self.sure if self.sure else 0.0


SURE_CONFIDENCE = 0.7


def term_figures(best: Callable[[str], tuple[str, float] | None], reference: Iterable[tuple[str, str]]) -> TermFigures:
    """Coverage and precision of a glossary on reference term pairs (zh, en): `best` gives a
    Chinese term's best English and its confidence. A measurement only: the build never reads
    the reference but for the no-copy rule."""
    terms = covered = right = sure = sure_right = 0
    for zh, en in reference:
        terms += 1
        found = best(zh)
        if found is None:
            continue
        covered += 1
        correct = merge_key(found[0]) == merge_key(en)
        right += correct
        if found[1] >= SURE_CONFIDENCE:
            sure += 1
            sure_right += correct
    return TermFigures(terms, covered, right, sure, sure_right)


def notice_text(sources: Sequence[Source], report: BuildReport) -> str:
    """GLOSSARY-NOTICE.md: every source used, with its repository, commit, files, licence and URL."""
    per_source = report.per_source()
    lines = [
        "# Sources of the bilingual term glossary (glossary.tsv.gz)",
        "",
        "Written by `papersift glossary build` (src/papersift/index/glossary_build.py); do not edit by hand.",
        "Each entry's `sources` column names the sources below that give it. The pairs are short",
        "term correspondences read from these works; their licences allow redistribution with attribution.",
        "",
    ]
    for source in sources:
        if source.key in report.dropped_sources:
            continue
        files = report.paths.get(source.key, [])
        lines += [
            f"## {source.key}",
            "",
            *([f"- work: {source.title}"] if source.title else []),
            f"- repository: {source.repo}",
            f"- url: {source.url}",
            f"- commit: {report.commits.get(source.key, source.commit) or 'unversioned'}",
            f"- licence: {source.licence} (licence file read: `{source.licence_file}`)",
            f"- read: {described_readings(source, sources)}",
            *([f"- note: {source.note}"] if source.note else []),
            f"- files that gave pairs: {len(files)} ({', '.join(files[:5])}{', …' if len(files) > 5 else ''})",
            f"- entries citing it: {per_source.get(source.key, 0)}",
            "",
        ]
    return "\n".join(lines)


def described_readings(source: Source, sources: Sequence[Source]) -> str:
    """What the build read of a source, for its NOTICE entry."""
    read = [reading.reader + " " + ", ".join(reading.paths) for reading in source.readings]
    twins_of = sorted({other.key for other in sources for reading in other.readings if reading.english_source == source.key})
    if twins_of:
        read.append(f"the English twins of {', '.join(twins_of)}'s documents (aligned; entries cite {', '.join(twins_of)})")
    return "; ".join(read)


def notice_sources(text: str) -> list[str]:
    """The source keys a NOTICE lists (its `## key` headings)."""
    return re.findall(r"^## (\S+)\s*$", text, flags=re.MULTILINE)


def write(out_dir: Path, sources: Sequence[Source], report: BuildReport) -> tuple[Path, Path]:
    """Write the glossary file and its NOTICE into out_dir (each written beside, then renamed)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in ((GLOSSARY_FILE, glossary_bytes(report.kept)),
                       (NOTICE_FILE, notice_text(sources, report).encode("utf-8"))):
        path = out_dir / name
        staging = path.with_name(f".{name}.building")
        staging.write_bytes(data)
        staging.replace(path)
        written.append(path)
    return written[0], written[1]
