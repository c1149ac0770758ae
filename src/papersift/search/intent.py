"""Query intent: what a query typed into the search box names, so every mode answers it first.

A researcher types a paper's title, a person's name, an id they copied or `venue year` words
far more often than the query language. SearchService reads the query here before it ranks:

- an id goes straight to its paper: a papersift id, an OpenReview forum id, the paper's page
  or PDF URL as the store has it, an arXiv id (with or without version, `arXiv:` prefix or
  URL) or a DOI, for the papers that carry one. An id the store does not know gives no hits
  and says which command can fetch it;
- a query that is (or quotes) a paper's title, up to case, accents and punctuation, puts that
  paper first (every paper with that title, when several have it);
- a person's name (any order, initials, the author identities the author pages use) makes
  the result set that person's papers and offers their author page; with other words
  ("Bengio attention") the person's papers that match the words;
- venue names and years among plain words (`diffusion ICLR 2024`) act as the filters they
  name, and the response says so.

Only plain queries are read this way: a query with operators (field:value, -word, OR) means
what the query language says, and `literal` turns the reading off. Everything here is looked
up in a catalog read from the store once per store change (~45K titles and ids, the author
names): cheap at load, no derived file.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from papersift.index.analyzers import ENGLISH, has_cjk, terms
from papersift.names import full_key, name_tokens
from papersift.record import normalize_title
from papersift.search.query import Words, parse_query
from papersift.search.types import Filters, QuerySyntaxError
from papersift.store import ReadOnlyStore, Store
from papersift.throttle import RECHECK_S, Throttle

ARXIV_ID = re.compile(r"^(?:arxiv:\s*)?(\d{4}\.\d{4,5}|[a-z][a-z.-]*/\d{7})(?:v\d+)?$", re.IGNORECASE)
DOI = re.compile(r"^(?:doi:\s*)?(10\.\d{4,9}/\S+)$", re.IGNORECASE)
# What an OpenReview forum id looks like (9-14 characters of [A-Za-z0-9_-], lower-case letters
# and a digit or two capitals: '0FvarE8SMs', 'NvBJOcmti6'); one no paper has is said to be
# unknown only when none of its words is a word of the corpus ('Subsample' is a word).
OPENREVIEW_LIKE = re.compile(r"^(?=[A-Za-z0-9_-]{9,14}$)(?=.*[a-z])(?=.*[0-9]|(?:.*[A-Z]){2}).*$")
YEAR_WORD = re.compile(r"^(\d{4})(?:(?:\.\.|-)(\d{4}))?$")
NAV_MAX_WORDS = 8  # names, venue/year words and misspellings are read in queries of at most this many words
NAME_MAX_WORDS = 4
READ_KEPT = 512  # query texts whose reading is remembered
SURNAME_SHARE = 0.6  # a lone surname names the person who holds this share of its papers
LONE_SURNAME_PAPERS = 10  # a lone surname typed in lower case names someone with at least this many papers
SURNAME_MAX_DOC_FREQ = 30  # ... and is a rare word in papers' text (not "he", "wang" as words)
NAMESAKES_LISTED = 10  # other people with the spelling a query names, listed with a hint each
HINT_VENUES = 2  # venues a hint names (the person's most frequent)
FETCH_COMMANDS = {
    "arxiv": "papersift fetch arxiv --query 'id:{value}'",
    "doi": "papersift ingest FILE (a BibTeX or JSON record that carries the DOI)",
    "openreview": "papersift fetch openreview VENUE_ID (the venue the forum belongs to)",
    "url": "papersift ingest FILE (a record with this URL)",
}


def _url_key(url: str) -> str:
    """A URL as compared: scheme, `www.`, a trailing slash and case of the host aside."""
    parts = urlsplit(url.strip())
    host = parts.netloc.lower().removeprefix("www.")
    path = parts.path.rstrip("/")
    return f"{host}{path}" + (f"?{parts.query}" if parts.query else "")


def ids_in_url(url: str) -> list[tuple[str, str]]:
    """(kind, id) pairs a stored or pasted URL carries: OpenReview forum id, arXiv id, DOI."""
    found: list[tuple[str, str]] = []
    parts = urlsplit(url.strip())
    host = parts.netloc.lower().removeprefix("www.")
    if host.endswith("openreview.net"):
        for value in parse_qs(parts.query).get("id", []):
            found.append(("openreview", value))
    elif host.endswith("arxiv.org"):
        match = re.search(r"/(?:abs|pdf)/(.+?)(?:v\d+)?(?:\.pdf)?$", parts.path)
        if match:
            found.append(("arxiv", match.group(1).lower()))
    elif host in ("doi.org", "dx.doi.org"):
        found.append(("doi", unquote(parts.path.lstrip("/")).lower()))
    return found


@dataclass(frozen=True, slots=True)
class Hint:
    """What tells namesakes apart on a results page: a person's most frequent affiliation (when
    the listings give one), most frequent co-author, most frequent venues and the years of their
    papers (the shared corpus has no affiliations: there the co-author tells namesakes apart)."""
    affiliation: str | None
    venues: tuple[str, ...]
    years: tuple[int, int] | None
    coauthor: str | None = None


@dataclass(frozen=True, slots=True)
class Namesake:
    """Another person written with the spelling a query names (their own author page)."""
    name: str
    key: str
    papers: int
    hint: Hint


@dataclass(frozen=True, slots=True)
class Person:
    name: str  # the spelling the identity uses most
    key: str  # what the author page takes: the author id, or the name before identities are built
    paper_ids: tuple[str, ...]
    words: str  # the query words that named the person
    # Other identities with that spelling (most papers first, at most NAMESAKES_LISTED), how
    # many more there are, and this person's own hint beside theirs (None without namesakes).
    namesakes: tuple[Namesake, ...] = ()
    more_namesakes: int = 0
    hint: Hint | None = None


@dataclass(frozen=True, slots=True)
class Intent:
    kind: str = "none"  # "paper_id" | "unknown_id" | "title" | "person" | "none"
    text: str | None = None  # the query to search instead of the typed one (None: as typed)
    filters: Filters = field(default_factory=Filters)  # what venue/year words and ids named
    pinned: tuple[str, ...] = ()  # papers put first (a title's papers)
    person: Person | None = None
    unknown: tuple[str, str] | None = None  # (kind, value): an id no paper here carries
    filter_words: tuple[str, ...] = ()  # the words read as filters, as typed
    matched_id: str | None = None  # the paper an id named
    plain: bool = False  # plain words (no operators): what "did you mean" may correct
    corrected: str | None = None  # the words to search with misspellings corrected (search/spelling.py)

    @property
    def fetch_command(self) -> str | None:
        if self.unknown is None:
            return None
        kind, value = self.unknown
        return FETCH_COMMANDS[kind].format(value=value)


NO_INTENT = Intent()
PLAIN = Intent(plain=True)  # plain words that name nothing in particular: a topic


@dataclass(frozen=True, slots=True)
class _Identity:
    author_id: str | None
    name_key: str
    name: str
    papers: int


class Catalog:
    """Titles, ids and author names of the store. Titles and full names are looked up through
    the store's indexes (dedupe_key, name_key), surnames by a scan of the author names; the
    URL/id map is read once, when a query first needs it (a URL, an OpenReview-like id)."""

    def __init__(self, store: Store):
        self.store = store
        self._ids: dict[tuple[str, str], str] | None = None  # (kind, value) -> paper id
        self._lock = threading.Lock()
        self.venues = {row[0].casefold(): row[0] for row in store.read("SELECT DISTINCT venue FROM papers")
                       if row[0]}
        low, high = store.read("SELECT MIN(year), MAX(year) FROM papers")[0]
        self.years: tuple[int, int] = (low or 0, high or 0)

    def titled(self, text: str) -> tuple[str, ...]:
        """The papers whose title is this text (case, accents, punctuation aside), newest first."""
        key = normalize_title(text)
        if not key:
            return ()
        rows = self.store.read("SELECT id FROM papers WHERE dedupe_key >= ? AND dedupe_key < ?"
                               " ORDER BY year DESC, id", (f"{key}|", f"{key}|\uffff"))
        return tuple(row[0] for row in rows)

    @property
    def ids(self) -> dict[tuple[str, str], str]:
        with self._lock:
            if self._ids is None:
                ids: dict[tuple[str, str], str] = {}
                for row in self.store.read("SELECT id, url, pdf FROM papers WHERE url IS NOT NULL OR pdf IS NOT NULL"
                                           " ORDER BY year DESC, id"):
                    for url in (row["url"], row["pdf"]):
                        if url:
                            ids.setdefault(("url", _url_key(url)), row["id"])
                            for kind, value in ids_in_url(url):
                                ids.setdefault((kind, value if kind == "openreview" else value.casefold()), row["id"])
                self._ids = ids
            return self._ids

    def with_surname(self, surname: str) -> list[_Identity]:
        """The identities whose name ends with this surname (a scan of the author names: only
        for initials and lone surnames, ~0.07 s on 186K mentions)."""
        escaped = surname.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return self._identities("name_key LIKE ? ESCAPE '\\'", (f"% {escaped}",))

    def identities(self, name_key: str) -> list[_Identity]:
        """The identities written with this spelling, most papers first."""
        return self._identities("name_key=?", (name_key,))

    def _identities(self, where: str, params: tuple) -> list[_Identity]:
        rows = self.store.read(f"SELECT name_key, author_id, COUNT(DISTINCT paper_id) AS n, MIN(name) AS name"
                               f" FROM paper_authors WHERE {where} GROUP BY name_key, author_id", params)
        people = [row["author_id"] for row in rows if row["author_id"]]
        papers: dict[str, int] = {}
        if people and len(people) <= 500:
            marks = ",".join("?" * len(people))
            papers = {row[0]: row[1] for row in self.store.read(
                f"SELECT author_id, COUNT(DISTINCT paper_id) FROM paper_authors WHERE author_id IN ({marks})"
                " GROUP BY author_id", people)}
        elif people:
            papers = {row[0]: row[1] for row in self.store.read(
                "SELECT author_id, COUNT(DISTINCT paper_id) FROM paper_authors WHERE author_id IS NOT NULL"
                " GROUP BY author_id")}
        found = [_Identity(row["author_id"], row["name_key"], row["name"],
                           papers.get(row["author_id"], row["n"]) if row["author_id"] else row["n"]) for row in rows]
        found.sort(key=lambda item: (-item.papers, item.author_id or "", item.name_key))
        return found

    # -- lookups -----------------------------------------------------------------------
    def paper_for_id(self, text: str) -> tuple[str | None, tuple[str, str] | None]:
        """(paper id, None) for an id or URL the store knows; (None, (kind, value)) for one
        that looks like an id of a kind it does not hold; (None, None) for no id at all."""
        text = text.strip().strip("<>")
        if self.store.read("SELECT 1 FROM papers WHERE id=?", (text,)):
            return text, None
        if re.match(r"^https?://", text, re.IGNORECASE):
            found = self.ids.get(("url", _url_key(text)))
            if found:
                return found, None
            for kind, value in ids_in_url(text):
                found = self.ids.get((kind, value))
                if found:
                    return found, None
                return None, (kind, value)
            return None, ("url", text)
        arxiv = ARXIV_ID.match(text)
        if arxiv:
            value = arxiv.group(1).lower()
            return self.ids.get(("arxiv", value)), None if ("arxiv", value) in self.ids else ("arxiv", value)
        doi = DOI.match(text)
        if doi:
            value = doi.group(1).casefold()
            return self.ids.get(("doi", value)), None if ("doi", value) in self.ids else ("doi", value)
        if OPENREVIEW_LIKE.match(text) and ("openreview", text) in self.ids:
            return self.ids[("openreview", text)], None
        return None, None

    def person(self, name: str, lone_surname_doc_freq: Callable[[str], int] | None = None) -> _Identity | None:
        """The identity a typed name names: the exact spelling in either order, or initials
        ('Y. Bengio', 'Bengio Y'); a lone surname only when `lone_surname_doc_freq` is given,
        the surname is rare as a word and one person holds most of its papers."""
        tokens = name_tokens(name)
        if not tokens or len(tokens) > NAME_MAX_WORDS:
            return None
        if len(tokens) == 1:
            return self._lone_surname(tokens[0], lone_surname_doc_freq) if lone_surname_doc_freq else None
        for key in dict.fromkeys((full_key(name), " ".join(tokens), " ".join([*tokens[1:], tokens[0]]),
                                  " ".join([tokens[-1], *tokens[:-1]]))):
            identities = self.identities(key)
            if identities:
                return identities[0]
        return self._with_initials(tokens)

    def mononym(self, word: str, papers_using: Callable[[str], int]) -> _Identity | None:
        """A person written with one name ('Mausam'), when the papers' text rarely uses the word
        (a query 'attention' is a topic even if someone is called so)."""
        if papers_using(word) > SURNAME_MAX_DOC_FREQ:
            return None
        found = self.identities(full_key(word))
        return found[0] if found else None

    def _with_initials(self, tokens: list[str]) -> _Identity | None:
        """'Y Bengio', 'Bengio Y', 'J Z Kolter': one-letter tokens are initials of the given names."""
        initials = [token for token in tokens if len(token) == 1]
        words = [token for token in tokens if len(token) > 1]
        if not initials or len(words) != 1:
            return None
        for identity in self.with_surname(words[0]):
            given = identity.name_key.split()[:-1]
            if len(given) >= len(initials) and all(name[0] == initial for name, initial in zip(given, initials)):
                return identity
        return None

    def _lone_surname(self, token: str, papers_using: Callable[[str], int]) -> _Identity | None:
        if len(token) < 3 or papers_using(token) > SURNAME_MAX_DOC_FREQ or not terms(token, ENGLISH):
            return None
        identities = self.with_surname(token)
        if not identities:
            return None
        people: dict[str, int] = defaultdict(int)
        for identity in identities:
            people[identity.author_id or identity.name_key] = identity.papers
        total = sum(people.values())
        top = identities[0]
        if top.papers < 2 or top.papers < SURNAME_SHARE * total:
            return None
        return top

    def papers_of(self, identity: _Identity) -> tuple[str, ...]:
        if identity.author_id:
            rows = self.store.read("SELECT DISTINCT paper_id FROM paper_authors WHERE author_id=?", (identity.author_id,))
        else:
            rows = self.store.read("SELECT DISTINCT paper_id FROM paper_authors WHERE name_key=?", (identity.name_key,))
        return tuple(row[0] for row in rows)

    def namesakes(self, identity: _Identity) -> list[_Identity]:
        """The other people written with this identity's spelling (identities are built), most
        papers first."""
        if identity.author_id is None:
            return []
        return [other for other in self.identities(identity.name_key)
                if other.author_id and other.author_id != identity.author_id]

    def hint(self, identity: _Identity) -> Hint:
        """The identity's most frequent affiliation, co-author, venues and year span (indexed reads)."""
        column, value = ("author_id", identity.author_id) if identity.author_id else ("name_key", identity.name_key)
        affiliation = self.store.read(
            f"SELECT affiliation, COUNT(*) AS n FROM paper_authors WHERE {column}=? AND affiliation IS NOT NULL"
            " AND affiliation != '' GROUP BY affiliation ORDER BY n DESC, affiliation LIMIT 1", (value,))
        venues = self.store.read(
            f"SELECT p.venue AS venue, COUNT(DISTINCT p.id) AS n, MIN(p.year) AS low, MAX(p.year) AS high"
            f" FROM paper_authors a JOIN papers p ON p.id = a.paper_id WHERE a.{column}=?"
            " GROUP BY p.venue ORDER BY n DESC, p.venue", (value,))
        coauthor = self.store.read(
            f"SELECT MIN(b.name) AS name, COUNT(DISTINCT b.paper_id) AS n FROM paper_authors a JOIN paper_authors b"
            f" ON b.paper_id = a.paper_id AND b.position != a.position WHERE a.{column}=?"
            " GROUP BY COALESCE(b.author_id, b.name_key) ORDER BY n DESC, name LIMIT 1", (value,))
        lows = [row["low"] for row in venues if row["low"]]
        highs = [row["high"] for row in venues if row["high"]]
        return Hint(affiliation[0]["affiliation"] if affiliation else None,
                    tuple(row["venue"] for row in venues if row["venue"])[:HINT_VENUES],
                    (min(lows), max(highs)) if lows and highs else None, coauthor[0]["name"] if coauthor else None)

    def shown_name(self, identity: _Identity) -> str:
        if identity.author_id is None:
            return identity.name
        rows = self.store.read("SELECT name, COUNT(*) AS n FROM paper_authors WHERE author_id=? GROUP BY name"
                               " ORDER BY n DESC, name LIMIT 1", (identity.author_id,))
        return rows[0]["name"] if rows else identity.name


class IntentReader:
    """Reads queries against the store's catalog (rebuilt when the store changes)."""

    def __init__(self, data_dir: str | Path, doc_freq: Callable[[str], int] | None = None,
                 word_uses: Callable[[str], int | None] | None = None):
        self.data_dir = Path(data_dir)
        self.doc_freq = doc_freq  # papers per analysed term (the keyword index), for lone surnames
        self.word_uses = word_uses  # papers per word as written (the corpus vocabulary; None: not known)
        self._store = ReadOnlyStore(self.data_dir)
        self._catalog: Catalog | None = None
        self._stamp: tuple | None = None
        self._lock = threading.Lock()
        self._recheck = Throttle(RECHECK_S)
        self._read: OrderedDict[str, Intent] = OrderedDict()
        self._read_for: Catalog | None = None

    def catalog(self) -> Catalog | None:
        store = self._store()
        if store is None:
            return None
        with self._lock:
            if not self._recheck.due() and self._catalog is not None:  # the store is looked at every RECHECK_S
                return self._catalog
            stamp = store.papers_and_people_stamp()  # (max_seq(), people_stamp()) in one statement
            if self._catalog is None or stamp != self._stamp:
                self._catalog = Catalog(store)
                self._stamp = stamp
            return self._catalog

    def papers_using(self, word: str) -> int:
        """How many papers use the word: as written, from the corpus vocabulary when there is one
        (stemming makes 'Welling' the common 'well'), else its most used analysed term (0
        without a keyword index)."""
        parts = re.findall(r"[A-Za-z]+", word)
        if self.word_uses is not None and parts:
            counted = [self.word_uses(part) for part in parts]
            if all(uses is not None for uses in counted):
                return max(uses or 0 for uses in counted)
        if self.doc_freq is None:
            return 0
        return max((self.doc_freq(term) for term in terms(word, ENGLISH)), default=0)

    def person(self, name: str) -> Person | None:
        """The person a (romanised) name names, with their papers: what a Chinese name's
        reading calls (search.crosslingual: 何恺明 -> 'Kaiming He')."""
        catalog = self.catalog()
        identity = catalog.person(name) if catalog is not None else None
        return _person(catalog, identity, name) if catalog is not None and identity is not None else None

    def read(self, text: str) -> Intent:
        """What the query names (remembered per text until the store changes: a page reads it
        for its hits, its facet counts and its topic tree)."""
        text = text.strip()
        if not text:
            return NO_INTENT
        catalog = self.catalog()
        if catalog is None:
            return NO_INTENT
        with self._lock:
            if self._read_for is not catalog:
                self._read.clear()
                self._read_for = catalog
            if text in self._read:
                self._read.move_to_end(text)
                return self._read[text]
        intent = self._read_now(text, catalog)
        with self._lock:
            self._read[text] = intent
            while len(self._read) > READ_KEPT:
                self._read.popitem(last=False)
        return intent

    def _read_now(self, text: str, catalog: Catalog) -> Intent:
        try:
            parsed = parse_query(text)
        except QuerySyntaxError:
            return NO_INTENT
        nodes = [node for node in parsed.required if isinstance(node, Words) and node.field is None]
        if parsed.excluded or parsed.filters != Filters() or not nodes or len(nodes) != len(parsed.required):
            return NO_INTENT  # the query language's operators mean what they say
        if len(nodes) == 1:
            intent = self._id_intent(catalog, nodes[0])
            if intent is not None:
                return intent
        words = " ".join(node.text for node in nodes)
        if has_cjk(words):  # the papers' titles and names are Latin (a Chinese name's reading calls person())
            return PLAIN
        titled = catalog.titled(words)
        if titled:
            return Intent("title", pinned=titled)
        if any(node.phrase for node in nodes):
            return NO_INTENT
        tokens = words.split()
        if len(tokens) > NAV_MAX_WORDS:  # a description, not a name or `venue year` words
            return PLAIN
        filters, filter_words, rest = self._filter_words(catalog, tokens)
        if filter_words and rest:
            titled = catalog.titled(" ".join(rest))
            if titled:
                return Intent("title", text=" ".join(rest), filters=filters, pinned=titled,
                              filter_words=filter_words)
        person, rest = self._person_in(catalog, rest)
        if person is not None:
            filters = replace(filters, paper_ids=frozenset(person.paper_ids))
            return Intent("person", text=" ".join(rest), filters=filters, person=person, filter_words=filter_words)
        if filter_words:
            return Intent("none", text=" ".join(rest), filters=filters, filter_words=filter_words, plain=True)
        return PLAIN

    def _id_intent(self, catalog: Catalog, node: Words) -> Intent | None:
        """An id or URL: its paper, or an id of a paper this data dir does not have."""
        paper_id, unknown = catalog.paper_for_id(node.text)
        if paper_id is not None:
            return Intent("paper_id", text="", filters=Filters(paper_ids=frozenset({paper_id})), matched_id=paper_id)
        if (unknown is None and not node.phrase and OPENREVIEW_LIKE.match(node.text)
                and self.doc_freq is not None and self.papers_using(node.text) == 0):
            unknown = ("openreview", node.text)  # shaped like a forum id, and no paper has the word
        if unknown is None:
            return None
        return Intent("unknown_id", text="", filters=Filters(paper_ids=frozenset()), unknown=unknown)

    @staticmethod
    def _filter_words(catalog: Catalog, tokens: list[str]) -> tuple[Filters, tuple[str, ...], list[str]]:
        """Venue names and years among a short query's words, as filters."""
        venues: list[str] = []
        years: tuple[int, int] | None = None
        used: list[str] = []
        rest: list[str] = []
        low, high = catalog.years
        for token in tokens:
            venue = catalog.venues.get(token.casefold())
            year = YEAR_WORD.match(token)
            if venue is not None:
                venues.append(venue)
                used.append(token)
            elif year and years is None and low <= int(year.group(1)) <= high \
                    and low <= int(year.group(2) or year.group(1)) <= high + 1:
                first, last = int(year.group(1)), int(year.group(2) or year.group(1))
                years = (min(first, last), max(first, last))
                used.append(token)
            else:
                rest.append(token)
        filters = Filters(venues=tuple(dict.fromkeys(venues)),
                          year_from=years[0] if years else None, year_to=years[1] if years else None)
        return filters, tuple(used), rest

    def _person_in(self, catalog: Catalog, tokens: list[str]) -> tuple[Person | None, list[str]]:
        """A person named by all the words, or by a run of them (the rest being the topic)."""
        if not tokens:
            return None, tokens
        if len(tokens) <= NAME_MAX_WORDS and all(_name_like(token) for token in tokens):
            identity = catalog.person(" ".join(tokens)) if len(tokens) > 1 else \
                catalog.mononym(tokens[0], self.papers_using)
            if identity is not None:
                return _person(catalog, identity, " ".join(tokens)), []
        for size in (3, 2):
            for start in range(len(tokens) - size + 1):
                span = tokens[start:start + size]
                # beside other words, a name is written as one: capitalised ("Yoshua Bengio attention")
                if len(span) == len(tokens) or not all(_name_like(token) and token[0].isupper() for token in span):
                    continue
                identity = catalog.person(" ".join(span))
                if identity is not None:
                    return _person(catalog, identity, " ".join(span)), tokens[:start] + tokens[start + size:]
        if self.doc_freq is not None and len(tokens) > 1:
            for at, token in enumerate(tokens):
                if not _name_like(token):
                    continue
                identity = catalog.person(token, self.papers_using)
                # a lone surname: capitalised as typed, or the surname of someone with many papers
                if identity is not None and (token[0].isupper() or identity.papers >= LONE_SURNAME_PAPERS):
                    return _person(catalog, identity, token), tokens[:at] + tokens[at + 1:]
        return None, tokens


def _name_like(token: str) -> bool:
    """A word that can be part of a written name: letters, with dots, hyphens, apostrophes."""
    return bool(re.fullmatch(r"[^\W\d_]+(?:[.'’-][^\W\d_]+)*\.?,?", token))


def _person(catalog: Catalog, identity: _Identity, words: str) -> Person:
    """The person an identity is, with the other people written the same way (namesakes: the
    query may mean any of them, so each is listed with a hint and a link to their page)."""
    name = catalog.shown_name(identity)
    others = catalog.namesakes(identity)
    listed = tuple(Namesake(catalog.shown_name(other), other.author_id or other.name_key, other.papers, catalog.hint(other))
                   for other in others[:NAMESAKES_LISTED])
    return Person(name, identity.author_id or name, catalog.papers_of(identity), words, namesakes=listed,
                  more_namesakes=max(len(others) - NAMESAKES_LISTED, 0), hint=catalog.hint(identity) if others else None)
