"""Who is who: which author mentions (one name on one paper) are the same person.

Ground truth where the listings have it: mentions that carry one OpenReview profile id
('~Zico_Kolter1') are that person. Elsewhere the rule (docs/authors.md):

1. Spelling: names are compared after `papersift.names` folds case, accents and punctuation.
   Mentions with the same folded spelling are one person, unless the spelling is *crowded*:
   its surname has at least CROWDED_SURNAME distinct given-name spellings in the corpus (Wang,
   Li, Zhang...), where one spelling is often several people. A crowded spelling is split into
   groups linked by a shared co-author (the namesakes' collaborators differ).
2. Variants: two spellings of one surname whose given names are compatible ('J. Zico' ~
   'Zico' ~ 'J Zico'; initials match full names, middle names may be missing) are merged when
   their groups share a co-author.

`evaluate` scores the rule against the OpenReview ids, pairwise, beside exact-name matching.
"""

from __future__ import annotations

import hashlib
import re
from array import array
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from itertools import combinations, groupby
from operator import itemgetter

import numpy as np

from papersift.names import split_name
from papersift.people.affiliations import institution
from papersift.people.venues import precompute
from papersift.store import Store
from papersift.store import identities as stored

# Chosen on the dev half of the OpenReview ids (sha1(id) % 2 == 0): F1 0.977 at 150, 0.979 at
# 250, 0.978 at 400; the held-out half is reported beside it by `papersift authors evaluate`.
CROWDED_SURNAME = 250
USE_AFFILIATION = True


@dataclass(frozen=True, slots=True)
class Mention:
    paper_id: str
    position: int
    name: str
    name_key: str
    openreview_id: str | None
    affiliation: str | None


class _UnionFind:
    def __init__(self, size: int):
        self.parent = list(range(size))

    def find(self, item: int) -> int:
        parent = self.parent
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    def union(self, a: int, b: int) -> None:
        root_a, root_b = self.find(a), self.find(b)
        if root_a != root_b:
            self.parent[max(root_a, root_b)] = min(root_a, root_b)


def _token_match(a: str, b: str) -> bool:
    return a == b or (len(a) == 1 and b[0] == a) or (len(b) == 1 and a[0] == b)


def given_names_compatible(first: list[str], second: list[str]) -> bool:
    """'j zico' ~ 'zico' ~ 'j' ~ 'j z'; 'michael i' ~ 'michael'; 'john' !~ 'james'."""
    if not first or not second:
        return False
    if _token_match(first[0], second[0]):
        shorter, longer = sorted((first[1:], second[1:]), key=len)
        position = 0
        for token in shorter:  # the shorter's middle names appear in order in the longer's
            while position < len(longer) and not _token_match(token, longer[position]):
                position += 1
            if position == len(longer):
                return False
            position += 1
        return True
    # a leading initial that the other spelling leaves out ('J Zico Kolter' ~ 'Zico Kolter')
    if len(first[0]) == 1 and len(first) > 1 and len(second[0]) > 1:
        return given_names_compatible(first[1:], second)
    if len(second[0]) == 1 and len(second) > 1 and len(first[0]) > 1:
        return given_names_compatible(first, second[1:])
    return False


def cluster_by_exact_name(mentions: list[Mention]) -> list[int]:
    """The baseline: one person per exact (folded) spelling."""
    first_seen: dict[str, int] = {}
    return [first_seen.setdefault(mention.name_key, index) for index, mention in enumerate(mentions)]


def cluster_by_rule(mentions: list[Mention]) -> list[int]:
    """A cluster number per mention, by the rule in the module docstring (ids not used)."""
    papers: dict[str, list[int]] = defaultdict(list)
    for index, mention in enumerate(mentions):
        papers[mention.paper_id].append(index)
    coauthors = [[mentions[other].name_key for other in papers[mention.paper_id] if other != index]
                 for index, mention in enumerate(mentions)]
    return _clusters([mention.name_key for mention in mentions], coauthors,
                     [mention.affiliation for mention in mentions])


def _clusters(keys: Sequence[str], coauthors: Sequence[Sequence[Hashable]],
              affiliations: Sequence[str | None]) -> list[int]:
    """The rule on mentions in corpus order (by paper and position), given each one's name key,
    its co-authors' name keys (as any token that tells spellings apart) and its affiliation: a
    cluster number per mention, the index of the cluster's first mention. Every link stays
    within one surname, so any set of whole surnames gives the same clusters alone as with the
    rest of the corpus (what `build` relies on)."""
    spellings: dict[str, list[int]] = defaultdict(list)
    for index, key in enumerate(keys):
        spellings[key].append(index)
    parts = {key: split_name(key) for key in spellings}
    given_per_surname = Counter(surname for _, surname in parts.values())

    groups = _UnionFind(len(keys))
    for key, members in spellings.items():
        if given_per_surname[parts[key][1]] < CROWDED_SURNAME:
            for other in members[1:]:
                groups.union(members[0], other)
            continue
        by_evidence: dict[Hashable, int] = {}  # crowded: link mentions that share a co-author or affiliation
        for index in members:
            evidence: list[Hashable] = list(coauthors[index])
            affiliation = affiliations[index]
            if USE_AFFILIATION and affiliation:
                evidence.append("@" + institution(affiliation))
            for item in evidence:
                groups.union(by_evidence.setdefault(item, index), index)

    def collaborators(root_members: list[int]) -> set[Hashable]:
        return {other for index in root_members for other in coauthors[index]}

    # Variants: compatible spellings of one surname that share a co-author.
    blocks: dict[tuple[str, str], set[str]] = defaultdict(set)
    for key, (given, surname) in parts.items():
        if given:
            blocks[(surname, given[0][0])].add(key)
            if len(given[0]) == 1 and len(given) > 1:
                blocks[(surname, given[1][0])].add(key)
    for keys_in_block in blocks.values():
        if len(keys_in_block) < 2:
            continue
        roots: dict[int, list[int]] = defaultdict(list)
        key_roots: dict[str, set[int]] = defaultdict(set)
        for key in keys_in_block:
            for index in spellings[key]:
                root = groups.find(index)
                roots[root].append(index)
                key_roots[key].add(root)
        circles = {root: collaborators(members) for root, members in roots.items()}
        for first, second in combinations(sorted(keys_in_block), 2):
            if not given_names_compatible(parts[first][0], parts[second][0]):
                continue
            for root_a in key_roots[first]:
                for root_b in key_roots[second]:
                    if circles[root_a] & circles[root_b]:
                        groups.union(root_a, root_b)
    return [groups.find(index) for index in range(len(keys))]


def _people(clusters: list[int], keys: Sequence[str],
            openreview_ids: Sequence[str | None]) -> Iterator[tuple[list[int], list[str] | None, str]]:
    """Per cluster, in order of first mention: (its mentions, their identities when the cluster
    holds OpenReview ids, else None; the slug of its most used spelling, fullest on a tie)."""
    members: dict[int, list[int]] = defaultdict(list)
    for index, cluster in enumerate(clusters):
        members[cluster].append(index)
    for indexes in members.values():
        ids = Counter(openreview_id for i in indexes if (openreview_id := openreview_ids[i]))
        if ids:  # a cluster holding several ids is split by id; its id-less mentions join its most frequent id
            main_id = ids.most_common(1)[0][0]
            yield indexes, [openreview_ids[i] or main_id for i in indexes], ""
            continue
        spellings = Counter(keys[i] for i in indexes)
        yield indexes, None, _slug(max(spellings, key=lambda key: (spellings[key], len(key), key)))


def assign_identities(mentions: list[Mention]) -> list[str]:
    """An author id per mention: the rule's clusters, with OpenReview ids as ground truth (a
    cluster holding several ids is split by id; its id-less mentions join its most frequent id).
    Ids: the OpenReview id, else the folded spelling as a slug ('zico-kolter', 'wei-wang-2')."""
    keys = [mention.name_key for mention in mentions]
    identities = [""] * len(mentions)
    named: dict[str, list[list[int]]] = defaultdict(list)
    for indexes, given, slug in _people(cluster_by_rule(mentions), keys,
                                        [mention.openreview_id for mention in mentions]):
        if given is not None:
            for i, identity in zip(indexes, given):
                identities[i] = identity
        else:
            named[slug].append(indexes)
    for slug, groups in named.items():  # the same numbering as the store's RANK_NAMED
        for rank, indexes in enumerate(sorted(groups, key=len, reverse=True), 1):
            for i in indexes:
                identities[i] = slug if rank == 1 else f"{slug}-{rank}"
    return identities


def _slug(name_key: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name_key).strip("-") or "unknown"


def pairwise_scores(clusters: list[int], truth: list[str]) -> dict:
    """Pairwise precision / recall / F1 of 'same author' over the mentions, counted from the
    cluster x truth contingency table (no enumeration of pairs)."""
    def pairs(counts) -> int:
        return sum(n * (n - 1) // 2 for n in counts)

    predicted = pairs(Counter(clusters).values())
    actual = pairs(Counter(truth).values())
    agreed = pairs(Counter(zip(clusters, truth)).values())
    precision = agreed / predicted if predicted else 1.0
    recall = agreed / actual if actual else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4),
            "predicted_pairs": predicted, "true_pairs": actual, "agreed_pairs": agreed}


def id_half(openreview_id: str) -> str:
    """'dev' (thresholds were chosen there) or 'test' (held out), by sha1 of the id."""
    return "dev" if int(hashlib.sha1(openreview_id.encode()).hexdigest(), 16) % 2 == 0 else "test"


def evaluate(mentions: list[Mention]) -> dict:
    """Both methods run on every mention (no ids used); scored on the mentions that carry an
    OpenReview id: all of them, and each half of the ids (pairs within the half)."""
    ids = {index: openreview_id for index, mention in enumerate(mentions) if (openreview_id := mention.openreview_id)}
    scored = list(ids)
    truth = list(ids.values())
    report: dict[str, object] = {"mentions": len(mentions), "scored_mentions": len(scored),
                                 "scored_people": len(set(truth)), "crowded_surname": CROWDED_SURNAME}
    halves: dict[str, list[int]] = {"dev": [], "test": []}
    for index, openreview_id in ids.items():
        halves[id_half(openreview_id)].append(index)
    for method, clusters in (("exact_name", cluster_by_exact_name(mentions)), ("rule", cluster_by_rule(mentions))):
        scores = pairwise_scores([clusters[index] for index in scored], truth)
        for half, indexes in halves.items():
            scores[half] = pairwise_scores([clusters[index] for index in indexes], [ids[index] for index in indexes])
        report[method] = scores
    return report


def load_mentions(store: Store) -> list[Mention]:
    rows = store.read("SELECT paper_id, position, name, name_key, openreview_id, affiliation FROM paper_authors"
                      " ORDER BY paper_id, position")
    return [Mention(*row) for row in rows]


def is_stale(store: Store) -> bool:
    """Whether papers or submissions were written since identities were last built."""
    return not store.read("SELECT 1 FROM people_summaries WHERE stamp=? LIMIT 1", (store.people_stamp(),))


def _surname(name_key: str) -> str:
    return split_name(name_key)[1]


def build(store: Store) -> dict:
    """Assign every author row its identity; returns counts. Streamed, one surname at a time
    (every link of the rule stays within a surname): memory holds a few numbers per author row
    (its paper, its spelling as a 64-bit hash, for co-author evidence) and one surname's rows.
    Identities are staged as they come and swapped in in one transaction (the store's
    `store.identities.staging`): a killed build changes nothing."""
    with stored.staging(store) as stage, closing(stored.author_rows_grouped(store, _surname)) as grouped:
        position_of, paper_of, paper_start, key_hashes = _corpus_arrays(stored.author_rows_by_paper(store))
        rows: list[tuple[int, str | None, str | None, int | None, int | None]] = []
        spellings = 0
        for _, group in groupby(grouped, key=itemgetter(0)):
            mentions = sorted((int(position_of[rowid]), rowid, key, openreview_id, affiliation)
                              for _, rowid, key, openreview_id, affiliation in group)
            coauthors = []
            for index, *_ in mentions:
                paper = paper_of[index]
                others = key_hashes[paper_start[paper]:paper_start[paper + 1]].tolist()
                del others[index - paper_start[paper]]
                coauthors.append(others)
            keys = [mention[2] for mention in mentions]
            spellings += len(set(keys))
            for indexes, identities, slug in _people(_clusters(keys, coauthors, [mention[4] for mention in mentions]),
                                                     keys, [mention[3] for mention in mentions]):
                if identities is not None:
                    rows.extend((mentions[i][1], identity, None, None, None) for i, identity in zip(indexes, identities))
                else:
                    first = mentions[indexes[0]][0]
                    rows.extend((mentions[i][1], None, slug, len(indexes), first) for i in indexes)
            if len(rows) >= STAGE_ROWS:
                stage.add(rows)
                rows = []
        stage.add(rows)
        distinct = len(np.unique(key_hashes))
        if spellings != distinct:  # two spellings, one hash: co-author evidence would mix them
            raise RuntimeError(f"author identities: {spellings:,} spellings but {distinct:,}"
                               " distinct hashes of them; run again (Python draws a new hash seed each run)")
    mentions_count, authors, with_openreview_id = stored.author_identity_counts(store)
    return {"mentions": mentions_count, "authors": authors,
            "venue_summaries": precompute(store),  # venue pages count authors by identity
            "with_openreview_id": with_openreview_id}


STAGE_ROWS = 5_000


def _corpus_arrays(rows: Iterable[tuple[int, str, str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """From (rowid, paper id, name key) by paper and position: each row's mention index (by
    rowid), each mention's paper number, each paper's first mention (and one past the last),
    and each mention's name key as a 64-bit hash (checked free of collisions)."""
    rowids, papers, hashes, starts = array("q"), array("i"), array("q"), array("i")
    last = None
    for rowid, paper_id, key in rows:
        if paper_id != last:
            starts.append(len(rowids))
            last = paper_id
        rowids.append(rowid)
        papers.append(len(starts) - 1)
        hashes.append(hash(key))
    starts.append(len(rowids))
    rowid_array = np.frombuffer(rowids, dtype=np.int64)
    position_of = np.full(int(rowid_array.max()) + 1 if len(rowids) else 0, -1, dtype=np.int32)
    position_of[rowid_array] = np.arange(len(rowids), dtype=np.int32)
    key_hashes = np.frombuffer(hashes, dtype=np.int64)
    return position_of, np.frombuffer(papers, dtype=np.int32), np.frombuffer(starts, dtype=np.int32), key_hashes
