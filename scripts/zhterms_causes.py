"""Why a Chinese term finds less than its English twin: the causes on one half of zhterms.

Reads a `papersift bench zhterms` report (keyword mode; optionally its `--traditional` twin) and,
for each Chinese term of the half whose reciprocal rank is at least GAP below its English twin's,
names the first cause that applies:

- right reading, ranked worse: the reading is the English term (bench.zhterms.same_term);
- glossary entry wrong / name wrong: the reading came from there and is not the term;
- check cap: a fresh lexicon with no cap on phrase checks reads the term right, the capped one not;
- phrase form: the reading is the term in another form of its words (one word a prefix of the
  other's, "bayes optimal" for "bayesian optimization"), or the term is among the composition's
  own candidates and another was chosen;
- segmentation: the term read in several pieces;
- per-morpheme sense: otherwise (read as one phrase, the dictionary's senses make another one).

It also counts the half's terms read in pieces one of which was read as nothing (any rank).

Usage: python scripts/zhterms_causes.py REPORT.json DATA_DIR [--half A] [--traditional TRAD.json]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from papersift.bench.zhterms import same_term, term_half
from papersift.index.termlexicon import analyzed
from papersift.search import termlexicon

GAP = 0.3


def _variant(read: str, english: str) -> bool:
    a, b = analyzed(read).split(), analyzed(english).split()
    if len(a) != len(b) or a == b:
        return False
    return all(x == y or x.startswith(y) or y.startswith(x) for x, y in zip(a, b))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("data_dir")
    parser.add_argument("--half", default="A")
    parser.add_argument("--traditional")
    parser.add_argument("--examples", type=int, default=3)
    args = parser.parse_args()
    rows = json.loads(Path(args.report).read_text())["per_query"]["keyword"]
    trad = json.loads(Path(args.traditional).read_text())["per_query"]["keyword"] if args.traditional else {}
    capped = termlexicon.lexicon_for(args.data_dir)
    assert capped is not None
    causes: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    worse_traditional = 0
    far = 0
    for qid, row in rows.items():
        if not qid.startswith("zh-") or (args.half != "all" and term_half(qid[3:]) != args.half):
            continue
        if qid in trad and trad[qid]["rr"] < row["rr"]:
            worse_traditional += 1
        en = rows["en-" + qid[3:]]
        if en["rr"] - row["rr"] < GAP:
            continue
        far += 1
        english, term_en = row.get("english") or "", row["term_en"]
        sources = {term["source"] for term in row["terms"]}
        if same_term(english, term_en):
            cause = "right reading, ranked worse"
        elif sources & {"glossary", "glossary+composition"}:
            cause = "glossary entry wrong"
        elif "name" in sources:
            cause = "read as a name"
        else:
            old = termlexicon.MAX_LOOKUPS
            termlexicon.MAX_LOOKUPS = 10**7
            try:
                uncapped = termlexicon.TermLexicon(capped.path).read(row["text"])
            finally:
                termlexicon.MAX_LOOKUPS = old
            fresh = termlexicon.TermLexicon(capped.path).read(row["text"])
            candidates = [t.english for t in fresh.terms] + [a for t in fresh.terms for a in t.alternatives] if fresh else []
            if uncapped and fresh and uncapped.english != fresh.english and same_term(uncapped.english, term_en):
                cause = "check cap cut the reading short"
            elif _variant(english, term_en) or any(_variant(c, term_en) for c in candidates[:1]):
                cause = "phrase form (word variant of the term)"
            elif any(same_term(c, term_en) for c in candidates):
                cause = "term among the composition's candidates, another chosen"
            elif len(row["terms"]) > 1 or (fresh is not None and len(fresh.terms) > 1):
                cause = "segmentation (read in pieces)"
            elif not english:
                cause = "nothing read"
            else:
                cause = "per-morpheme sense (dictionary lacks the domain sense)"
        causes[cause] += 1
        examples.setdefault(cause, []).append(f"{row['text']} → {english!r} ({term_en})")
    unread = [f"{row['text']} ({', '.join(t['chinese'] for t in row['terms'] if not t['english'])})"
              for qid, row in rows.items() if qid.startswith("zh-")
              and (args.half == "all" or term_half(qid[3:]) == args.half)
              and len(row["terms"]) > 1 and any(not t["english"] for t in row["terms"])]
    print(f"half {args.half}: {far} terms with zh RR at least {GAP} below en")
    for cause, count in causes.most_common():
        print(f"| {cause} | {count} | {'; '.join(examples[cause][:args.examples])} |")
    print(f"terms with a piece read as nothing: {len(unread)}" + (f" ({'; '.join(unread)})" if unread else ""))
    if trad:
        print(f"traditional script worse than simplified (any gap): {worse_traditional}")


if __name__ == "__main__":
    main()
