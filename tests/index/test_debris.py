"""PDF-extraction debris (issue 28): cleaned for the keyword index, the snippets and the pages;
the store keeps the text as ingested."""

from __future__ import annotations

from papersift.index.debris import KNOWN_WORD_PAPERS, clean_extraction_debris, indexed_text, known_words


def test_pdf_extraction_debris_is_cleaned_as_the_authors_wrote_it():
    """Issue 28 item 5: "learn(cid:173) ing" (a soft hyphen as its glyph id) and "bidi- rected" (a
    line-end hyphen) were shown as they came out of the PDF."""
    known = {"bidirected", "learning", "methods"}.__contains__
    text = "We learn(cid:173) ing on bidi- rected graphs with pre- and post-training, high- dimensional meth- ods."
    assert clean_extraction_debris(text, known) == (
        "We learning on bidirected graphs with pre- and post-training, high- dimensional methods.")
    assert clean_extraction_debris("learn(cid:173)ing and bidi- rected") == "learning and bidi- rected"  # no word list


def test_known_words_are_the_keyword_index_words_of_enough_papers():
    counts = {"learn": 5000, "bidirect": KNOWN_WORD_PAPERS, "highdimension": 7}
    known = known_words(lambda term: counts.get(term, 0))
    assert known is not None and known("learning") and known("bidirected") and not known("highdimensional")
    assert known_words(None) is None


def test_the_index_reads_soft_hyphens_joined_and_line_end_pairs_also_joined():
    text = "We study unsu(cid:173) pervised learning on bidi- rected graphs, pre- and post-training."
    indexed = indexed_text(text)
    first_line, added = indexed.split(" \n ")
    assert first_line == "We study unsupervised learning on bidi- rected graphs, pre- and post-training."
    assert added == "bidirected"  # the written pair stays (a reader may search it); "pre- and" adds nothing
    assert indexed_text("plain text, no debris") == "plain text, no debris"
    assert indexed_text("a learn(cid:173)ing rule") == "a learning rule"


def test_cleaned_texts_cleans_each_text_with_debris_alone():
    from papersift.index.debris import clean_extraction_debris, cleaned_texts, has_debris

    texts = ["bidi- rected graphs", None, "", "learn(cid:173) ing", "plain text", "pre- and post-training"]

    def known(word: str) -> bool:
        return word == "bidirected"

    assert cleaned_texts(texts, known) == [clean_extraction_debris(text, known) if text and has_debris(text) else text
                                           for text in texts]
    assert cleaned_texts(texts, known)[:4] == ["bidirected graphs", None, "", "learning"]
