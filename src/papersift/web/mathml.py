"""Mathematics in paper text as MathML, on the server (issue 28 item 9): `$O((N/M)^2)$` and
`$\\gamma$` in abstracts become MathML (latex2mathml), so they render without JavaScript and
under the page's CSP; `**bold**` becomes <strong>. The stored text, and so the search, keeps the
raw TeX.

latex2mathml passes some input through as markup (`\\text{<b>x</b>}`, `\\href{javascript:...}`,
`\\style{...}`), so its output is parsed and rebuilt from an allowlist of MathML elements and
attributes, every text and attribute value escaped again; anything else (or output that does not
parse) leaves the TeX as the escaped text it was. Math is found as pandoc finds it: `$` followed
by a non-space, closed by a `$` after a non-space and not followed by a digit ("$5 and $10" stays
text).
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ElementTree
from functools import lru_cache

from markupsafe import Markup, escape

MAX_TEX_CHARS = 300
# In escaped HTML (a search snippet: escaped text and <mark>): $...$ on one line.
_MATH = re.compile(rf"\$(?=\S)([^$\n]{{1,{MAX_TEX_CHARS}}}?)(?<=\S)\$(?!\d)")
_BOLD = re.compile(r"\*\*(?=\S)([^*\n]{1,200}?)(?<=\S)\*\*")
_MARK = re.compile(r"</?mark>")
ELEMENTS = frozenset({"math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msup", "msub", "msubsup", "mfrac",
                      "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd", "mstyle", "mpadded",
                      "mphantom", "menclose", "semantics", "annotation"})
ATTRIBUTES = frozenset({"display", "mathvariant", "stretchy", "fence", "separator", "accent", "accentunder",
                        "linethickness", "columnalign", "rowspacing", "columnspacing", "width", "lspace", "rspace",
                        "movablelimits", "symmetric", "largeop", "minsize", "maxsize", "notation", "form", "displaystyle",
                        "scriptlevel", "encoding"})


class Unsafe(ValueError):
    """latex2mathml made something outside the allowlist."""


def _local(name: str) -> str:
    return name.rsplit("}", 1)[-1]


def _rebuild(element: ElementTree.Element) -> str:
    tag = _local(element.tag)
    if tag not in ELEMENTS:
        raise Unsafe(tag)
    attributes = []
    for name, value in element.attrib.items():
        if _local(name) not in ATTRIBUTES:
            raise Unsafe(name)
        attributes.append(f' {_local(name)}="{escape(value)}"')
    inner = str(escape(element.text or "")) + "".join(_rebuild(child) + str(escape(child.tail or "")) for child in element)
    return f"<{tag}{''.join(attributes)}>{inner}</{tag}>"


@lru_cache(maxsize=4096)
def tex_to_mathml(tex: str) -> str | None:
    """Inline MathML for a TeX formula, or None when it cannot be converted safely."""
    from latex2mathml.converter import convert

    try:
        root = ElementTree.fromstring(convert(tex))
        rebuilt = _rebuild(root)
    except Exception:  # noqa: BLE001 - latex2mathml raises many kinds on bad TeX; the text stays as it is
        return None
    # the TeX as the formula's text alternative (screen readers, copy)
    return rebuilt.replace("<math", f'<math alttext="{escape(tex)}"', 1)


def render_math(escaped: str) -> Markup:
    """Escaped HTML (text, maybe <mark>) with its $...$ as MathML and **bold** as <strong>."""
    def math(match: re.Match) -> str:
        mathml = tex_to_mathml(html.unescape(_MARK.sub("", match.group(1))))
        return mathml if mathml is not None else match.group(0)
    text = _MATH.sub(math, escaped) if "$" in escaped else escaped
    text = _BOLD.sub(r"<strong>\1</strong>", text) if "**" in text else text
    return Markup(text)
