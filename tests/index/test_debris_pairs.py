"""The line-end pairs that clean_extraction_debris rejoins are found from the text's "- "
(pagespeed): the same matches, in order, as the regex that defines them."""

from __future__ import annotations

import random

from papersift.index.debris import _LINE_END_HYPHEN, _SUSPENDED_BEFORE, _line_end_pairs, clean_extraction_debris

ALPHABET = ["a", "b", "z", "A", "Q", "-", " ", "- ", "-  ", "é", "É", "3", "_", ".", "(", "\n", "ß", "x- y"]


def regex_pairs(text: str) -> list[tuple[int, int, int]]:
    return [(match.start(), match.start() + len(match[1]), match.end()) for match in _LINE_END_HYPHEN.finditer(text)]


def test_the_pairs_found_from_the_hyphens_are_the_regexs_matches():
    generator = random.Random(7)
    texts = ["ab- cd- ef", "bidi- rected", "a- - b", "é- rected", "bidi- rectedX", "Bidi- rected_", "3ab- cd",
             "ab- cd3", "pre- and post-training", "x- y- z", "a-- b", "- ab", "ab- ", "ab -cd", "AB- cd.",
             "_ab- cd", "ab- cdé", "ab- cd- ef- gh ij- kl"]
    texts += ["".join(generator.choices(ALPHABET, k=generator.randint(1, 40))) for _ in range(30_000)]
    matched = 0
    for text in texts:
        assert _line_end_pairs(text) == regex_pairs(text), text
        matched += bool(regex_pairs(text))
    assert matched > 1000  # texts with pairs, not only texts without


def test_rejoined_text_is_what_the_regex_substitution_gives():
    known = {"bidirected", "abcd", "cdef", "xy"}.__contains__
    generator = random.Random(11)
    texts = ["bidi- rected graphs", "ab- cd- ef", "pre- and post-training", "x- y", "learn(cid:173) ing"]
    texts += ["".join(generator.choices(["ab", "cd", "ef", "x", "y", "- ", " ", "-", "and", "é"], k=20))
              for _ in range(5_000)]

    def by_regex(text: str) -> str:
        def rejoin(match):
            left, right = match.groups()
            return match[0] if right in _SUSPENDED_BEFORE or not known(left + right) else left + right
        return _LINE_END_HYPHEN.sub(rejoin, text.replace("(cid:173) ", ""))

    assert [clean_extraction_debris(text, known) for text in texts] == [by_regex(text) for text in texts]
