"""papersift glossary build|lookup: the vendored zh<->en ML term glossary (docs/crosslingual.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from papersift.cli.app import JsonOption, app, console, fail, print_json
from papersift.config import shared_data_dir

glossary_app = typer.Typer(help="The bilingual (zh<->en) ML term glossary shipped in the package.", no_args_is_help=True)
app.add_typer(glossary_app, name="glossary")

PACKAGE_DATA = Path(__file__).resolve().parents[1] / "data"


def default_reference() -> Path:
    return shared_data_dir() / "zhterms" / "queries_dev.jsonl"


@glossary_app.command("build")
def glossary_build(
    manifest: Annotated[Path, typer.Option("--manifest", help="Source manifest (TOML; scripts/glossary_sources.toml).")],
    sources: Annotated[Path | None, typer.Option(
        "--sources", help="Folder the manifest's source locations are relative to (default: the manifest's folder).")] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", help="Where glossary.tsv.gz and GLOSSARY-NOTICE.md are written (default: the package's data folder, "
                      "src/papersift/data in a checkout).")] = None,
    reference: Annotated[Path | None, typer.Option(
        "--reference", help="Term pairs (JSON lines, term_zh/term_en) no source may copy: a source holding more than "
                            "half of them verbatim is dropped (default: the zhterms dev queries).")] = None,
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", help="A data dir whose term lexicon gives the evidence: papers using each English term, and "
                           "the phrases documents in both languages are aligned to (USE-m3, crosslingual extra).")] = None,
    model: Annotated[str | None, typer.Option(
        "--model", help="Embedding model whose zh/en agreement is evidence (e.g. multilingual-e5-small).")] = None,
) -> None:
    """Build the glossary from fetched sources: read, check licences, drop copies, weigh evidence, write."""
    from papersift.index import glossary_build as builder
    from papersift.ingest.glossary_sources import SourceError, load_manifest

    reference = reference or default_reference()
    if not reference.is_file():
        fail(f"no reference terms at {reference}: the no-copy rule needs them (--reference FILE)")
    try:
        listed = load_manifest(manifest, sources)
        papers = phrases = align_encode = None
        if data_dir is not None:
            from papersift.index.glossary_align import corpus_phrases
            from papersift.index.phrasevectors import encode_texts
            from papersift.index.termlexicon import lexicon_path

            if not lexicon_path(data_dir).is_file():
                fail(f"no term lexicon in {data_dir} (papersift index builds it)")
            papers = builder.lexicon_papers(lexicon_path(data_dir))
            phrases, align_encode = corpus_phrases(data_dir), encode_texts
        encode = None
        if model is not None:
            from papersift.index.embeddings import make_encoder

            encode = make_encoder(model).encode_queries
        import opencc

        report = builder.build(listed, builder.reference_pairs(reference), papers=papers, encode=encode, phrases=phrases,
                               align_encode=align_encode,
                               converter=opencc.OpenCC("tw2sp").convert,
                               log=lambda message: console.print(escape(message), highlight=False))
        glossary_file, notice = builder.write(out or PACKAGE_DATA, listed, report)
    except (SourceError, ValueError, OSError) as exc:
        fail(str(exc))
    console.print(f"wrote {glossary_file} ({len(report.kept):,} pairs) and {notice}", highlight=False)


@glossary_app.command("measure")
def glossary_measure(
    reference: Annotated[Path | None, typer.Option(
        "--reference", help="Term pairs (JSON lines, term_zh/term_en; default: the zhterms dev queries).")] = None,
    glossary_file: Annotated[Path | None, typer.Option(
        "--glossary", help="A glossary file (default: the one shipped in the package).")] = None,
    min_confidence: Annotated[float, typer.Option(
        "--min-confidence", help="Count only entries of at least this confidence.")] = 0.0,
    as_json: JsonOption = False,
) -> None:
    """Coverage and precision of the glossary on reference terms (a measurement; nothing is changed)."""
    from papersift.index import glossary_build as builder
    from papersift.search import glossary

    reference = reference or default_reference()
    try:
        pairs = builder.reference_pairs(reference)
        entries = glossary.open_glossary(glossary_file or glossary.glossary_path(), checked=True)
    except (ValueError, OSError) as exc:
        fail(str(exc))

    def best(zh: str) -> tuple[str, float] | None:  # entries come best first: the highest confidence
        found = entries.by_zh(zh)
        return (found[0].en, found[0].confidence) if found and found[0].confidence >= min_confidence else None

    figures = builder.term_figures(best, sorted(pairs))
    row = {"terms": figures.terms, "covered": figures.covered, "coverage": round(figures.coverage, 3),
           "precision": round(figures.precision, 3), "sure": figures.sure, "sure_precision": round(figures.sure_precision, 3)}
    if as_json:
        print_json(row)
        return
    console.print(f"{figures.terms} terms: {figures.covered} covered ({figures.coverage:.1%}), best entry right for "
                  f"{figures.right} ({figures.precision:.1%} of covered); sure (confidence >= {builder.SURE_CONFIDENCE}): "
                  f"{figures.sure}, right {figures.sure_right} ({figures.sure_precision:.1%})", highlight=False)


@glossary_app.command("lookup")
def glossary_lookup(term: Annotated[str, typer.Argument(help="A Chinese term or an English phrase.")],
                    as_json: JsonOption = False) -> None:
    """The glossary's entries for a term, best first."""
    from papersift.ingest.glossary_sources import has_han
    from papersift.search.glossary import lookup_en, lookup_zh

    entries = lookup_zh(term) if has_han(term) else lookup_en(term)
    if as_json:
        print_json([entry.__dict__ for entry in entries])
        return
    if not entries:
        console.print(f"no glossary entry for {escape(term)}", highlight=False)
    for entry in entries:
        console.print(f"{escape(entry.zh)}\t{escape(entry.en)}\t{entry.confidence:.2f}\t{','.join(entry.sources)}",
                      highlight=False)
