"""How often pypinyin reads a Chinese given name as CC-CEDICT does, with and without its phrase
table (search/zhnames.py loads pypinyin without it: ~0.11 s less for a process's first name).

The names are CC-CEDICT's people: entries of two to four characters that start with a surname
(zhnames.surnames) and whose gloss gives years of life ("毛泽东 [Mao2 Ze2 dong1] /Mao Zedong
(1893-1976)/"); the given name's syllables are compared without tones.

    python scripts/name_pinyin.py
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

PERSON = re.compile(r"^\S+ (\S{2,4}) \[([^\]]+)\] /[^/]*\(\d{3,4}-\d{0,4}\)")


def agreement() -> tuple[int, int]:
    """(names, names whose given name pypinyin reads as CC-CEDICT does) in this process."""
    from pypinyin import lazy_pinyin

    from papersift.search.cedict import dictionary_text
    from papersift.search.zhnames import surnames

    known = surnames()
    names = agreeing = 0
    for line in dictionary_text().decode("utf-8").splitlines():
        person = PERSON.match(line)
        if person is None:
            continue
        name, spelled = person.groups()
        cut = next((cut for cut in (2, 1) if name[:cut] in known and 1 <= len(name) - cut <= 2), 0)
        syllables = [re.sub(r"\d", "", syllable).lower().replace("u:", "v") for syllable in spelled.split()]
        if not cut or len(syllables) != len(name):
            continue
        names += 1
        agreeing += lazy_pinyin(name[cut:], errors="ignore") == syllables[cut:]
    return names, agreeing


def main() -> None:
    if len(sys.argv) > 1:  # one mode, in a process of its own (pypinyin reads the variable on import)
        names, agreeing = agreement()
        print(f"{sys.argv[1]}: {agreeing:,} of {names:,} given names read as CC-CEDICT does ({agreeing / names:.2%})")
        return
    for mode, phrases in (("with the phrase table", None), ("without it (zhnames)", "1")):
        env = {key: value for key, value in os.environ.items() if key != "PYPINYIN_NO_PHRASES"}
        if phrases:
            env["PYPINYIN_NO_PHRASES"] = phrases
        subprocess.run([sys.executable, __file__, mode], env=env, check=True)


if __name__ == "__main__":
    main()
