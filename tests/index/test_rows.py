"""The row store: rows compressed with the build's dictionary, read back exactly, also after an update."""

from __future__ import annotations

from papersift.index.rows import BIN, DICTIONARY_ROWS, ZDICT, RowReader, RowWriter, encode_paper
from papersift.record import paper_from_dict


def test_rows_are_compressed_with_the_builds_dictionary_and_read_back(sample_records, tmp_path):
    papers = [paper_from_dict(record) for record in sample_records[:DICTIONARY_ROWS + 300]]
    writer = RowWriter(tmp_path, 1)
    for paper in papers[:DICTIONARY_ROWS + 100]:
        writer.add(paper, ["key"])
    writer.close()
    dictionary = (tmp_path / ZDICT).read_bytes()
    assert 0 < len(dictionary) <= 32 * 1024

    update = RowWriter(tmp_path, 1)  # an update appends with the same dictionary
    for paper in papers[DICTIONARY_ROWS + 100:]:
        update.add(paper, ["key"])
    update.close()
    assert (tmp_path / ZDICT).read_bytes() == dictionary

    reader = RowReader(tmp_path)
    assert reader.papers(list(range(len(papers)))) == papers and reader.paper(3) == papers[3]
    json_bytes = sum(len(encode_paper(paper)) for paper in papers)
    assert (tmp_path / BIN).stat().st_size < 0.6 * json_bytes


def test_a_build_of_fewer_rows_than_the_dictionary_takes(sample_records, tmp_path):
    papers = [paper_from_dict(record) for record in sample_records[:3]]
    writer = RowWriter(tmp_path, 1)
    for paper in papers:
        writer.add(paper, ["key"])
    writer.close()
    assert RowReader(tmp_path).papers([2, 0, 1]) == [papers[2], papers[0], papers[1]]
    empty = tmp_path / "empty"
    empty.mkdir()
    RowWriter(empty, 1).close()
    assert len(RowReader(empty)) == 0 and (empty / ZDICT).read_bytes() == b""


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


def test_the_writers_reused_dictionary_writes_the_bytes_a_fresh_compressor_writes(sample_records, tmp_path):
    """The writer copies one compressor that has read the dictionary instead of setting it for
    every row (index build time); the rows.bin it writes must be what pack_row writes, byte for
    byte, in a build and in an update that appends with the build's dictionary."""
    import numpy as np

    from papersift.index.rows import OFFSETS, pack_row

    papers = [paper_from_dict(record) for record in sample_records[:DICTIONARY_ROWS + 60]]
    writer = RowWriter(tmp_path, 1)
    for paper in papers[:DICTIONARY_ROWS + 30]:
        writer.add(paper, ["key"])
    writer.close()
    update = RowWriter(tmp_path, 1)
    for paper in papers[DICTIONARY_ROWS + 30:]:
        update.add(paper, ["key"])
    update.close()
    dictionary = (tmp_path / ZDICT).read_bytes()
    expected = b"".join(pack_row(encode_paper(paper), dictionary) for paper in papers)
    assert (tmp_path / BIN).read_bytes() == expected
    offsets = np.load(tmp_path / OFFSETS)
    assert len(offsets) == len(papers) + 1 and offsets[-1] == len(expected)
