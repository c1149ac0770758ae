"""Maths in abstracts as MathML on the page (issue 28 item 9; web/mathml.py): converted on the
server, hostile TeX never becomes markup, dollar amounts stay text, the stored text keeps the TeX."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import pytest
from markupsafe import escape

from papersift.web.mathml import render_math, tex_to_mathml
from papersift.web.render import highlighted


def test_inline_tex_becomes_mathml_and_bold_becomes_strong():
    out = str(render_math(str(escape("Runs in $O((N/M)^2)$ with $\\gamma < 1$ and **bold** claims."))))
    assert out.count("<math") == 2 and "<strong>bold</strong>" in out and "$" not in out
    assert 'alttext="O((N/M)^2)"' in out and "<mi>γ</mi>" in out
    for formula in out.split("<math")[1:]:
        ElementTree.fromstring("<math" + formula.split("</math>")[0] + "</math>")  # well-formed


def test_hostile_tex_never_becomes_markup():
    for tex in ("\\text{<b>x</b>}", "\\href{javascript:alert(1)}{x}", "\\style{color:red}{y}",
                '\\color{red" onmouseover="alert(1)}{x}'):
        assert tex_to_mathml(tex) is None, tex  # latex2mathml passes these through: the TeX stays text
    operators = tex_to_mathml("<img src=x onerror=alert(1)>")
    assert operators is not None and "<img" not in operators and "<mo>&lt;</mo>" in operators
    out = str(highlighted(None, "Bad $\\text{<script>alert(1)</script>}$ math"))
    assert "<script>" not in out and "&lt;script&gt;" in out


def test_dollars_and_marks():
    assert "<math" not in str(render_math("costs $5 and $10 today"))
    marked = str(highlighted("the <mark>loss</mark> is $\\ell_1$", "the loss is $\\ell_1$"))
    assert "<mark>loss</mark>" in marked and "<math" in marked


@pytest.mark.browser
def test_chromium_draws_the_mathml_under_the_pages_csp(browser, live_server):
    from served_papers import CSP_WATCH, HOSTILE_ID

    context = browser.new_context(base_url=live_server, locale="en-US")
    context.add_init_script(CSP_WATCH)
    tab = context.new_page()
    tab.goto(f"/paper/{HOSTILE_ID}?lang=en")
    formula = tab.locator("p.abstract math")
    assert formula.count() == 1 and formula.get_attribute("alttext") == "O(n^2)"
    box = formula.bounding_box()
    assert box is not None and box["width"] > 10 and box["height"] > 5  # laid out as maths, not an unknown tag
    assert tab.evaluate("window.__csp") == [] and "$O(n^2)$" not in tab.locator("p.abstract").inner_text()
    context.close()
