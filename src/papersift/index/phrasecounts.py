"""The corpus's phrases and their paper counts, counted in bounded memory (index/termlexicon.py's
`phrase` table).

A plain count holds every paper's words and every distinct gram of a length in one Counter: at
743,543 papers that passed 7 GB and kept growing. Here the texts are read once and tokenized
to files in a work folder (word ids with -1 ending each clause, token offsets, the texts), and
each phrase length is counted in a pass over those files, a block of papers at a time, with
numpy:

- a gram of n words is coded by the ranks of its two (n-1)-word parts among the frequent
  (n-1)-grams (a gram is counted only when both parts are frequent), so any length is one int64;
- each block's (gram, papers) pairs are appended to hash partitions on disk, and each partition
  is summed alone: memory holds one block, one partition and the kept grams, whatever the
  corpus's size;
- a kept phrase's spelling is the most common of its first MAX_SURFACE_SAMPLES occurrences in
  corpus order (those without words between its words first); occurrences are reduced to a
  hash of their lowercased text per phrase, and the winner's text is read back at the end.

The counts and spellings are those of the plain count (tests/index/test_phrasecounts.py checks
them against one); figures in docs/scaling.md.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from array import array
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

import numpy as np

from papersift.index.analyzers import ENGLISH, has_cjk, tokens
from papersift.index.publish import remove_abandoned

MAX_PHRASE_WORDS = 4
MIN_PHRASE_PAPERS = 2  # a phrase in one paper only is as likely a one-off wording as a term
MAX_SURFACE_SAMPLES = 16  # spellings counted per phrase: the most common among these is kept
BLOCK_TOKENS = 2_000_000  # tokens (of whole papers) counted at a time: ~100 MB of numpy arrays
PARTITION_ROWS = 4_000_000  # spilled rows a partition is sized for: ~60 bytes a row while it is summed
WORK_PREFIX = ".phrasecounts."
_CLAUSE_BREAK = re.compile(r"[.,;:()\[\]{}!?\"]|\s-\s")
_WORD_BREAK = re.compile(r"[\s\-]+")
_HASH_MIX = np.uint64(0x9E3779B97F4A7C15)
_INT32 = np.dtype(np.int32)
_INT64 = np.dtype(np.int64)


def _clause_tokens(text: str):
    """(stem, start, end) of each clause's tokens, clause by clause."""
    offset = 0
    for clause in _CLAUSE_BREAK.split(text):
        found = tokens(clause, ENGLISH)
        base = text.find(clause, offset) if clause else offset
        offset = base + len(clause)
        if found:
            yield [(token.text, base + token.start, base + token.end) for token in found]


class _Spill:
    """Rows appended to hash partitions on disk, each read back and reduced alone."""

    def __init__(self, folder: Path, name: str, columns: dict[str, np.dtype], parts: int):
        self.columns, self.parts = columns, parts
        self.paths = [{column: folder / f"{name}.{part}.{column}" for column in columns} for part in range(parts)]
        for paths in self.paths:
            for path in paths.values():
                path.write_bytes(b"")

    def add(self, key: np.ndarray, **values: np.ndarray) -> None:
        """Rows partitioned by `key` (an int64 column, also stored under the first column's name)."""
        first = next(iter(self.columns))
        rows = {first: key, **values}
        if self.parts == 1:
            chosen = [np.ones(len(key), dtype=bool)]
        else:
            part = ((key.astype(np.uint64) * _HASH_MIX) >> np.uint64(33)) % np.uint64(self.parts)
            chosen = [part == index for index in range(self.parts)]
        for paths, mask in zip(self.paths, chosen):
            for column, path in paths.items():
                with open(path, "ab") as out:
                    rows[column][mask].astype(self.columns[column], copy=False).tofile(out)

    def read(self) -> Iterator[dict[str, np.ndarray]]:
        for paths in self.paths:
            yield {column: np.fromfile(path, dtype=self.columns[column]) for column, path in paths.items()}
            for path in paths.values():
                path.unlink()


def _runs(sorted_keys: np.ndarray) -> np.ndarray:
    """Where each run of equal keys starts."""
    if not len(sorted_keys):
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])))


@dataclass
class _Level:
    """The frequent grams of one length: sorted codes, their papers, their word ids."""

    codes: np.ndarray
    papers: np.ndarray
    words: np.ndarray  # (grams, length) word ids
    parent_size: int = 0  # how many frequent grams one shorter there were (the code's base)

    def ranks(self, shorter: np.ndarray) -> np.ndarray:
        """Each position's rank among these grams (or -1), from the shorter grams' ranks there."""
        found = np.full(len(shorter), -1, dtype=np.int32)
        at, code = _pairs(shorter, self.parent_size)
        if len(self.codes) and len(at):
            index = np.minimum(np.searchsorted(self.codes, code), len(self.codes) - 1)
            hit = self.codes[index] == code
            found[at[hit]] = index[hit]
        return found


def _pairs(shorter: np.ndarray, base: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions where a gram one word longer than `shorter`'s starts, and its code."""
    at = np.flatnonzero((shorter[:-1] >= 0) & (shorter[1:] >= 0))
    return at, shorter[at].astype(np.int64) * base + shorter[at + 1]


@dataclass
class CountedPhrases:
    """The corpus tokenized in a work folder, and what the passes over it found."""

    folder: Path
    block_tokens: int = BLOCK_TOKENS
    partition_rows: int = PARTITION_ROWS
    papers: int = 0
    chinese_papers: int = 0
    tokens: int = 0
    words: list[str] = field(default_factory=list)
    doc_ends: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # cumulative tokens
    text_ends: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # cumulative bytes
    levels: list[_Level] = field(default_factory=list)
    _word_ranks: np.ndarray | None = None

    def _file(self, name: str) -> Path:
        return self.folder / name

    def tokenize(self, texts: Iterable[str]) -> None:
        word_ids: dict[str, int] = {}
        words = self.words
        doc_ends, text_ends = array("q"), array("q")
        ids, starts, ends = array("i"), array("i"), array("i")
        written = text_bytes = 0
        with (open(self._file("ids"), "wb") as ids_out, open(self._file("starts"), "wb") as starts_out,
              open(self._file("ends"), "wb") as ends_out, open(self._file("texts"), "wb") as texts_out):
            for text in texts:
                self.papers += 1
                self.chinese_papers += has_cjk(text)
                for clause in _clause_tokens(text):
                    for stem, start, end in clause:
                        found = word_ids.get(stem)
                        if found is None:
                            found = word_ids[stem] = len(words)
                            words.append(stem)
                        ids.append(found)
                        starts.append(start)
                        ends.append(end)
                    ids.append(-1)
                    starts.append(0)
                    ends.append(0)
                encoded = text.encode("utf-8", "surrogatepass")
                texts_out.write(encoded)
                text_bytes += len(encoded)
                text_ends.append(text_bytes)
                doc_ends.append(written + len(ids))
                if len(ids) >= 1 << 16:  # written in 256 KB pieces
                    written += len(ids)
                    for values, out in ((ids, ids_out), (starts, starts_out), (ends, ends_out)):
                        values.tofile(out)
                        del values[:]
            written += len(ids)
            for values, out in ((ids, ids_out), (starts, starts_out), (ends, ends_out)):
                values.tofile(out)
        self.tokens = written
        self.doc_ends = np.frombuffer(doc_ends, dtype=np.int64) if doc_ends else np.zeros(0, dtype=np.int64)
        self.text_ends = np.frombuffer(text_ends, dtype=np.int64) if text_ends else np.zeros(0, dtype=np.int64)

    def blocks(self) -> Iterator[tuple[int, int, int, int]]:
        """(first paper, paper after the last, first token, token after the last), whole papers."""
        first_doc = first_token = 0
        while first_doc < self.papers:
            end_doc = int(np.searchsorted(self.doc_ends, first_token + self.block_tokens, side="right"))
            end_doc = max(end_doc, first_doc + 1)
            end_token = int(self.doc_ends[end_doc - 1])
            yield first_doc, end_doc, first_token, end_token
            first_doc, first_token = end_doc, end_token

    def read(self, name: str, first: int, end: int, dtype: np.dtype = _INT32) -> np.ndarray:
        return np.fromfile(self._file(name), dtype=dtype, count=end - first, offset=first * dtype.itemsize)

    def paper_of_token(self, first_doc: int, end_doc: int, first_token: int) -> np.ndarray:
        """Each token's paper, numbered from the block's first."""
        lengths = np.diff(self.doc_ends[first_doc:end_doc], prepend=first_token)
        return np.repeat(np.arange(end_doc - first_doc, dtype=np.int64), lengths)

    def block_texts(self, first_doc: int, end_doc: int) -> list[str]:
        start = int(self.text_ends[first_doc - 1]) if first_doc else 0
        ends = self.text_ends[first_doc:end_doc]
        with open(self._file("texts"), "rb") as source:
            source.seek(start)
            raw = source.read(int(ends[-1]) - start)
        bounds = [0, *(ends - start).tolist()]
        return [raw[a:b].decode("utf-8", "surrogatepass") for a, b in pairwise(bounds)]

    def ranks(self, level: int, first: int, end: int, shorter: np.ndarray | None = None) -> np.ndarray:
        """Each token's rank among the frequent grams of `level` words starting there, or -1:
        from the word ids (one word), from a file written by an earlier pass, or from the
        shorter grams' ranks (then written for the next pass)."""
        if level == 1:
            if self._word_ranks is None:
                self._word_ranks = np.full(len(self.words) + 1, -1, dtype=np.int32)  # [-1]: a clause break
                self._word_ranks[self.levels[0].words[:, 0]] = np.arange(len(self.levels[0].codes), dtype=np.int32)
            return self._word_ranks[self.read("ids", first, end)]
        name = f"ranks{level}"
        if shorter is None:
            return self.read(name, first, end)
        found = self.levels[level - 1].ranks(shorter)
        with open(self._file(name), "ab") as out:
            found.tofile(out)
        return found

    def count_words(self, min_papers: int) -> None:
        papers = np.zeros(len(self.words), dtype=np.int64)
        size = max(len(self.words), 1)
        for first_doc, end_doc, first, end in self.blocks():
            ids = self.read("ids", first, end)
            kept = ids >= 0
            pairs = np.unique(self.paper_of_token(first_doc, end_doc, first)[kept] * size + ids[kept])
            papers += np.bincount(pairs % size, minlength=len(self.words))
        frequent = np.flatnonzero(papers >= min_papers)
        self.levels.append(_Level(frequent.astype(np.int64), papers[frequent], frequent[:, None].astype(np.int32)))

    def count_grams(self, size: int, min_papers: int) -> bool:
        """Count the grams of `size` words whose parts are frequent; False when none is."""
        shorter = self.levels[-1]
        base = len(shorter.codes)
        parts = max(1, -(-self.tokens // self.partition_rows))
        spill = _Spill(self.folder, f"grams{size}", {"code": _INT64, "papers": _INT64}, parts)
        for first_doc, end_doc, first, end in self.blocks():
            ranks = self.ranks(1, first, end)
            for level in range(2, size):
                ranks = self.ranks(level, first, end, ranks if level == size - 1 else None)
            at, code = _pairs(ranks, base)
            paper = self.paper_of_token(first_doc, end_doc, first)[at]
            order = np.lexsort((code, paper))
            code, paper = code[order], paper[order]
            once = np.ones(len(code), dtype=bool)  # one per (paper, gram)
            once[1:] = (code[1:] != code[:-1]) | (paper[1:] != paper[:-1])
            codes, papers = np.unique(code[once], return_counts=True)
            spill.add(codes, papers=papers)
        kept_codes, kept_papers = [], []
        for rows in spill.read():
            order = np.argsort(rows["code"], kind="stable")
            codes, papers = rows["code"][order], rows["papers"][order]
            starts = _runs(codes)
            totals = np.add.reduceat(papers, starts) if len(starts) else papers[:0]
            frequent = totals >= min_papers
            kept_codes.append(codes[starts][frequent])
            kept_papers.append(totals[frequent])
        codes = np.concatenate(kept_codes)
        order = np.argsort(codes)
        codes, papers = codes[order], np.concatenate(kept_papers)[order]
        if not len(codes):
            return False
        words = np.concatenate([shorter.words[codes // base], shorter.words[codes % base][:, -1:]], axis=1)
        self.levels.append(_Level(codes, papers, words, base))
        return True

    def choose_spellings(self) -> np.ndarray:
        """Each kept gram's chosen spelling as the token where that occurrence starts (grams
        numbered level after level)."""
        offsets = np.cumsum([0, *(len(level.codes) for level in self.levels)])
        parts = max(1, -(-int(offsets[-1]) * MAX_SURFACE_SAMPLES // self.partition_rows))  # samples per gram: at most 16
        spill = _Spill(self.folder, "samples", {"gram": _INT64, "token": _INT64, "text": _INT64, "plain": np.dtype(np.int8)}, parts)
        taken = [np.zeros(len(level.codes), dtype=np.int64) for level in self.levels]
        for first_doc, end_doc, first, end in self.blocks():
            texts = self.block_texts(first_doc, end_doc)
            paper = self.paper_of_token(first_doc, end_doc, first)
            starts, ends = self.read("starts", first, end), self.read("ends", first, end)
            ranks = self.ranks(1, first, end)
            for index in range(len(self.levels)):
                size = index + 1
                if size > 1:  # the longest length's ranks were written by no pass: made from the shorter's
                    ranks = self.ranks(size, first, end) if size < len(self.levels) else self.levels[index].ranks(ranks)
                at = np.flatnonzero(ranks >= 0)
                order = np.argsort(ranks[at], kind="stable")  # by gram, in corpus order within one
                at, gram = at[order], ranks[at][order]
                runs = _runs(gram)
                lengths = np.diff(np.append(runs, len(gram)))
                rank = np.arange(len(gram)) - np.repeat(runs, lengths)
                sampled = taken[index][gram] + rank < MAX_SURFACE_SAMPLES
                taken[index][gram[runs]] += lengths
                at, gram = at[sampled], gram[sampled]
                text_hash = np.empty(len(at), dtype=np.int64)
                plain = np.empty(len(at), dtype=np.int8)
                for row, (token, paper_index) in enumerate(zip(at.tolist(), paper[at].tolist())):
                    spelling = texts[paper_index][starts[token]:ends[token + size - 1]].lower()
                    text_hash[row] = hash(spelling)
                    plain[row] = len(_WORD_BREAK.split(spelling)) == size
                spill.add(gram.astype(np.int64) + offsets[index], token=at + first, text=text_hash, plain=plain)
        chosen = np.zeros(int(offsets[-1]), dtype=np.int64)
        for rows in spill.read():
            # one row per (gram, spelling): how often, first where, plain or not
            order = np.lexsort((rows["token"], rows["text"], rows["gram"]))
            gram, text, token, plain = (rows[column][order] for column in ("gram", "text", "token", "plain"))
            starts = np.flatnonzero(np.concatenate(([True], (gram[1:] != gram[:-1]) | (text[1:] != text[:-1]))))
            counts = np.diff(np.append(starts, len(gram)))
            gram, token, plain = gram[starts], token[starts], plain[starts]
            # per gram: plain first, then the most common, then the first seen (Counter.most_common)
            order = np.lexsort((token, -counts, -plain.astype(np.int64), gram))
            best = _runs(gram[order])
            chosen[gram[order][best]] = token[order][best]
        return chosen

    def rows(self, min_papers: int, max_words: int,
             log: Callable[[str], None] = lambda _: None) -> Iterator[tuple[str, str, int]]:
        """(phrase key, spelling, papers) of every kept phrase, in corpus order of its spelling."""
        started = time.perf_counter()
        log(f"phrases: {self.papers:,} papers, {self.tokens:,} tokens, {len(self.words):,} words")
        self.count_words(min_papers)
        if not len(self.levels[0].codes):
            return
        for size in range(2, max_words + 1):
            log(f"phrases: {len(self.levels[-1].codes):,} of {size - 1} words ({time.perf_counter() - started:.0f} s)")
            if not self.count_grams(size, min_papers):
                break
        chosen = self.choose_spellings()
        log(f"phrases: spellings chosen ({time.perf_counter() - started:.0f} s)")
        sizes = np.concatenate([np.full(len(level.codes), index + 1) for index, level in enumerate(self.levels)])
        offsets = np.cumsum([0, *(len(level.codes) for level in self.levels)])
        order = np.argsort(chosen, kind="stable")
        in_order = chosen[order]
        words = self.words
        next_row = 0
        for first_doc, end_doc, first, end in self.blocks():
            stop = int(np.searchsorted(in_order, end))
            if stop == next_row:
                continue
            texts = self.block_texts(first_doc, end_doc)
            paper = self.paper_of_token(first_doc, end_doc, first)
            starts, ends = self.read("starts", first, end), self.read("ends", first, end)
            for gram in order[next_row:stop].tolist():
                token, size = int(chosen[gram]) - first, int(sizes[gram])
                level = self.levels[size - 1]
                rank = gram - int(offsets[size - 1])
                key = " ".join(words[word] for word in level.words[rank].tolist())
                yield key, texts[int(paper[token])][starts[token]:ends[token + size - 1]].lower(), int(level.papers[rank])
            next_row = stop


@contextmanager
def counted_phrases(texts: Iterable[str], work_dir: str | os.PathLike | None = None, block_tokens: int = BLOCK_TOKENS,
                    partition_rows: int = PARTITION_ROWS) -> Iterator[CountedPhrases]:
    """The texts tokenized into a work folder (in `work_dir`; removed on leaving), for `rows`.
    The folder holds ~4 GB at 743,543 papers: one a killed build left is removed by the next."""
    remove_abandoned(Path(work_dir or tempfile.gettempdir()), WORK_PREFIX)
    folder = Path(tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{os.getpid()}.", dir=work_dir))
    try:
        counted = CountedPhrases(folder, block_tokens, partition_rows)
        counted.tokenize(texts)
        yield counted
    finally:
        shutil.rmtree(folder, ignore_errors=True)
