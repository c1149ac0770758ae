"""The row store: rows compressed with the build's dictionary, read back exactly, also after an
update; generations built before zstd (zlib rows) read and updated as they are."""

from __future__ import annotations

import pytest

from papersift.index.rows import (
    BIN,
    DICTIONARY_ROWS,
    ZDICT,
    ZSTD_DICT,
    RowReader,
    RowWriter,
    ZstdUnpacker,
    encode_paper,
)
from papersift.record import paper_from_dict

TRAINED_ROWS = 400  # ZSTD_DICTIONARY_ROWS in these tests: the fixture corpus has 1,996 papers


@pytest.fixture(autouse=True)
def fewer_training_rows(monkeypatch):
    monkeypatch.setattr("papersift.index.rows.ZSTD_DICTIONARY_ROWS", TRAINED_ROWS)


def test_rows_are_compressed_with_the_builds_dictionary_and_read_back(sample_records, tmp_path):
    papers = [paper_from_dict(record) for record in sample_records[:TRAINED_ROWS + 300]]
    writer = RowWriter(tmp_path, 1)
    for paper in papers[:TRAINED_ROWS + 100]:
        writer.add(paper, ["key"])
    writer.close()
    dictionary = (tmp_path / ZSTD_DICT).read_bytes()
    assert 0 < len(dictionary) <= 32 * 1024 and not (tmp_path / ZDICT).exists()
    assert dictionary[:4] == bytes.fromhex("37a430ec")  # trained (zstd's dictionary magic), not raw records

    update = RowWriter(tmp_path, 1)  # an update appends with the same dictionary
    for paper in papers[TRAINED_ROWS + 100:]:
        update.add(paper, ["key"])
    update.close()
    assert (tmp_path / ZSTD_DICT).read_bytes() == dictionary

    reader = RowReader(tmp_path)
    assert isinstance(reader._rows.unpacker, ZstdUnpacker)
    assert reader.papers(list(range(len(papers)))) == papers and reader.paper(3) == papers[3]
    json_bytes = sum(len(encode_paper(paper)) for paper in papers)
    assert (tmp_path / BIN).stat().st_size < 0.6 * json_bytes


def test_the_same_records_train_the_same_dictionary_and_write_the_same_bytes(sample_records, tmp_path):
    papers = [paper_from_dict(record) for record in sample_records[:TRAINED_ROWS + 50]]
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        writer = RowWriter(tmp_path / name, 1)
        for paper in papers:
            writer.add(paper, ["key"])
        writer.close()
    for name in (ZSTD_DICT, BIN):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_rows_read_alike_in_every_thread(sample_records, tmp_path):
    """Each thread decodes with its own decompressor (zstandard's are not for concurrent use)."""
    from concurrent.futures import ThreadPoolExecutor

    papers = [paper_from_dict(record) for record in sample_records[:TRAINED_ROWS + 100]]
    writer = RowWriter(tmp_path, 1)
    for paper in papers:
        writer.add(paper, ["key"])
    writer.close()
    reader = RowReader(tmp_path)
    batches = [list(range(start, len(papers), 7)) for start in range(7)] * 6
    with ThreadPoolExecutor(8) as pool:
        for rows, read in zip(batches, pool.map(reader.papers, batches)):
            assert read == [papers[row] for row in rows]


def test_a_build_of_fewer_rows_than_the_dictionary_takes(sample_records, tmp_path):
    papers = [paper_from_dict(record) for record in sample_records[:3]]
    writer = RowWriter(tmp_path, 1)
    for paper in papers:
        writer.add(paper, ["key"])
    writer.close()
    assert (tmp_path / ZSTD_DICT).read_bytes()[:1] == b"["  # too few to train on: the records as they are
    assert RowReader(tmp_path).papers([2, 0, 1]) == [papers[2], papers[0], papers[1]]
    empty = tmp_path / "empty"
    empty.mkdir()
    RowWriter(empty, 1).close()
    assert len(RowReader(empty)) == 0 and (empty / ZSTD_DICT).read_bytes() == b""


def test_the_primed_unpacker_reads_what_a_fresh_decompressor_reads(sample_records):
    """RowUnpacker (one dictionary load, a copy per row) gives unpack_row's bytes, with and
    without a dictionary, and for a row whose zlib header is not the writer's (another level)."""
    import zlib

    from papersift.index.rows import RowUnpacker, pack_row, unpack_row

    payloads = [encode_paper(paper_from_dict(record)) for record in sample_records[:40]]
    zdict = b"".join(payloads[:10])[-32 * 1024:]
    for dictionary in (zdict, b""):
        unpacker = RowUnpacker(dictionary)
        packed = [pack_row(payload, dictionary) for payload in payloads]
        compressor = zlib.compressobj(1, zdict=dictionary) if dictionary else zlib.compressobj(1)
        packed.append(compressor.compress(payloads[0]) + compressor.flush())  # header of level 1
        assert not packed[-1].startswith(unpacker.header)
        records = b"".join(packed)
        start = 0
        for payload, row in zip([*payloads, payloads[0]], packed):
            assert unpacker.unpack(records, start, start + len(row)) == payload == unpack_row(row, dictionary)
            start += len(row)


def test_an_ids_live_row_is_its_last(sample_records, tmp_path):
    """rows_of_ids maps each id to its newest row (a replaced paper's row is appended), leaves
    unknown ids out, keeps the order asked for, and sees rows an update appended after a reload."""
    papers = [paper_from_dict(record) for record in sample_records[:5]]
    writer = RowWriter(tmp_path, 1)
    for paper in papers:
        writer.add(paper, ["key"])
    writer.close()
    reader = RowReader(tmp_path)
    assert reader.rows_of_ids([papers[3].id, "unknown", papers[0].id]) == [3, 0]
    update = RowWriter(tmp_path, 1)
    update.add(papers[3], ["key"])  # replaced: row 5
    update.close()
    reader.load()
    assert reader.rows_of_ids([papers[3].id, papers[1].id]) == [5, 1]


def test_a_generation_built_before_zstd_reads_and_updates_as_zlib(sample_records, tmp_path):
    """A generation whose rows are zlib (rows.zdict, built before zstd: the writer's old path)
    reads as it is, and an update appends zlib rows with its dictionary, byte for byte what
    pack_row writes (the writer copies one compressor that has read the dictionary)."""
    import numpy as np

    from papersift.index.rows import OFFSETS, RowUnpacker, pack_row

    papers = [paper_from_dict(record) for record in sample_records[:DICTIONARY_ROWS + 60]]
    writer = RowWriter(tmp_path, 1)
    writer.codec = "zlib"  # as a build before zstd wrote it
    for paper in papers[:DICTIONARY_ROWS + 30]:
        writer.add(paper, ["key"])
    writer.close()
    assert (tmp_path / ZDICT).exists() and not (tmp_path / ZSTD_DICT).exists()
    update = RowWriter(tmp_path, 1)
    assert update.codec == "zlib"
    for paper in papers[DICTIONARY_ROWS + 30:]:
        update.add(paper, ["key"])
    update.close()
    assert not (tmp_path / ZSTD_DICT).exists()
    dictionary = (tmp_path / ZDICT).read_bytes()
    expected = b"".join(pack_row(encode_paper(paper), dictionary) for paper in papers)
    assert (tmp_path / BIN).read_bytes() == expected
    offsets = np.load(tmp_path / OFFSETS)
    assert len(offsets) == len(papers) + 1 and offsets[-1] == len(expected)
    reader = RowReader(tmp_path)
    assert isinstance(reader._rows.unpacker, RowUnpacker)
    assert reader.papers(list(range(len(papers)))) == papers


def test_a_decoded_record_is_the_paper_its_fields_make(sample_records, monkeypatch):
    """decode_paper builds Paper through paper_of_values (slots set directly, not __init__): the
    same papers, field for field, frozen and hashable alike; Paper(*values) once Paper has a
    __post_init__ that the direct path would skip."""
    from papersift.index import rows
    from papersift.record import PAPER_FIELDS, Paper

    for record in sample_records[:300]:
        paper = paper_from_dict(record)
        decoded = rows.decode_paper(encode_paper(paper))
        assert type(decoded) is Paper and decoded == paper and repr(decoded) == repr(paper)
        assert hash(decoded) == hash(paper) and decoded.source == paper.source
        values = [getattr(paper, name) for name in PAPER_FIELDS]
        assert repr(rows.paper_of_values(values)) == repr(Paper(*values))  # source too (not compared)
    with pytest.raises(AttributeError):  # FrozenInstanceError
        decoded.title = "changed"
    built = []
    original_init = Paper.__init__
    monkeypatch.setattr(Paper, "__post_init__", lambda self: None, raising=False)
    monkeypatch.setattr(Paper, "__init__", lambda self, *values: built.append(values) or original_init(self, *values))
    rows._paper_of_values()([getattr(paper, name) for name in PAPER_FIELDS])
    assert len(built) == 1 and built[0][0] == paper.id  # through __init__ (which would call __post_init__)


def test_a_row_written_before_store_schema_3_reads_with_the_later_fields_empty(sample_records):
    """Rows of 15 fields (no author ids, affiliations, citations, code link) still decode."""
    import dataclasses

    import orjson

    from papersift.index.rows import SCHEMA3_AT, SCHEMA3_DEFAULTS, decode_paper
    from papersift.record import PAPER_FIELDS

    paper = paper_from_dict(sample_records[0])
    values = [getattr(paper, name) for name in PAPER_FIELDS]
    old_row = orjson.dumps(values[:SCHEMA3_AT] + values[SCHEMA3_AT + len(SCHEMA3_DEFAULTS):])
    assert decode_paper(old_row) == dataclasses.replace(paper, author_ids=(), affiliations=(), citations=None,
                                                        citations_as_of=None, code_url=None)
