"""axe-core (from npm, pinned in scripts/setup.sh) run in chromium on the search, paper, author
and venue pages, in both interface languages and both colour schemes: no serious or critical
violation (contrast, names and labels, landmarks, ARIA).

axe is injected as a Playwright init script, which the page's CSP does not govern, so the
page runs under its real policy while axe checks it."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import quote

import pytest

from served_papers import HOSTILE_ID

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
AXE = Path(os.environ.get("PAPERSIFT_AXE", ROOT / "node_modules" / "axe-core" / "axe.min.js"))
PINNED = re.search(r"AXE_VERSION=(\S+)", (ROOT / "scripts" / "setup.sh").read_text()).group(1)
BLOCKING = ("serious", "critical")
PAGES = {
    "search": "/?q=learning&mode=keyword",
    "search-filtered": "/?q=learning&mode=keyword&venue=ICLR&has_code=false&year_from=2019",
    "paper": f"/paper/{quote(HOSTILE_ID, safe='')}",
    "author": "/author/" + quote("Mallory <b>Evil</b>", safe=""),
    "venue": "/venue/ICLR",
    "venue-year": "/venue/ICLR/2024",
}


@pytest.fixture(scope="module")
def axe_source() -> str:
    assert AXE.is_file(), (f"axe-core missing at {AXE}: run scripts/setup.sh (npm install axe-core@{PINNED}) "
                           "or set $PAPERSIFT_AXE to its axe.min.js")
    return AXE.read_text()


def violations(browser, live_server, axe_source: str, path: str, lang: str, scheme: str,
               sign_in: str | None = None) -> tuple[str, list[dict]]:
    context = browser.new_context(base_url=live_server, color_scheme=scheme, viewport={"width": 1280, "height": 900})
    context.add_init_script(axe_source)
    tab = context.new_page()
    if sign_in is not None:  # the browser signed in with the write token (the forms are shown)
        tab.goto(f"/signin?token={sign_in}")
    response = tab.goto(f"{path}{'&' if '?' in path else '?'}lang={lang}")
    assert response.status == 200
    found = tab.evaluate("""async () => {
        const result = await axe.run(document, {resultTypes: ['violations']});
        return [axe.version, result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                 nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' :: ' + n.failureSummary)}))];
    }""")
    context.close()
    return found[0], found[1]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("name", list(PAGES))
def test_no_serious_accessibility_violations(browser, live_server, axe_source, name, lang, scheme):
    version, found = violations(browser, live_server, axe_source, PAGES[name], lang, scheme)
    assert version == PINNED
    blocking = [violation for violation in found if violation["impact"] in BLOCKING]
    assert blocking == [], "\n".join(f"{v['impact']} {v['id']}: {v['help']}\n  " + "\n  ".join(v["nodes"]) for v in blocking)


# The library's forms only show on a server that can write: the hits' tag / like / not-interested
# controls, the library page's note, reading-state and import forms, a tag's recommendations.
A11Y_TOKEN = "a11y-library-token-24-chars"
LIBRARY_PAGES = {
    "search-with-controls": "/?q=learning&mode=keyword",
    "library": "/library",
    "library-recommend": "/library/recommend?tag=" + quote("<b>to</b> cite", safe=""),
}


@pytest.fixture(scope="module")
def writable_server(sample_records, tmp_path_factory):
    from papersift.library.entries import Library
    from papersift.library.features import build_features
    from papersift.server import create_app
    from served_papers import TEST_HOSTS, build_served_data_dir, serve_in_thread

    data_dir = build_served_data_dir(tmp_path_factory.mktemp("library-a11y") / "data", sample_records[:60])
    library = Library.open(data_dir)
    ids = [record["id"] for record in sample_records[:5]]
    library.tag(ids[:3], "<b>to</b> cite")
    library.rate(ids[3:4], -1)
    library.set_note(ids[0], "a note")
    library.store.close()
    build_features(data_dir)
    app = create_app(data_dir, enable_writes=True, write_token=A11Y_TOKEN, allowed_hosts=TEST_HOSTS)
    with serve_in_thread(app) as base_url:
        yield base_url


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("name", list(LIBRARY_PAGES))
def test_the_library_forms_have_no_serious_accessibility_violations(browser, writable_server, axe_source, name, lang,
                                                                     scheme):
    version, found = violations(browser, writable_server, axe_source, LIBRARY_PAGES[name], lang, scheme,
                                sign_in=A11Y_TOKEN)
    assert version == PINNED
    blocking = [violation for violation in found if violation["impact"] in BLOCKING]
    assert blocking == [], "\n".join(f"{v['impact']} {v['id']}: {v['help']}\n  " + "\n  ".join(v["nodes"]) for v in blocking)
