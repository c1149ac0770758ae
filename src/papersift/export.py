"""Export papers as BibTeX, CSV, JSON, RIS or CSL-JSON: what the page's "copy BibTeX" and
/api/export serve. RIS and CSL-JSON items carry the BibTeX citation key (RIS `ID`, CSL `id`)."""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Callable, Iterable

import bibtexparser
import orjson
import rispy
from bibtexparser.middlewares.parsestack import default_unparse_stack
from bibtexparser.model import Entry, Field

from papersift.record import Paper

EXPORT_FORMATS = ("bibtex", "json", "csv", "ris", "csl-json")
MEDIA_TYPES = {
    "bibtex": "application/x-bibtex; charset=utf-8",
    "json": "application/json",
    "csv": "text/csv; charset=utf-8",
    "ris": "application/x-research-info-systems; charset=utf-8",
    "csl-json": "application/vnd.citationstyles.csl+json",
}
FILE_SUFFIXES = {"bibtex": "bib", "json": "json", "csv": "csv", "ris": "ris", "csl-json": "csl.json"}
CSV_COLUMNS = (
    "id", "title", "authors", "venue", "year", "area", "subarea", "status",
    "keywords", "url", "pdf", "abstract",
)
# Spreadsheet programs run cells that start with these as formulas.
_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_LATEX_SPECIALS = re.compile(r"(?<!\\)([&%#])")
_STOPWORDS = {"a", "an", "the", "on", "of", "in", "for", "to", "and", "with", "towards", "toward"}


def balanced_braces(text: str) -> str:
    """`text`, or without any brace when its braces do not balance (a broken brace in a .bib
    field would swallow the rest of the file; papersift's BibTeX export writes fields so)."""
    if "{" not in text and "}" not in text:
        return text
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            break
    if depth != 0:
        text = text.replace("{", "").replace("}", "")
    return text


def _ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def bibtex_key(paper: Paper) -> str:
    """`lastname2024word`: first author's last name, year, first meaningful title word."""
    last_name = _ascii_word(paper.authors[0].split()[-1]) if paper.authors and paper.authors[0].split() else ""
    title_words = [_ascii_word(word) for word in paper.title.split()]
    first_word = next((word for word in title_words if word and word not in _STOPWORDS), "")
    return f"{last_name or 'anon'}{paper.year or ''}{first_word}" or "paper"


def _bibtex_value(text: str) -> str:
    """Escape LaTeX specials outside of commands and keep braces balanced (a broken
    brace would swallow the rest of the .bib file)."""
    return balanced_braces(_LATEX_SPECIALS.sub(r"\\\1", text))


# The proceedings each venue's papers appear in, as reference managers and style files expect
# `booktitle` (issue 28: `booktitle = {ICLR}` is the venue's short name, not its proceedings).
PROCEEDINGS = {
    "AISTATS": "International Conference on Artificial Intelligence and Statistics (AISTATS)",
    "COLM": "Conference on Language Modeling (COLM)",
    "COLT": "Conference on Learning Theory (COLT)",
    "ICLR": "International Conference on Learning Representations (ICLR)",
    "ICML": "International Conference on Machine Learning (ICML)",
    "NeurIPS": "Advances in Neural Information Processing Systems (NeurIPS)",
    "UAI": "Conference on Uncertainty in Artificial Intelligence (UAI)",
}


def proceedings_name(venue: str | None) -> str | None:
    """The proceedings' name for a venue (case-insensitive; NIPS is NeurIPS), else the venue as stored."""
    if not venue:
        return None
    folded = {name.lower(): title for name, title in PROCEEDINGS.items()}
    return folded.get(venue.lower()) or folded.get("neurips" if venue.lower() == "nips" else "") or venue


def _bibtex_entry(paper: Paper, key: str, extra: dict[str, str | None] | None = None) -> Entry:
    # A citation, not the paper: no abstract (it bloats every .bib and breaks some styles) and
    # no acceptance status (`note` is printed in the reference list by most styles).
    values: dict[str, str | None] = {
        "title": paper.title,
        "author": " and ".join(paper.authors),
        "booktitle": proceedings_name(paper.venue),
        "year": str(paper.year) if paper.year else None,
        "url": paper.url,
        "pdf": paper.pdf,
        "keywords": ", ".join(paper.keywords),
        **(extra or {}),
    }
    fields = [Field(name, _bibtex_value(value)) for name, value in values.items() if value]
    entry_type = "inproceedings" if paper.venue else "misc"
    return Entry(entry_type, key, fields)


def to_bibtex(papers: Iterable[Paper], extra_fields: Callable[[Paper], dict[str, str | None]] | None = None) -> str:
    """One @inproceedings entry per paper; keys are made unique with a, b, c... suffixes.
    `extra_fields(paper)` adds or replaces fields (the library's tags and notes; None drops one)."""
    library = bibtexparser.Library()
    used_keys: dict[str, int] = {}
    for paper in papers:
        key = bibtex_key(paper)
        seen = used_keys.get(key, 0)
        used_keys[key] = seen + 1
        if seen:
            key = f"{key}{_suffix(seen)}"
        library.add(_bibtex_entry(paper, key, extra_fields(paper) if extra_fields else None))
    # The library is ours alone, so the writer may enclose values in place (no deep copy).
    return bibtexparser.write_string(library, unparse_stack=default_unparse_stack(allow_inplace_modification=True))


def _suffix(index: int) -> str:
    letters = ""
    while index:
        index, remainder = divmod(index - 1, 26)
        letters = chr(ord("a") + remainder) + letters
    return letters


def _csv_cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        value = "; ".join(value)
    text = str(value)
    if text.startswith(_FORMULA_PREFIXES):
        text = "'" + text
    return text


def to_csv(papers: Iterable[Paper]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for paper in papers:
        writer.writerow([_csv_cell(getattr(paper, column)) for column in CSV_COLUMNS])
    return buffer.getvalue()


def to_json(papers: Iterable[Paper]) -> str:
    records = []
    for paper in papers:
        record = paper.to_dict()
        record.pop("source", None)
        records.append(record)
    return orjson.dumps(records, option=orjson.OPT_INDENT_2).decode()


def export_papers(papers: Iterable[Paper], export_format: str) -> str:
    writers = {"bibtex": to_bibtex, "csv": to_csv, "json": to_json, "ris": to_ris, "csl-json": to_csl_json}
    if export_format not in writers:
        raise ValueError(f"unknown export format {export_format!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    return writers[export_format](papers)


# -- RIS and CSL-JSON --------------------------------------------------------------------
PREPRINT_VENUES = {"arxiv"}  # a preprint server, not proceedings: RIS UNPB, CSL "article"


def citation_keys(papers: Iterable[Paper]) -> list[str]:
    """The keys to_bibtex gives the same papers in the same order (bibtex_key, then a, b, c...
    on clashes), so a paper keeps one key across BibTeX, RIS and CSL-JSON exports."""
    keys = []
    used_keys: dict[str, int] = {}
    for paper in papers:
        key = bibtex_key(paper)
        seen = used_keys.get(key, 0)
        used_keys[key] = seen + 1
        keys.append(f"{key}{_suffix(seen)}" if seen else key)
    return keys


def _is_preprint(paper: Paper) -> bool:
    return (paper.venue or "").lower() in PREPRINT_VENUES


def _one_line(text: str) -> str:
    """RIS is one tag a line: a newline inside a value would end it."""
    return " ".join(text.split())


def split_name(name: str) -> tuple[str, str]:
    """(given, family): the family name is the last word. Names come as written ("Yoshua
    Bengio"), so `given + " " + family` gives the name back exactly."""
    given, _, family = name.rpartition(" ")
    return given, family


def _ris_record(paper: Paper, key: str) -> dict:
    record: dict = {"type_of_reference": "UNPB" if _is_preprint(paper) else "CPAPER" if paper.venue else "GEN",
                    "id": key, "title": _one_line(paper.title), "accession_number": paper.id}
    authors = []
    for name in paper.authors:
        given, family = split_name(_one_line(name))
        authors.append(f"{family}, {given}" if given else family)
    optional = {
        "authors": authors,
        "year": str(paper.year) if paper.year else None,
        "secondary_title": paper.venue,
        "abstract": _one_line(paper.abstract) if paper.abstract else None,
        "urls": [paper.url] if paper.url else [],
        "file_attachments1": paper.pdf,
        "keywords": [_one_line(keyword) for keyword in paper.keywords],
        "notes": [paper.status] if paper.status else [],
    }
    record.update({name: value for name, value in optional.items() if value})
    return record


class _PlainRisWriter(rispy.RisWriter):
    """RIS without rispy's "1." counter line before each record (other readers do not expect it)."""

    def set_header(self, count: int) -> str:
        return ""


ExtraFields = Callable[[Paper], dict]


def to_ris(papers: Iterable[Paper], extra_fields: ExtraFields | None = None) -> str:
    """RIS: CPAPER (conference paper, T2 the venue) or UNPB (arXiv), ID the citation key,
    AN the papersift id, AU "Family, Given" in the paper's order. `extra_fields(paper)` adds or
    replaces rispy fields (the library's tags as keywords, its note; empty values drop one)."""
    papers = list(papers)
    records = []
    for paper, key in zip(papers, citation_keys(papers)):
        record = {**_ris_record(paper, key), **(extra_fields(paper) if extra_fields else {})}
        records.append({name: value for name, value in record.items() if value not in (None, "", [])})
    return rispy.dumps(records, implementation=_PlainRisWriter)


def csl_item(paper: Paper, key: str) -> dict:
    """One CSL-JSON item (CSL 1.0.2 data schema: only its fields; the papersift id in `custom`)."""
    csl_type = "article" if _is_preprint(paper) else "paper-conference" if paper.venue else "document"
    item: dict = {"id": key, "citation-key": key, "type": csl_type, "title": paper.title,
                  "custom": {"papersift_id": paper.id}}
    names = []
    for name in paper.authors:
        given, family = split_name(name)
        names.append({"family": family, "given": given} if given else {"literal": family})
    if names:
        item["author"] = names
    if paper.year:
        item["issued"] = {"date-parts": [[paper.year]]}
    if paper.venue:
        item["publisher" if _is_preprint(paper) else "container-title"] = paper.venue
    optional = {"abstract": paper.abstract, "URL": paper.url or paper.pdf, "keyword": ", ".join(paper.keywords),
                "note": paper.status}
    item.update({name: value for name, value in optional.items() if value})
    return item


def to_csl_json(papers: Iterable[Paper], extra_fields: ExtraFields | None = None) -> str:
    """CSL-JSON items; `extra_fields(paper)` adds or replaces fields (`custom` is merged)."""
    papers = list(papers)
    items = []
    for paper, key in zip(papers, citation_keys(papers)):
        item = csl_item(paper, key)
        extra = dict(extra_fields(paper)) if extra_fields else {}
        item["custom"] = {**item["custom"], **extra.pop("custom", {})}
        item.update(extra)
        items.append({name: value for name, value in item.items() if value not in (None, "", [], {})})
    return orjson.dumps(items, option=orjson.OPT_INDENT_2).decode()
