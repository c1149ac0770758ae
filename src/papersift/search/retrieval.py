"""The contract between SearchService and its retrievers (semantic, hybrid: plug-ins named in
service.RETRIEVER_MODULES).

A retriever ranks papers for a request; the service applies filters, paging and facets to what
it returns. What a retriever may ask of the keyword side is `KeywordSide`, the few calls
semantic and hybrid ranking need (the keyword engine, a BM25 ranking of a text, a query's
English reading, one stored paper), not the whole service: they are written against this
protocol and receive the service as its implementation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from papersift.record import Paper
from papersift.search.backend import SearchBackend
from papersift.search.query import ParsedQuery
from papersift.search.termlexicon import QueryReading, TermLexicon
from papersift.search.types import SearchRequest


class Retriever(Protocol):
    """Ranks papers for a request (semantic, hybrid...); filters are applied afterwards."""

    def retrieve(self, request: SearchRequest, query: ParsedQuery, k: int,
                 candidate_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """Up to k (paper id, score) pairs, best first, among `candidate_ids` when given (a pool:
        evaluation with --pools). The service passes candidate_ids only when it has a pool."""


class KeywordSide(Protocol):
    """What a retriever uses of the keyword side (SearchService implements it)."""

    backend: SearchBackend

    def rank(self, text: str, k: int = 100, candidate_ids: Sequence[str] | None = None,
             ) -> list[tuple[str, float]]: ...

    def reading_of(self, text: str, encoder=None, bridge=None, neighbours: bool = True) -> QueryReading | None: ...

    def get(self, paper_id: str) -> Paper | None: ...

    @property
    def term_lexicon(self) -> TermLexicon | None: ...  # its phrase table: the spellings papers use

    def phrase_papers(self, text: str) -> int: ...  # papers with the text as a phrase (search/compounds.py)

    @property
    def term_doc_freq(self) -> Callable[[str], int] | None: ...  # papers per analyzed term, when countable
