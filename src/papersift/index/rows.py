"""The row store beside a tantivy generation: each indexed paper's record, id and facet keys.

Every tantivy document carries a `row` fast field. A hit's row locates, without
touching tantivy's compressed document store, the paper record (a JSON array in a
memory-mapped file), its id (a list kept in memory: 44K ids are ~3 MB) and the codes of
its facet keys, one per facet group (a numpy array, so facets over a few hundred rows are
one bincount; the groups are defined in index/facetkeys.py).

    rows.bin          concatenated rows, each a JSON array in PAPER_FIELDS order compressed by
                      zstd with rows.zstd-dict as its dictionary (append-only)
    rows.zstd-dict    the dictionary: trained on the first ZSTD_DICTIONARY_ROWS records of the
                      full build (fewer than zstd can train on: their last 32 KB as they are;
                      empty when it had none: rows are then plain zstd)
    rows.zdict        instead of rows.zstd-dict in a generation built before zstd: rows are zlib
                      with this preset dictionary, the build's first DICTIONARY_ROWS records (read
                      as they are, and an update of such a generation appends zlib rows)
    rows.offsets.npy  uint64 start of each row in rows.bin, plus the end
    rows.ids          paper id of each row, one per line
    rows.facets.npy   uint32 facet-key codes, one row per row, one column per facet group
    rows.keys.json    for each facet group, its facet keys by code

An update writes a new generation (index/publish.py): its rows.bin is a hard link to the
live one's, appended past the end the live offsets cover (a replaced paper gets a new row;
its old row is garbage until the next full build), and its small files are new. So the
live generation's rows never change under a reader, and a killed update's appended tail
is cut off by the next writer. Readers that meet a row past what they loaded reload.
"""

from __future__ import annotations

import mmap
import os
import threading
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np
import orjson
import zstandard

from papersift.index.facetkeys import FACET_POSITION, FACET_SEPARATOR
from papersift.index.publish import fault_point
from papersift.record import PAPER_FIELDS, Paper
from papersift.slotted import frozen_maker

# Where the publish-fault tests kill a writer (publish.fault_point), in order.
ROW_FAULT_STEPS = ("rows:bin-synced", "rows:keys", "rows:facets", "rows:ids", "rows:offsets")
BIN, OFFSETS, IDS, FACETS, KEYS = "rows.bin", "rows.offsets.npy", "rows.ids", "rows.facets.npy", "rows.keys.json"
ZDICT = "rows.zdict"
ZSTD_DICT = "rows.zstd-dict"
# zstd with a dictionary trained on the build's first records (zstandard's fastCover, fixed
# parameters: the same records give the same dictionary). Measured on 5,000 random rows of the
# full corpus (load ~13): zlib level 4 with its 32 KB preset dictionary 507 bytes a row, 6.8-9 us
# to inflate (whatever the dictionary size: 4-32 KB tried); zstd level 6 with a 32 KB dictionary
# trained on 2,000 records 464 bytes, 2.3-3 us to decode, ~22 us to compress (zlib ~35 us).
ZSTD_LEVEL = 6
ZSTD_DICTIONARY_ROWS = 2_000  # records a build holds back to train on (256: 476 bytes a row)
ZSTD_DICTIONARY_BYTES = 32 * 1024
# Rows are compressed one by one (a page reads 20 of them anywhere in the file), so each is
# small for zlib; a preset dictionary of typical records gives it the corpus's common strings
# (field values, URL prefixes, frequent words). Measured on 100 K synthetic papers: JSON 1,193
# bytes a row, zlib alone 673, zlib with this dictionary 442; on the shared corpus 1,174 -> 486.
DICTIONARY_ROWS = 256
DICTIONARY_BYTES = 32 * 1024  # zlib's window: only the last 32 KB of a dictionary is used
# Level 4, not zlib's default 6: on the shared corpus 511 bytes a row instead of 492 (+4%), and
# 1.57 s of CPU instead of 2.76 s to compress the 44,693 rows (quickstart's index build, before
# it serves; level 1: 560 bytes, 1.19 s). A row reads back alike at any level.
COMPRESS_LEVEL = 4
AUTHORS_AT, KEYWORDS_AT = PAPER_FIELDS.index("authors"), PAPER_FIELDS.index("keywords")
TUPLES_AT = tuple(PAPER_FIELDS.index(name) for name in ("authors", "keywords", "author_ids", "affiliations"))
SCHEMA3_AT = PAPER_FIELDS.index("author_ids")
SCHEMA3_DEFAULTS: list[object] = [[], [], None, None, None]  # rows written before store schema 3 lack these


def encode_paper(paper: Paper) -> bytes:
    return orjson.dumps([getattr(paper, name) for name in PAPER_FIELDS])


def _paper_of_values() -> Callable[[list], Paper]:
    """Paper(*values) for a full list of field values (PAPER_FIELDS' order), at about half of its
    cost (slotted.frozen_maker; a page decodes 20 records); Paper(*values) itself when Paper has
    a __post_init__ (none today), which the maker would skip."""
    made = frozen_maker(Paper, len(PAPER_FIELDS), from_list=True)
    return made if made is not None else (lambda values: Paper(*values))


paper_of_values = _paper_of_values()
_ROW_BEFORE_SCHEMA3 = len(PAPER_FIELDS) - len(SCHEMA3_DEFAULTS)  # fields a row written before store schema 3 has
_TUPLE_1, _TUPLE_2, _TUPLE_3, _TUPLE_4 = TUPLES_AT


def decode_paper(payload: bytes) -> Paper:
    values = orjson.loads(payload)
    if len(values) == _ROW_BEFORE_SCHEMA3:
        values[SCHEMA3_AT:SCHEMA3_AT] = SCHEMA3_DEFAULTS
    values[_TUPLE_1] = tuple(values[_TUPLE_1])  # JSON lists -> Paper's tuples (no loop: a page decodes 20)
    values[_TUPLE_2] = tuple(values[_TUPLE_2])
    values[_TUPLE_3] = tuple(values[_TUPLE_3])
    values[_TUPLE_4] = tuple(values[_TUPLE_4])
    return paper_of_values(values)


def pack_row(payload: bytes, zdict: bytes) -> bytes:
    compressor = zlib.compressobj(COMPRESS_LEVEL, zdict=zdict) if zdict else zlib.compressobj(COMPRESS_LEVEL)
    return compressor.compress(payload) + compressor.flush()


def unpack_row(packed: bytes, zdict: bytes) -> bytes:
    decompressor = zlib.decompressobj(zdict=zdict) if zdict else zlib.decompressobj()
    return decompressor.decompress(packed) + decompressor.flush()


class RowUnpacker:
    """unpack_row for many rows of one dictionary, at a fraction of its cost: the dictionary is
    loaded once into a decompressor that has read the rows' common zlib header (2 bytes, plus
    the dictionary's 4-byte id), and each row goes to a copy of it (zlib's inflateCopy) instead
    of a new decompressor that sets the 32 KB dictionary again. Full corpus, 20 random rows:
    0.32 -> 0.16 ms a page (load ~2). A row with another header (none is written so today)
    takes unpack_row."""

    def __init__(self, zdict: bytes):
        self.zdict = zdict
        self.header = pack_row(b"", zdict)[:6 if zdict else 2]
        self._primed = zlib.decompressobj(zdict=zdict) if zdict else zlib.decompressobj()
        if self._primed.decompress(self.header):  # a header yields no bytes, only the dictionary
            raise AssertionError("zlib header produced output")

    def unpack(self, records: mmap.mmap | bytes, start: int, end: int) -> bytes:
        header = self.header
        skip = len(header)
        if records[start:start + skip] != header:
            return unpack_row(records[start:end], self.zdict)
        decompressor = self._primed.copy()
        return decompressor.decompress(records[start + skip:end]) + decompressor.flush()

    def fresh(self, records: mmap.mmap | bytes, start: int, end: int) -> bytes:
        """A row with a new decompressor (that sets the dictionary again): the cost the bench compares."""
        return unpack_row(records[start:end], self.zdict)

    def unpack_rows(self, records: mmap.mmap | bytes, offsets: list[int], rows: list[int]) -> list[bytes]:
        return [self.unpack(records, offsets[row], offsets[row + 1]) for row in rows]


def zstd_dictionary(samples: list[bytes]) -> bytes:
    """A zstd dictionary for rows like these records: trained on them, or, when they are too few
    to train on, their last ZSTD_DICTIONARY_BYTES as they are (zstd reads such bytes as a raw
    content dictionary: a trained one starts with its magic number, a record with "["); b""
    without records."""
    if not samples:
        return b""
    try:
        trained = zstandard.train_dictionary(ZSTD_DICTIONARY_BYTES, cast("list[bytes | bytearray | memoryview]", samples),
                                             k=256, d=8)
        return trained.as_bytes()
    except zstandard.ZstdError:  # too few or too small records ("Src size is incorrect")
        return b"".join(samples)[-ZSTD_DICTIONARY_BYTES:]


def zstd_packer(dictionary: bytes) -> zstandard.ZstdCompressor:
    """The compressor of a row store's rows: one frame a row, with its size and no checksum or
    dictionary id (the generation names its dictionary)."""
    if not dictionary:
        return zstandard.ZstdCompressor(level=ZSTD_LEVEL, write_checksum=False, write_content_size=True)
    prepared = zstandard.ZstdCompressionDict(dictionary)
    prepared.precompute_compress(level=ZSTD_LEVEL)
    return zstandard.ZstdCompressor(level=ZSTD_LEVEL, dict_data=prepared, write_checksum=False,
                                    write_content_size=True, write_dict_id=False)


class ZstdUnpacker:
    """Rows of a zstd generation. A decompressor digests the dictionary once and is reused for
    every row; zstandard's are not for concurrent use, so each thread has its own."""

    def __init__(self, dictionary: bytes):
        self.dictionary = dictionary
        self._local = threading.local()

    def _new(self) -> zstandard.ZstdDecompressor:
        if not self.dictionary:
            return zstandard.ZstdDecompressor()
        return zstandard.ZstdDecompressor(dict_data=zstandard.ZstdCompressionDict(self.dictionary))

    def _decompressor(self) -> zstandard.ZstdDecompressor:
        decompressor = getattr(self._local, "decompressor", None)
        if decompressor is None:
            decompressor = self._local.decompressor = self._new()
        return decompressor

    def unpack(self, records: mmap.mmap | bytes, start: int, end: int) -> bytes:
        return self._decompressor().decompress(records[start:end])

    def unpack_rows(self, records: mmap.mmap | bytes, offsets: list[int], rows: list[int]) -> list[bytes]:
        """unpack of each row, with this thread's decompressor looked up once (a page reads 20)."""
        decompress = self._decompressor().decompress
        return [decompress(records[offsets[row]:offsets[row + 1]]) for row in rows]

    def fresh(self, records: mmap.mmap | bytes, start: int, end: int) -> bytes:
        """A row with a new decompressor (the dictionary digested again): the cost the bench compares."""
        return self._new().decompress(records[start:end])


def _save_atomically(path: Path, write) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(temporary, "wb") as handle:
        write(handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


class RowWriter:
    """Adds rows to a folder's row store (new, or appending to what is there) whose
    papers each have one facet key in each of `facet_groups` groups."""

    def __init__(self, folder: Path, facet_groups: int):
        self.folder = folder
        if (folder / OFFSETS).exists():
            self.offsets = np.load(folder / OFFSETS).tolist()
            self.ids = (folder / IDS).read_text().split("\n") if len(self.offsets) > 1 else []
            self.facets = np.load(folder / FACETS).tolist()
            self.keys = orjson.loads((folder / KEYS).read_bytes())
        else:
            self.offsets, self.ids, self.facets, self.keys = [0], [], [], [[] for _ in range(facet_groups)]
        if len(self.keys) != facet_groups:
            raise ValueError(f"{folder}: row store has {len(self.keys)} facet groups, expected {facet_groups}")
        self._codes = [{key: code for code, key in enumerate(keys)} for keys in self.keys]
        # An update appends with the codec and dictionary of the build it extends (zlib in a
        # generation built before zstd); a build trains one on its first ZSTD_DICTIONARY_ROWS
        # records, held back until then.
        self.zdict: bytes | None = None
        self.codec = "zstd"
        if (folder / OFFSETS).exists():
            self.codec = "zstd" if (folder / ZSTD_DICT).exists() else "zlib"
            self.zdict = (folder / (ZSTD_DICT if self.codec == "zstd" else ZDICT)).read_bytes()
        self._zstd: zstandard.ZstdCompressor | None = None
        self._held: list[bytes] = []
        self._primed: zlib._Compress | None = None  # a compressor that has read self.zdict (_write)
        self._primed_with: bytes | None = None
        self._bin = open(folder / BIN, "ab")  # noqa: SIM115  held until close(): rows are appended across calls
        self._bin.seek(0, os.SEEK_END)
        if self._bin.tell() != self.offsets[-1]:  # an update that died before saving its offsets
            self._bin.truncate(self.offsets[-1])

    def _write(self, payload: bytes) -> None:
        if self.codec == "zstd":
            if self._zstd is None:
                self._zstd = zstd_packer(self.zdict or b"")
            packed = self._zstd.compress(payload)
            self._bin.write(packed)
            self.offsets.append(self.offsets[-1] + len(packed))
            return
        # A copy of a compressor that has read the dictionary (zlib's deflateCopy) gives the bytes
        # pack_row gives, without setting the 32 KB dictionary again for every row: the full
        # corpus's index build spent ~30% of the rows' compression time there.
        if self._primed is None or self._primed_with is not self.zdict:
            self._primed_with = self.zdict
            self._primed = (zlib.compressobj(COMPRESS_LEVEL, zdict=self.zdict) if self.zdict
                            else zlib.compressobj(COMPRESS_LEVEL))
        compressor = self._primed.copy()
        packed = compressor.compress(payload) + compressor.flush()
        self._bin.write(packed)
        self.offsets.append(self.offsets[-1] + len(packed))

    def _release_held(self) -> None:
        """Make the dictionary of the held records and write them."""
        self.zdict = zstd_dictionary(self._held) if self.codec == "zstd" else b"".join(self._held)[-DICTIONARY_BYTES:]
        held, self._held = self._held, []
        for payload in held:
            self._write(payload)

    def add(self, paper: Paper, facet_keys: Sequence[str]) -> tuple[int, tuple[int, ...]]:
        """Append a paper with its facet key in each group; (its row, the keys' codes)."""
        payload = encode_paper(paper)
        if self.zdict is None:
            self._held.append(payload)
            if len(self._held) >= (ZSTD_DICTIONARY_ROWS if self.codec == "zstd" else DICTIONARY_ROWS):
                self._release_held()
        else:
            self._write(payload)
        self.ids.append(paper.id)
        codes = tuple(self._code(group, key) for group, key in enumerate(facet_keys))
        self.facets.append(codes)
        return len(self.ids) - 1, codes

    def _code(self, group: int, key: str) -> int:
        code = self._codes[group].get(key)
        if code is None:
            code = self._codes[group][key] = len(self.keys[group])
            self.keys[group].append(key)
        return code

    @property
    def next_row(self) -> int:
        return len(self.ids)

    def close(self) -> None:
        """Flush the records, then write the small files (each replaced by a rename; they agree
        with each other only once all four are written, which is why a writer works in a
        staging generation that readers do not see)."""
        if self.zdict is None:
            self._release_held()
        self._bin.flush()
        os.fsync(self._bin.fileno())
        self._bin.close()
        zdict = self.zdict or b""
        dictionary = self.folder / (ZSTD_DICT if self.codec == "zstd" else ZDICT)
        if not dictionary.exists():  # an update keeps the build's (a hard link, never rewritten)
            _save_atomically(dictionary, lambda handle: handle.write(zdict))
        fault_point("rows:bin-synced")
        _save_atomically(self.folder / KEYS, lambda handle: handle.write(orjson.dumps(self.keys)))
        fault_point("rows:keys")
        facets = np.asarray(self.facets, np.uint32).reshape(len(self.facets), len(self.keys))
        _save_atomically(self.folder / FACETS, lambda handle: np.save(handle, facets))
        fault_point("rows:facets")
        _save_atomically(self.folder / IDS, lambda handle: handle.write("\n".join(self.ids).encode()))
        fault_point("rows:ids")
        _save_atomically(self.folder / OFFSETS, lambda handle: np.save(handle, np.asarray(self.offsets, np.uint64)))
        fault_point("rows:offsets")


@dataclass(frozen=True, slots=True)
class _Rows:
    offsets: list[int]  # python ints: slicing the mmap with them is fastest
    ids: list[str]
    facets: np.ndarray  # (row, facet group) -> code
    keys: list[list[str]]  # facet group -> keys by code
    records: mmap.mmap | bytes
    unpacker: RowUnpacker | ZstdUnpacker


class RowReader:
    """Read side: papers, ids and facet codes by row. A reload swaps one snapshot
    reference, so a thread reading meanwhile sees the old rows or the new, never a mix."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._row_of: tuple[_Rows, dict[str, int]] | None = None
        self.load()

    def load(self) -> None:
        offsets = np.load(self.folder / OFFSETS)
        with open(self.folder / BIN, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            records = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
        self._rows = _Rows(
            offsets=offsets.tolist(),
            ids=(self.folder / IDS).read_text().split("\n") if len(offsets) > 1 else [],
            facets=np.load(self.folder / FACETS),
            keys=orjson.loads((self.folder / KEYS).read_bytes()),
            records=records,
            unpacker=(ZstdUnpacker((self.folder / ZSTD_DICT).read_bytes()) if (self.folder / ZSTD_DICT).exists()
                      else RowUnpacker((self.folder / ZDICT).read_bytes())),
        )

    def __len__(self) -> int:
        return len(self._rows.ids)

    @property
    def keys(self) -> list[list[str]]:
        return self._rows.keys

    def _covering(self, rows: list[int]) -> _Rows:
        snapshot = self._rows
        if rows and max(rows) >= len(snapshot.ids):  # a commit seen before its rows were loaded
            self.load()
            snapshot = self._rows
        return snapshot

    def paper(self, row: int) -> Paper:
        return self.papers([row])[0]

    def papers(self, rows: list[int]) -> list[Paper]:
        snapshot = self._covering(rows)
        return list(map(decode_paper, snapshot.unpacker.unpack_rows(snapshot.records, snapshot.offsets, rows)))

    def rows_of_ids(self, paper_ids: Sequence[str]) -> list[int]:
        """The live row of each id the store's rows hold (others are left out), in the given
        order. An id's live row is its last: a replaced paper's new row is appended, and no
        paper leaves the index otherwise. The id -> row table is made on first use per load
        (it holds references to the ids, not copies: 1 M ids ~59 MB, built in 2.5 s at load ~20)."""
        snapshot = self._rows
        table = self._row_of
        if table is None or table[0] is not snapshot:  # a later row of an id overwrites an earlier one
            table = self._row_of = (snapshot, dict(zip(snapshot.ids, range(len(snapshot.ids)))))
        row_of = table[1]
        return [row_of[paper_id] for paper_id in paper_ids if paper_id in row_of]

    def paper_ids(self, rows: list[int]) -> list[str]:
        ids = self._covering(rows).ids
        return [ids[row] for row in rows]

    def facet_codes(self, rows: list[int]) -> np.ndarray:
        """(len(rows), facet groups) array: each row's code in each group (np.take of an index
        array: about half the cost of indexing with the list)."""
        return self._covering(rows).facets.take(np.fromiter(rows, dtype=np.intp, count=len(rows)), axis=0)

    def years(self, rows: list[int]) -> list[int]:
        """Year of each row (0 when unknown), from its facet key."""
        group, at = FACET_POSITION["year"]
        snapshot = self._covering(rows)
        keys = snapshot.keys[group]
        return [int(keys[code].split(FACET_SEPARATOR)[at] or 0) for code in snapshot.facets[rows, group].tolist()]
