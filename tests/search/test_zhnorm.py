"""Traditional script, Taiwan usage and full-width forms read as simplified (search/zhnorm.py)."""

from __future__ import annotations

from papersift.search import zhnorm


def test_traditional_characters_become_simplified():
    assert zhnorm.simplified("卷積神經網路")[:4] == "卷积神经"
    assert zhnorm.simplified("機器學習") == "机器学习"


def test_taiwan_usage_gives_a_second_mainland_form():
    # 網路 is Taiwan's word for 网络 (network), 資訊 for 信息, 函式 for 函数
    assert zhnorm.forms("卷積神經網路") == ("卷积神经网路", "卷积神经网络")
    assert "信息检索" in zhnorm.forms("資訊檢索")
    assert "递归函数" in zhnorm.forms("遞迴函式")


def test_simplified_text_is_read_as_typed():
    # tw2sp would turn 向量 (vector) into 矢量
    assert zhnorm.forms("支持向量机") == ("支持向量机",)
    # full-width Chinese punctuation stays: it separates a description's phrases
    assert zhnorm.forms("图像，扰动") == ("图像，扰动",)


def test_full_width_latin_becomes_half_width():
    assert zhnorm.simplified("ＢＥＲＴ模型") == "BERT模型"
    assert zhnorm.forms("ＢＥＲＴ") == ("BERT",)


def test_traditional_converts_simplified_text_for_the_bench():
    assert zhnorm.traditional("卷积神经网络") == "卷積神經網絡"
