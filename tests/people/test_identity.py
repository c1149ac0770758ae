"""Who is who: name folding, given-name compatibility, the rule's merges and splits, and the
pairwise scores `papersift authors evaluate` reports."""

from __future__ import annotations

from papersift.names import block_key, full_key, split_name
from papersift.people import identity
from papersift.people.identity import (
    Mention,
    assign_identities,
    cluster_by_exact_name,
    cluster_by_rule,
    given_names_compatible,
    pairwise_scores,
)


def test_names_fold_case_accents_punctuation_and_particles():
    assert full_key("Adam Prügel-Bennett") == full_key("adam prugel bennett") == "adam prugel bennett"
    assert full_key("Kolter, J. Zico") == "j zico kolter"
    assert split_name("Ludwig van Beethoven") == (["ludwig"], "van beethoven")
    assert block_key("J. Zico Kolter") == "kolter j"


def test_given_names_compatible_with_initials_and_missing_middle_names():
    assert given_names_compatible(["j", "zico"], ["zico"])
    assert given_names_compatible(["j"], ["j", "zico"])
    assert given_names_compatible(["michael", "i"], ["michael"])
    assert not given_names_compatible(["john"], ["james"])
    assert not given_names_compatible(["zico"], ["zachary"])


def _paper(paper_id: str, *names: str, ids: tuple = (), affs: tuple = ()) -> list[Mention]:
    return [Mention(paper_id, position, name, full_key(name), ids[position] if ids else None,
                    affs[position] if affs else None) for position, name in enumerate(names)]


def test_rule_merges_spellings_that_share_a_coauthor_and_not_strangers():
    mentions = [*_paper("p1", "Zico Kolter", "Eric Wong"), *_paper("p2", "J. Zico Kolter", "Eric Wong"),
                *_paper("p3", "J Kolter", "Eric Wong"), *_paper("p4", "John Kolter", "Ann Other")]
    clusters = cluster_by_rule(mentions)
    kolters = [clusters[index] for index, mention in enumerate(mentions) if "olter" in mention.name]
    assert kolters[0] == kolters[1] == kolters[2] != kolters[3]
    exact = cluster_by_exact_name(mentions)
    assert len({exact[0], exact[2], exact[4]}) == 3  # the baseline keeps the three spellings apart


def test_crowded_surname_is_split_by_coauthors(monkeypatch):
    monkeypatch.setattr(identity, "CROWDED_SURNAME", 2)
    mentions = [*_paper("p1", "Wei Wang", "Ann Lee"), *_paper("p2", "Wei Wang", "Ann Lee"),
                *_paper("p3", "Wei Wang", "Bo Kim"), *_paper("p4", "Li Wang", "Cy Dee")]
    clusters = cluster_by_rule(mentions)
    assert clusters[0] == clusters[2] != clusters[4]
    monkeypatch.setattr(identity, "CROWDED_SURNAME", 10**9)
    clusters = cluster_by_rule(mentions)
    assert clusters[0] == clusters[2] == clusters[4]


def test_openreview_ids_are_ground_truth_in_identities():
    mentions = [*_paper("p1", "Wei Wang", "Ann Lee", ids=("~Wei_Wang1", "")),
                *_paper("p2", "Wei Wang", "Bo Kim", ids=("~Wei_Wang2", "")),
                *_paper("p3", "Ann Lee", "Cy Dee")]
    found = assign_identities(mentions)
    assert found[0] == "~Wei_Wang1" and found[2] == "~Wei_Wang2"
    assert found[1] == found[4] == "ann-lee"


def test_pairwise_scores_count_pairs():
    # truth: {a,a,a}, {b}; predicted: {0,0}, {1,1}: one agreed pair of 3 true, 2 predicted
    scores = pairwise_scores([0, 0, 1, 1], ["a", "a", "a", "b"])
    assert (scores["true_pairs"], scores["predicted_pairs"], scores["agreed_pairs"]) == (3, 2, 1)
    assert scores["precision"] == 0.5 and scores["recall"] == round(1 / 3, 4)
