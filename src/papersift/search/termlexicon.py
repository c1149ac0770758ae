"""Chinese terms read as the English phrases papers use, by composition (the lexicon: index/termlexicon.py).

弱监督学习 has no dictionary entry, but its parts do: 弱 (weak), 监督 (supervise, control,
inspect), 学习 (learn, study). Each way of cutting the term into dictionary words and
choosing one sense per word composes an English key ("weak supervis learn"); the corpus's
phrase table says which of those keys papers use and how often, so the reading is the
composition papers use most, spelled as they spell it: "weakly supervised learning". The
stems make the morphology free (weak/weakly, supervise/supervised/supervision), the phrase
table makes the choice of sense: "graph" (induced for 图 from 图论, graph theory) composes
with "neural network", "diagram" does not.

A search keeps only compositions that are phrases at every step (a key whose prefix no
paper has cannot become one), so a term of a few words costs a few dozen lookups. The two
halves of a term may also read in the other order ("X 的 Y" is often "Y of X": the phrase
key drops "of"). A term no single phrase covers is cut into the fewest pieces that each read
as one (图神经网络过平滑 → "graph neural network" + "over-smoothing"). Latin words inside
a term take part as themselves ("Softmax函数" → "softmax function").
"""

from __future__ import annotations

import math
import os
import re
import sqlite3
import threading
from array import array
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import islice, product
from pathlib import Path

import marisa_trie
from rbloom import Bloom

from papersift.index.analyzers import CJK_RUN, has_cjk
from papersift.index.termlexicon import SECONDARY, lexicon_path
from papersift.index.termlexicon import analyzed as analyzed_once
from papersift.search.stages import stage

# The phrase key of an English text (index/termlexicon.analyzed: the analyzer's terms joined),
# remembered: a Chinese page asks for ~100 keys, mostly of the same few words (its senses, its
# readings' spellings), and tantivy's analyzer costs ~2 us a call.
analyzed = lru_cache(maxsize=1 << 16)(analyzed_once)

MAX_PIECE_CHARS = 6  # the longest dictionary word tried as one piece
MAX_CHUNK_CHARS = 10  # the longest stretch composed into one phrase
MAX_LOOKUPS = 4000  # phrase checks per query: a long pasted sentence stops composing rather than stall
# A part is composed by the walk from its start (every part that start begins at once,
# `_walk_parts`) while the read's budget holds at least this many checks; below it, alone, as one
# walk may cost more than is left and be wasted (a walk from a start cost p50 154, p90 596, at
# most 1,117 checks on the known-item zh dev descriptions, which run out of their 4,000).
WALK_FROM_START_MIN_LEFT = 1_200
ALTERNATIVES = 4
ALTERNATIVE_MARGIN = 4.0  # an alternative's score is at most this far below the reading's
# A reading's score: log(papers using it) less these for each less sure step. A sense that is
# one word of a longer one ("go over" -> "over") or induced, and each extra piece, must be
# made up for by many more papers ("over-smoothing" beats "too smooth"; "graph neural
# network" beats the more frequent but partial "graph neural").
SECONDARY_PENALTY = 2.0
PIECE_PENALTY = 1.0
SWAP_PENALTY = 1.0  # halves read the other way round: "passing graph neural networks" for 图神经网络过
# A reading composed of several words must be a phrase of at least this many papers: rarer
# ones are mostly chance sequences ("estimator for the dispersion" for 散度).
MIN_COMPOSED_PAPERS = 5
MEMO_SIZE = 100_000
READINGS_MEMO_SIZE = 10_000  # whole readings remembered per text (each a few hundred bytes)
# The phrase keys a server holds as a Bloom filter (`load_keys`): 94% of a reading's phrase
# checks are misses (zhterms dev: 430,000 of 457,000), each a SQLite query (~9 us at load 12)
# where the filter answers in well under a microsecond; a key it may hold goes to SQLite.
# 639,735 keys at this rate: ~1.2 MB.
KEYS_FALSE_POSITIVES = 0.001
# A reading at least this confident is shown as the reading; below it, as a guess ("maybe").
# The lowest threshold whose readings shown as sure are the English term for >= 90% of zhterms
# half A (`papersift bench zhterms`, the glossary of merge b3e8285): 0.65: 36 shown, 32 right
# (0.89); 0.75: 29, 26 (0.90- : 0.897); 0.8: 21, 20 (0.95). Half B confirms 0.8: 21, 19 (0.90).
# The glossary's confidences are its evidence summed (index/glossary_build.py), so this follows
# the glossary: re-measure when it changes.
SURE_CONFIDENCE = 0.8
# Confidence of a composition (docs/crosslingual.md: on zhterms half A a sure composition was
# the English term for 63 of 92 terms; a less sure one far less often).
COMPOSED_SURE_CONFIDENCE = 0.5
COMPOSED_UNSURE_CONFIDENCE = 0.3
NAME_SOURCE = "name"
# Characters that join rather than name ("数据驱动的决策"): a composition may pass over them.
LINKING_CHARACTERS = frozenset("的之和与及或")
_TOKEN = re.compile(r"\S+")
_PART = re.compile(f"({CJK_RUN.pattern})")


@dataclass(frozen=True, slots=True)
class TermReading:
    """One Chinese term of a query and the English phrase it was read as."""

    chinese: str
    english: str  # "" when no part of it could be read
    alternatives: tuple[str, ...] = ()  # other readings considered, best first
    papers: int = 0  # papers using `english` (for the reading of one phrase)
    # Read from dictionary senses as they are, in order: no word taken out of a longer sense,
    # no induced sense, no halves swapped. A less sure reading gives way to the term bridge
    # when there is one (hybrid mode; search/crosslingual.py).
    sure: bool = True
    # How likely `english` is the term papers use, 0-1 (search/crosslingual.py READING_SOURCES):
    # a reading below SURE_CONFIDENCE is shown as a guess ("maybe"), not as the reading.
    confidence: float = 0.0
    source: str = "composition"  # glossary, name, composition, neighbours, bridge, chosen

    @property
    def shown_sure(self) -> bool:
        return bool(self.english) and self.confidence >= SURE_CONFIDENCE


@dataclass(frozen=True, slots=True)
class QueryReading:
    """A query with its Chinese terms read in English; Latin words kept as typed."""

    text: str
    english: str
    terms: tuple[TermReading, ...]
    # For a long description, the dictionary senses of its words searched beside the reading
    # (search/crosslingual.py): a term query is searched as read, a paragraph by all it may say.
    extra: str = ""

    @property
    def authors(self) -> tuple[str, ...]:
        """Names of people the query names (read from Chinese, search/zhnames.py): filters, not words."""
        return tuple(term.english for term in self.terms if term.source == NAME_SOURCE and term.english)

    @property
    def shown_sure(self) -> bool:
        """Whether every term's reading is sure enough to be shown as the reading."""
        return bool(self.terms) and all(term.shown_sure for term in self.terms)

    @property
    def searched(self) -> str:
        """The English words searched: the reading, then the extra words."""
        return f"{self.english} {self.extra}".strip()

    def with_choice(self, chinese: str, english: str) -> QueryReading:
        """The same query with one term read another way (a reader picked an alternative)."""
        terms = tuple(TermReading(term.chinese, english, term.alternatives, term.papers, term.sure, 1.0, "chosen")
                      if term.chinese == chinese else term for term in self.terms)
        return QueryReading(self.text, english_text(self.text, searched_words(terms)), terms, self.extra)


@dataclass(frozen=True, slots=True)
class _Composed:
    key: str
    papers: int
    pieces: int
    secondary: int = 0
    swapped: bool = False

    @property
    def score(self) -> float:
        return (math.log1p(self.papers) - SECONDARY_PENALTY * self.secondary - PIECE_PENALTY * (self.pieces - 1)
                - SWAP_PENALTY * self.swapped)


_UNKNOWN = object()


class _Budget:
    """The phrase checks one `read` may still make (MAX_LOOKUPS at the start), and the parts it
    has composed so far (a part composed twice in one read is charged once)."""

    __slots__ = ("left", "parts")

    def __init__(self, left: int):
        self.left = left
        self.parts: dict[tuple, list[_Composed]] = {}


class TermLexicon:
    """Read-only view of the lexicon file; lookups are remembered (the file is small, queries
    share most words). Thread-safe: one connection per thread.

    A reading depends on its text alone, never on what was read before: what is remembered
    across reads (phrases, senses, the compositions of a run of characters with the phrase
    checks they cost) is charged to a read's budget as if it were checked again, so a read
    that runs out of checks stops where a fresh process would. Hence whole readings are
    remembered per text too (READINGS_MEMO_SIZE): the reading of a term asked again, or read
    again by the next step of a query's reading (search/crosslingual.py reads a token up to
    four times), costs a dictionary look-up."""

    def __init__(self, path: Path):
        self.path = path
        self._local = threading.local()
        self._senses: dict[str, tuple[str, ...]] = {}
        self._phrases: dict[str, tuple[str, int] | None] = {}
        # a run of units -> (its compositions, the phrase checks composing it cost); only
        # compositions that did not run out of checks
        self._compositions: dict[tuple, tuple[list[_Composed], int]] = {}
        self._readings: dict[str, QueryReading | None] = {}
        self._keys: Bloom | None = None  # every phrase key, once load_keys ran
        # every phrase key exactly (marisa-trie: key -> id) and its papers (by id), once load_keys ran
        self._phrase_ids: marisa_trie.Trie | None = None
        self._phrase_papers: array | None = None
        self._headwords: Bloom | None = None  # every sense headword, once load_keys ran
        # every key that starts a longer phrase key, as far as a whole word ("graph" and "graph neural" of
        # "graph neural network"), once load_keys ran: the walk extends no other key by any sense, so a key
        # not among them needs none of its senses checked (_extensions; a third of the walk's keys on the
        # zhterms dev terms; the shared corpus's 153,850 of them: ~0.1 s more at start, 0.3 MB)
        self._continued: Bloom | None = None
        self._extended: dict[tuple[str, tuple[str, ...]], tuple[int, tuple]] = {}  # see _extensions
        self._windows: dict[tuple, tuple[tuple[int, tuple[str, ...]], ...]] = {}  # see _words
        self._key_forms: dict[str, tuple[str, ...]] = {}  # see _forms

    @classmethod
    def open(cls, data_dir: str | os.PathLike) -> TermLexicon | None:
        path = lexicon_path(data_dir)
        return cls(path) if path.exists() else None

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = sqlite3.connect(f"{self.path.as_uri()}?mode=ro&immutable=1", uri=True,
                                                  check_same_thread=False)
        return db

    @cached_property
    def chinese_papers(self) -> int:
        """Papers with Chinese text when the lexicon was built (-1: not counted); read once (the
        file is immutable: `papersift index` replaces it, and lexicon_for opens the new one)."""
        row = self._db().execute("SELECT value FROM meta WHERE name = 'chinese_papers'").fetchone()
        return int(row[0]) if row else -1

    @cached_property
    def papers_total(self) -> int:
        """Papers the phrase table was counted over (what its paper counts are a share of)."""
        row = self._db().execute("SELECT value FROM meta WHERE name = 'papers_total'").fetchone()
        return int(row[0]) if row else 0

    def senses(self, word: str) -> tuple[str, ...]:
        """Phrase keys of the word's senses that papers use (empty: no such headword), each
        followed by its word's other forms papers use (`_forms`: 贝叶斯 "Bayes", then "Bayesian")."""
        found = self._senses.get(word)
        if found is None:
            headwords = self._headwords
            if headwords is not None and word not in headwords:
                return ()  # surely no headword (the walk tries every 1-6 characters: most are none)
            row = self._db().execute("SELECT keys FROM sense WHERE headword = ?", (word,)).fetchone()
            keys = tuple(row[0].split("\t")) if row else ()
            found = self._senses[word] = tuple(dict.fromkeys(
                form for key in keys for form in (key, *self._forms(key))))
        return found

    def _forms(self, key: str) -> tuple[str, ...]:
        """The other forms of a one-word dictionary sense that papers use as a word:
        the adjective of a name or noun ("bayes" → "bayesian", "category" → "categorical") and the
        noun of a participle ("reduced" → "reduction"), which the stemmer keeps apart. The phrase
        table then says which form a composition takes, as it chooses among senses: "bayesian
        optimization" (327 papers), not "bayes optimal" (89)."""
        # a dictionary sense as it is, not a word of a longer one or an induced one (those are
        # guesses already: their forms only cost phrase checks, which a long description runs out of)
        if not key or key.startswith(SECONDARY) or " " in key:
            return ()
        known = self._key_forms.get(key)  # remembered per key: headwords share their senses' words
        if known is not None:
            return known
        spelled = self.phrase(key)
        found = []
        for form in word_forms(spelled[0].lower()) if spelled is not None else ():
            other = analyzed(form)
            if other and other != key and " " not in other and self.papers(other):
                found.append(other)
        if len(self._key_forms) >= MEMO_SIZE:
            self._key_forms.clear()
        known = self._key_forms[key] = tuple(dict.fromkeys(found))
        return known

    def phrase(self, key: str) -> tuple[str, int] | None:
        """(spelling, papers) of a phrase key papers use, else None."""
        remembered = self._phrases.get(key, _UNKNOWN)  # one look: another thread may clear the memo
        if remembered is not _UNKNOWN:
            return remembered  # type: ignore[return-value]
        keys = self._keys
        if keys is not None and key not in keys:
            return None  # surely no phrase (a Bloom filter has no false negatives)
        ids = self._phrase_ids
        if ids is not None and key not in ids:
            found = None  # the filter's false positive: no phrase, and no query
        else:
            row = self._db().execute("SELECT surface, papers FROM phrase WHERE key = ?", (key,)).fetchone()
            found = (row[0], row[1]) if row else None
        if len(self._phrases) >= MEMO_SIZE:
            self._phrases.clear()
        self._phrases[key] = found
        return found

    def papers(self, key: str) -> int:
        """Papers using a phrase key (0: no phrase papers use): phrase()'s count without its
        spelling, which the walk needs only for the readings it keeps. With the keys held
        (load_keys), from memory: the Bloom filter rules out most keys, the exact key table
        answers the rest, with no SQLite query (the walk checks ~900 keys a term, ~40 of them
        phrases)."""
        keys = self._keys
        if keys is not None and key not in keys:
            return 0
        ids = self._phrase_ids
        if ids is not None:
            found = ids.get(key)
            return self._phrase_papers[found] if found is not None else 0  # type: ignore[index]
        spelled = self.phrase(key)
        return spelled[1] if spelled is not None else 0

    def load_keys(self) -> None:
        """Hold every phrase key and every sense headword in memory (Bloom filters), so that
        phrase checks and headword look-ups that miss, most of them, need no SQLite query: a
        server does this at start (~0.8 s for 640,000 keys at load 12; the 133,409 headwords of
        the shared corpus's lexicon add ~0.1 s and 0.24 MB at load 5), a one-query process (the CLI) does
        not. A 20-40-character description's reading looks up ~100 strings no headword is
        (known-item zh dev: 96 a query, ~0.7 ms of its ~16 ms). The phrase keys are also held
        exactly with their paper counts (a marisa trie and an array: ~1.2 s more at start, 4.5 MB held),
        so that the walk's checks of keys that are phrases need no SQLite query either (`papers`)."""
        if self._phrase_ids is None:  # streamed from SQLite: no list of 640,000 rows held at once
            starts: set[str] = set()  # every key that starts a longer one (see _continued), noted on the way

            def keys_noting_starts():
                for (key,) in self._db().execute("SELECT key FROM phrase"):
                    yield key
                    start = key
                    while " " in start:
                        start = start.rpartition(" ")[0]
                        if start in starts:  # and so are its own starts
                            break
                        starts.add(start)

            ids = marisa_trie.Trie(keys_noting_starts())
            counts = array("i", bytes(4 * len(ids)))
            keys = Bloom(max(len(ids), 1), KEYS_FALSE_POSITIVES)
            for key, papers in self._db().execute("SELECT key, papers FROM phrase"):
                counts[ids[key]] = papers
                keys.add(key)
            continued = Bloom(max(len(starts), 1), KEYS_FALSE_POSITIVES)
            continued.update(starts)
            self._keys, self._phrase_papers, self._continued, self._phrase_ids = keys, counts, continued, ids
        if self._headwords is None:
            self._headwords = self._bloom("sense", "headword")

    def _bloom(self, table: str, column: str) -> Bloom:
        (count,) = self._db().execute(f"SELECT COUNT(*) FROM {table}").fetchone()
        held = Bloom(max(int(count), 1), KEYS_FALSE_POSITIVES)
        held.update(value for (value,) in self._db().execute(f"SELECT {column} FROM {table}"))
        return held

    # -- reading a query ------------------------------------------------------------
    def read(self, text: str) -> QueryReading | None:
        """The query's Chinese terms in English (None without CJK)."""
        if not has_cjk(text):
            return None
        found = self._readings.get(text)
        if found is not None:
            return found
        with stage("reading.lexicon"):
            budget = _Budget(MAX_LOOKUPS)
            terms = []
            for token in dict.fromkeys(_TOKEN.findall(text)):
                if has_cjk(token):
                    terms.extend(self._read_token(token, budget))
            found = QueryReading(text, english_text(text, searched_words(terms)), tuple(terms))
        if len(self._readings) >= READINGS_MEMO_SIZE:
            self._readings.clear()
        self._readings[text] = found
        return found

    def _read_token(self, token: str, budget: _Budget) -> list[TermReading]:
        """A whitespace-free token (Chinese with Latin words in it): one reading when one phrase
        covers it, else one per piece of the fewest-pieces cover."""
        units = _units(token)
        best_cover = self._cover(units, budget)
        readings = []
        for start, end, options in best_cover:
            chinese = "".join(unit for unit, _ in units[start:end])
            if not options:
                readings.append(TermReading(chinese, ""))
                continue
            best = options[0]
            names: list[str] = []  # the reading and its alternatives, spelled, each once
            for option in options:
                if option is best or _worth_offering(option, best):
                    spelled = self.phrase(option.key)  # the spelling: a query each, so only as many as are kept
                    if spelled is not None and spelled[0] not in names:
                        names.append(spelled[0])
                        if len(names) > ALTERNATIVES:
                            break
            sure = not best.secondary and not best.swapped
            readings.append(TermReading(chinese, names[0], tuple(names[1:ALTERNATIVES + 1]), best.papers, sure=sure,
                                        confidence=COMPOSED_SURE_CONFIDENCE if sure else COMPOSED_UNSURE_CONFIDENCE))
        return readings

    def _cover(self, units: list[tuple[str, str | None]], budget: _Budget):
        """The fewest chunks (then the most used phrases) covering the units; characters no
        chunk reads are left as unread chunks of their own."""
        n = len(units)
        whole = self._whole_cover(units, budget)
        if whole is not None:
            return whole
        # best[i]: (unread characters, chunks, -sum log papers, cover) for units[:i]
        best: list[tuple | None] = [None] * (n + 1)
        best[0] = (0, 0, 0.0, [])
        for end in range(1, n + 1):
            for start in range(max(0, end - MAX_CHUNK_CHARS), end):
                reached = best[start]
                if reached is None:
                    continue
                unread, chunks, cost, cover = reached
                if end - start == 1 and n > 1 and units[start][1] is None:
                    # one character read alone, inside a longer term, is mostly noise ("前" -> "present"):
                    # composed (a part the others are made of, its checks charged) but not ranked
                    self._in_order(units, start, end, budget)
                    options = []
                else:
                    options = self._compose(units, start, end, budget)
                if options:
                    candidate = (unread, chunks + 1, cost - options[0].score, [*cover, (start, end, options)])
                elif end - start == 1:
                    candidate = (unread + 1, chunks + 1, cost, [*cover, (start, end, [])])
                else:
                    continue
                current = best[end]
                if current is None or candidate[:3] < current[:3]:
                    best[end] = candidate
        covered = best[n]  # always reached: a character can be left unread
        return _merge_unread(covered[3] if covered is not None else [])

    def _whole_cover(self, units: list[tuple[str, str | None]], budget: _Budget) -> list | None:
        """The cover `_cover` finds when the whole token reads as one phrase, without composing
        its other chunks: no cover of two or more chunks can beat one chunk with no character
        unread. Taken only when the budget holds every check `_cover` would make (each part's
        walk, each chunk's swapped pairs), which it then charges, so the read and the next
        token's are what `_cover` makes of them; None otherwise (`_cover` composes every chunk)."""
        n = len(units)
        if not 1 < n <= MAX_CHUNK_CHARS or budget.left <= 0:
            return None
        walked: dict[tuple, tuple[list[_Composed], int]] = {}
        for start in range(n):
            for end in range(start + 1, n + 1):
                part = tuple(units[start:end])
                known = self._compositions.get(part)
                if known is None:
                    known = self._walk_parts(tuple(units[start:])).get(part)
                if known is None:
                    return None
                walked[part] = known
        total = sum(cost for part, (_, cost) in walked.items() if part not in budget.parts)
        for start in range(n):
            for end in range(start + 2, n + 1):
                for split in range(start + 1, end):
                    rights = len(walked[tuple(units[split:end])][0])
                    if rights:
                        total += rights * len(walked[tuple(units[start:split])][0])
        if total > budget.left:
            return None
        scratch = _Budget(total)
        scratch.parts = {part: found for part, (found, _) in walked.items()}
        options = self._compose(units, 0, n, scratch)
        if not options:
            return None
        budget.left -= total
        budget.parts.update(scratch.parts)
        return [(0, n, options)]

    def _compose(self, units: list[tuple[str, str | None]], start: int, end: int,
                 budget: _Budget) -> list[_Composed]:
        """Readings of units[start:end] as one phrase, most used first."""
        found: dict[str, _Composed] = {}
        for composed in self._in_order(units, start, end, budget):
            _keep(found, composed)
        keys, papers = self._keys, self.papers
        for split in range(start + 1, end):  # the two halves the other way round
            rights = self._in_order(units, split, end, budget)
            if not rights:
                continue
            lefts = self._in_order(units, start, split, budget)
            # each pair (right, left) in turn is one phrase check: the budget pays for the first
            # ones it can, the rest are refused (as checking them one at a time would)
            checked = min(len(rights) * len(lefts), budget.left)
            budget.left -= checked
            pairs = ((right, left, f"{right.key} {left.key}") for right, left in islice(product(rights, lefts), checked))
            for right, left, key in [pair for pair in pairs if pair[2] in keys] if keys is not None else pairs:
                count = papers(key)
                if count >= MIN_COMPOSED_PAPERS:
                    _keep(found, _Composed(key, count, left.pieces + right.pieces,
                                           left.secondary + right.secondary, swapped=True))
        return sorted(found.values(), key=_rank)

    def _in_order(self, units, start: int, end: int, budget: _Budget) -> list[_Composed]:
        part = tuple(units[start:end])
        found = budget.parts.get(part)
        if found is not None:
            return found
        remembered = self._compositions.get(part)
        if remembered is None and budget.left >= WALK_FROM_START_MIN_LEFT:
            remembered = self._walk_parts(tuple(units[start:min(len(units), start + MAX_CHUNK_CHARS)])).get(part)
        if remembered is not None and remembered[1] <= budget.left:
            found, cost = remembered
            budget.left -= cost  # as if checked again: the read stops where a fresh one would
        else:
            before = budget.left
            found = _compose_in_order(self, part, budget)
            if budget.left > 0:  # never refused a check: complete, the same for any later read
                if len(self._compositions) > MEMO_SIZE:
                    self._compositions.clear()
                self._compositions[part] = (found, before - budget.left)
        budget.parts[part] = found
        return found

    def _walk_parts(self, units: tuple) -> dict[tuple, tuple[list[_Composed], int]]:
        """The compositions of every part that starts the units (units[:1], units[:2], ...) and
        the phrase checks each part's own walk makes, from one walk (`_compose_from`), remembered
        per part as `_in_order` remembers a part walked alone."""
        by_end, checks = _compose_from(self, units)
        parts = {}
        spent = 0
        for end in range(1, len(units) + 1):
            spent += checks[end]
            parts[units[:end]] = (sorted(by_end[end].values(), key=_rank), spent)
        if len(self._compositions) + len(parts) > MEMO_SIZE:
            self._compositions.clear()
        self._compositions.update(parts)
        return parts

    def _extensions(self, key: str, senses: tuple[str, ...]) -> tuple[int, tuple[tuple[int, str | None, bool, int], ...]]:
        """What extending `key` by each of `senses` in turn finds: (the number of phrase checks,
        the steps), a step being (checks before it, the longer key, whether the sense is less
        sure, the papers using the longer key) for a sense whose longer key is a phrase, or
        (checks before it, None, False, 0) for an empty sense (a linking character, passed over
        without a check)."""
        memo_key = (key, senses)
        found = self._extended.get(memo_key)
        keys, ids, counts, continued = self._keys, self._phrase_ids, self._phrase_papers, self._continued
        if found is None and keys is not None and ids is not None and counts is not None and "" not in senses:
            # the keys held (a server): each sense is a check, in turn; the filter rules out most
            # longer keys in one pass, the exact key table answers the rest (a key holds no
            # leading or trailing space: "" + sense is the sense's key, as f"{key} {sense}".strip());
            # a key that starts no phrase key is extended by none of them
            steps = []
            if not key or continued is None or key in continued:
                prefix = f"{key} " if key else ""
                for at, sense in enumerate(senses):
                    longer = prefix + sense.lstrip(SECONDARY)
                    if longer in keys and (row := ids.get(longer)) is not None:
                        steps.append((at, longer, sense[0] == SECONDARY, counts[row]))
            found = (len(senses), tuple(steps))
            if len(self._extended) >= MEMO_SIZE:
                self._extended.clear()
            self._extended[memo_key] = found
        elif found is None:
            walked: list[tuple[int, str | None, bool, int]] = []
            checks = 0
            for sense in senses:
                if not sense:
                    walked.append((checks, None, False, 0))
                    continue
                longer = f"{key} {sense.lstrip(SECONDARY)}".strip()
                papers = self.papers(longer)
                if papers:
                    walked.append((checks, longer, sense.startswith(SECONDARY), papers))
                checks += 1
            found = (checks, tuple(walked))
            if len(self._extended) >= MEMO_SIZE:
                self._extended.clear()
            self._extended[memo_key] = found
        return found

    def _pieces(self, units, at: int) -> list[tuple[int, tuple[str, ...]]]:
        """(end, sense keys) of every dictionary word (or Latin word) starting at `at`."""
        return [(at + length, senses) for length, senses in self._words(units[at:at + MAX_PIECE_CHARS])]

    def _words(self, window: tuple) -> tuple[tuple[int, tuple[str, ...]], ...]:
        """(length in units, sense keys) of every dictionary word (or Latin word) that starts a window of
        units, remembered per window: the walk asks again at each position of every part of a
        term (~200 times a dev term), a string's senses never change."""
        found = self._windows.get(window)
        if found is None:
            found = self._windows[window] = tuple(self._read_words(window))
            if len(self._windows) > MEMO_SIZE:
                self._windows.clear()
        return found

    def _read_words(self, window: tuple):
        unit, latin_key = window[0]
        if latin_key is not None:
            yield 1, (latin_key,)
            return
        text = ""
        if unit in LINKING_CHARACTERS:  # passed over, never read on its own ("的" is no "target")
            yield 1, ("",)
            return
        for end, (unit, latin_key) in enumerate(window):
            if latin_key is not None:
                break
            text += unit
            senses = self.senses(text)
            if senses:
                yield end + 1, senses


def _compose_in_order(lexicon: TermLexicon, units: tuple, budget: _Budget) -> list[_Composed]:
    """Compositions of all the units in order (depth first, a phrase at every step), each phrase
    check charged to the budget as it is made (a check refused once the budget is spent fails)."""
    return sorted(_compose_from(lexicon, units, budget)[0][len(units)].values(), key=_rank)


def _compose_from(lexicon: TermLexicon, units: tuple,
                  budget: _Budget | None = None) -> tuple[list[dict[str, _Composed]], list[int]]:
    """The compositions of each part that starts the units, units[:end] for every end (key ->
    composition), from one depth-first walk (a phrase at every step), and the phrase checks of
    the words ending at each end. The walk of a part alone visits the same keys at the positions before its end and
    checks the words that end by it, so its compositions are this walk's at that end and its
    checks those of the words ending at or before it; one walk spares the walks of the shorter
    parts, each of which repeats the longer one's first steps. With a `budget`, each check is
    charged as it is made and refused once it is spent (what `_in_order` does for a read whose
    budget is short: the walk of that part alone)."""
    n = len(units)
    found: list[dict[str, _Composed]] = [{} for _ in range(n + 1)]
    checks_ending = [0] * (n + 1)
    windows: list[tuple | None] = [None] * n  # the words at each position, looked up once a walk
    extended = lexicon._extended

    def extend(at: int, key: str, count: int, pieces: int, secondary: int) -> None:
        # the part units[:at] composed: a phrase papers use (one word, or a composed phrase enough papers use)
        if count and (pieces == 1 or count >= MIN_COMPOSED_PAPERS):
            _keep(found[at], _Composed(key, count, pieces, secondary))
        if at == n:
            return
        words = windows[at]
        if words is None:
            words = windows[at] = lexicon._words(units[at:at + MAX_PIECE_CHARS])
        for length, senses in words:
            end = at + length
            # each sense is one phrase check of `key` + the sense, in order; the checks' answers
            # are remembered per (key, senses), so only the few that extend are walked
            checks, steps = extended.get((key, senses)) or lexicon._extensions(key, senses)
            checks_ending[end] += checks
            if budget is None:
                for _, longer, less_sure, papers in steps:
                    if longer is None:  # a linking character: passed over, no check
                        extend(end, key, count, pieces, secondary)
                    else:
                        extend(end, longer, papers, pieces + 1, secondary + less_sure)
                continue
            charged = 0
            for before, longer, less_sure, papers in steps:
                if before > charged:  # the failed checks before this step
                    budget.left = max(0, budget.left - (before - charged))
                    charged = before
                if longer is None:
                    extend(end, key, count, pieces, secondary)
                    continue
                charged += 1
                if budget.left > 0:
                    budget.left -= 1
                    extend(end, longer, papers, pieces + 1, secondary + less_sure)
            if checks > charged:
                budget.left = max(0, budget.left - (checks - charged))

    extend(0, "", 0, 0, 0)
    return found, checks_ending


def _worth_offering(option: _Composed, best: _Composed) -> bool:
    """An alternative shown to the reader: not far below the best reading, and spelled by
    papers without words between its own ("networks with small" is a chance sequence)."""
    return option.score >= best.score - ALTERNATIVE_MARGIN and option.papers >= MIN_COMPOSED_PAPERS


def _rank(composed: _Composed) -> tuple:
    """Fewest less sure steps first, then the score: a dictionary's own sense ("stationary
    point" for 驻点) beats a word of it ("point"), however many more papers use the word
    (zhterms keyword half A: 0.373 ranking by score alone, 0.395 this way)."""
    # halves read the other way round are as unsure as an induced sense: "neural network maps"
    # (9 papers) must not beat "graph neural networks" (690) for 图神经网络
    return (composed.secondary + composed.swapped, -composed.score, composed.key)


def _keep(found: dict[str, _Composed], composed: _Composed) -> None:
    """Keep the best scored composition of each key."""
    if composed.key not in found or composed.score > found[composed.key].score:
        found[composed.key] = composed


def _merge_unread(cover: list) -> list:
    """Neighbouring unread characters as one unread chunk."""
    merged: list = []
    for start, end, options in cover:
        if merged and not options and not merged[-1][2] and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end, [])
        else:
            merged.append((start, end, options))
    return merged


def _units(token: str) -> list[tuple[str, str | None]]:
    """A token's characters (CJK, each a unit with key None) and Latin words (one unit each,
    with their phrase key)."""
    units: list[tuple[str, str | None]] = []
    for part in _PART.split(token):
        if not part:
            continue
        if CJK_RUN.fullmatch(part):
            units.extend((character, None) for character in part)
        else:
            for word in re.findall(r"[A-Za-z0-9][A-Za-z0-9\-]*", part):
                key = analyzed(word)
                if key:
                    units.append((word, key))
    return units


# Suffixes that make an adjective of a noun or name, and a noun of a participle: (ending taken
# off, ending put on). A form is a candidate only when papers use it as a word (`_forms`).
FORM_SUFFIXES = (("", "ian"), ("", "ean"), ("", "ic"), ("", "al"), ("", "ical"), ("e", "ian"), ("y", "ical"),
                 ("y", "ic"), ("ed", "tion"), ("ed", "ion"))


def word_forms(word: str) -> list[str]:
    """Candidate other forms of one English word (FORM_SUFFIXES); most are no word at all."""
    if not word.isalpha() or len(word) < 3:
        return []
    # the phrase table spells a word as papers most often do, often a plural ("categories")
    bases = dict.fromkeys([word, word[:-3] + "y" if word.endswith("ies") else word[:-1] if word.endswith("s")
                           and not word.endswith("ss") else word])
    return list(dict.fromkeys(base[: len(base) - len(off)] + on for base in bases
                              for off, on in FORM_SUFFIXES if base.endswith(off)))


def searched_words(terms) -> dict[str, str]:
    """Each term's English words for `english_text`: a name is a filter, not words to search."""
    return {term.chinese: "" if term.source == NAME_SOURCE else term.english for term in terms}


def english_text(text: str, readings: dict[str, str]) -> str:
    """The query with each read term in English (unread ones dropped), Latin tokens kept."""
    words = []
    for token in _TOKEN.findall(text):
        if not has_cjk(token):
            words.append(token)
            continue
        rest = token
        for chinese, english in sorted(readings.items(), key=lambda item: -len(item[0])):
            if chinese and chinese in rest:
                rest = rest.replace(chinese, f" {english} " if english else " ")
        words.append(" ".join(CJK_RUN.sub(" ", rest).split()))
    return " ".join(word for word in words if word)


@lru_cache(maxsize=8)
def open_lexicon(path: str, mtime_ns: int) -> TermLexicon:
    return TermLexicon(Path(path))


def warm_up(data_dir: str | os.PathLike) -> None:
    """Open the data dir's lexicon and hold its phrase keys in memory (a server, at start)."""
    lexicon = lexicon_for(data_dir)
    if lexicon is not None:
        lexicon.load_keys()


def lexicon_for(data_dir: str | os.PathLike) -> TermLexicon | None:
    """The data dir's lexicon (reopened when `papersift index` replaced it), None if not built."""
    path = lexicon_path(data_dir)
    try:
        mtime = path.stat().st_mtime_ns
    except FileNotFoundError:
        return None
    return open_lexicon(str(path), mtime)
