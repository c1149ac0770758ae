"""Chinese names read as the author spellings papers use (search/zhnames.py)."""

from __future__ import annotations

from papersift.search import zhnames
from papersift.search.zhnames import ChineseNames, spellings


def test_surnames_come_with_their_name_reading():
    known = zhnames.surnames()
    assert known["何"] == "He" and known["欧阳"] == "Ouyang"
    assert known["单"] == "Shan"  # the surname's reading, not the word's (dan)


def test_a_name_is_spelled_given_name_first_and_surname_first():
    assert spellings("何恺明")[:2] == ["Kaiming He", "He Kaiming"]
    assert "Fei Fei Li" in spellings("李飞飞")  # "Fei-Fei Li" folds to this key
    assert spellings("欧阳明")[:2] == ["Ming Ouyang", "Ouyang Ming"]


def test_what_cannot_be_a_name_has_no_spelling():
    assert spellings("何") == []  # a surname alone
    assert spellings("卷积神经网络") == []  # too long
    assert spellings("的恺明") == []  # 的 is no surname


def test_a_name_reads_as_the_spelling_papers_use(indexed_dir):
    names = ChineseNames(indexed_dir)
    assert names.read("朱军") == ("Jun Zhu", 7)  # 7 sample papers by Jun Zhu
    assert names.read("何恺明") is None  # no sample paper by Kaiming He


def test_pinyin_tables_load_only_for_a_token_that_may_be_a_name():
    """pypinyin's tables cost ~0.5 s a process: a term that starts with no surname (扫视) never loads them."""
    import subprocess
    import sys

    code = ("import sys; from papersift.search.zhnames import spellings; "
            "print(spellings('扫视'), 'pypinyin' in sys.modules, spellings('何恺明')[:1], 'pypinyin' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["[]", "False", "['Kaiming", "He']", "True"]


def test_pinyin_is_read_without_its_phrase_table():
    """pypinyin's phrase table is ~0.11 s of a process's first name and changed 2 of CC-CEDICT's
    1,130 people's given names (scripts/name_pinyin.py): a name is read without it."""
    import os
    import subprocess
    import sys

    env = {key: value for key, value in os.environ.items() if key != "PYPINYIN_NO_PHRASES"}
    code = ("import sys; from papersift.search.zhnames import spellings; "
            "print(spellings('何恺明')[0], 'pypinyin.phrases_dict' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert done.stdout.split() == ["Kaiming", "He", "False"]
