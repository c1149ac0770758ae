"""Chinese query text in the forms the reading knows: simplified script, mainland usage, half-width Latin.

The term lexicon, CC-CEDICT's senses and the glossary are keyed by simplified Chinese, so a
query typed in traditional characters (卷積神經網路), with Taiwan usage (資訊 for 信息, 函式
for 函数, 網路 for 网络) or with full-width Latin letters (ＢＥＲＴ模型) is read as its
simplified, mainland, half-width form. OpenCC does the script and the usage:

- `t2s` converts characters (and the phrases whose characters convert ambiguously): 卷積 → 卷积;
- `tw2sp` also replaces Taiwan words by mainland ones (資訊 → 信息, 網路 → 网络, 函式 → 函数),
  but its phrase table runs both ways and turns some words every ML text uses into rarer ones
  (向量 vector → 矢量, 程序 → 进程), whatever the script they were typed in.

So a query typed in traditional script has up to two forms (`forms`): the t2s one, and the
tw2sp one when it differs; the reading (search/crosslingual.py) reads each and keeps the surer.
A query in simplified script is read as typed. NFKC first makes full-width
letters, digits and spaces half-width (ＢＥＲＴ → BERT), as the keyword index's analyzer does.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache

from papersift.index.analyzers import has_cjk
from papersift.search.stages import stage

_lock = threading.Lock()
_FULL_WIDTH_ALNUM = re.compile("[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]+")  # an OpenCC converter is not documented as thread-safe


@lru_cache(maxsize=4)
def _converter(config: str):
    import opencc

    return opencc.OpenCC(config)


def warm_up() -> None:
    """Load both converters (~10 ms each) so that a server's first Chinese query does not."""
    _converter("t2s")
    _converter("tw2sp")


def _convert(config: str, text: str) -> str:
    with stage("reading.forms"), _lock:
        return str(_converter(config).convert(text))


def halfwidth(text: str) -> str:
    """Full-width Latin letters and digits as ASCII (their NFKC forms: ＢＥＲＴ → BERT). Chinese
    full-width punctuation stays: it separates a description's phrases as typed (turned into
    ASCII, known-item zh dev lost MRR@10 through other jieba segments)."""
    return _FULL_WIDTH_ALNUM.sub(lambda found: unicodedata.normalize("NFKC", found.group()), text)


@lru_cache(maxsize=4096)
def forms(text: str) -> tuple[str, ...]:
    """The query's forms to read, the plain simplified one first: (t2s,) or (t2s, tw2sp).
    Text without CJK is only made half-width."""
    text = halfwidth(text)
    if not has_cjk(text):
        return (text,)
    simplified = _convert("t2s", text)
    if simplified == text:  # typed in simplified script: tw2sp would only turn 向量 into 矢量
        return (text,)
    mainland = _convert("tw2sp", text)
    return (simplified,) if mainland == simplified else (simplified, mainland)


def simplified(text: str) -> str:
    """The query's plain simplified, half-width form (the first of `forms`)."""
    return forms(text)[0]


def traditional(text: str) -> str:
    """Simplified text in traditional characters (OpenCC s2t): the zhterms bench's --traditional."""
    return _convert("s2t", text)
