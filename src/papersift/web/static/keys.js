// Keyboard: "/" focuses the query box, j / k move between hits (search results, and a tag's
// recommendations: any element marked .hit-item with its title link a.hit-link), o (or Enter)
// opens the focused one (selected again after Back), ? shows the keys' help; where the hits have library controls (web/library_forms.py), t focuses the
// selected hit's tag box, l likes it and n marks it not interested (each presses that hit's
// button: library.js sends it). Served from /static like app.js (the page's CSP allows no
// inline script); every key only moves focus, follows a link or presses a button the page has.
(function () {
  "use strict";

  function hitLinks() {
    return Array.prototype.slice.call(document.querySelectorAll(".hit-item a.hit-link"));
  }

  function current(links) {
    var active = document.activeElement;
    var hit = active && active.closest ? active.closest(".hit-item") : null;
    return hit ? links.indexOf(hit.querySelector("a.hit-link")) : -1;
  }

  function focusHit(links, index) {
    var link = links[Math.max(0, Math.min(links.length - 1, index))];
    if (!link) return;
    document.querySelectorAll(".hit-item.current").forEach(function (hit) { hit.classList.remove("current"); });
    var hit = link.closest(".hit-item");
    hit.classList.add("current");
    remember(links, links.indexOf(link));
    link.focus();
    hit.scrollIntoView({ block: "nearest" });
  }

  // The selected hit of this page, kept for Back (o opens a paper; coming back selects it again).
  var SELECTED = "papersift-selected:" + location.pathname + location.search;

  function remember(links, index) {
    try { sessionStorage.setItem(SELECTED, String(index)); } catch (error) { /* storage off */ }
  }

  window.addEventListener("pageshow", function () {
    var index = null;
    try { index = sessionStorage.getItem(SELECTED); } catch (error) { return; }
    var links = hitLinks();
    if (index !== null && links[Number(index)]) focusHit(links, Number(index));
  });

  var help = document.getElementById("keys-help");
  var before = null;  // where the focus was when the help opened

  function toggleHelp(open) {
    if (!help) return;
    if (open) { before = document.activeElement; help.hidden = false; help.setAttribute("tabindex", "-1"); help.focus(); }
    else { help.hidden = true; if (before && before.focus) before.focus(); }
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    var target = event.target;
    if (target.matches && target.matches("input, textarea, select, [contenteditable]")) return;
    if (help && !help.hidden) {
      if (event.key === "Escape" || event.key === "?") { event.preventDefault(); toggleHelp(false); }
      return;
    }
    if (event.key === "?") { event.preventDefault(); toggleHelp(true); return; }
    if (event.key === "/") {
      var box = document.getElementById("q");
      if (box) { event.preventDefault(); box.focus(); box.select(); }
      return;
    }
    var links = hitLinks();
    if (!links.length) return;
    var at = current(links);
    if (event.key === "j") {
      event.preventDefault();
      focusHit(links, at + 1);
    } else if (event.key === "k") {
      event.preventDefault();
      focusHit(links, at < 0 ? 0 : at - 1);
    } else if (event.key === "o" && at >= 0) {  // Enter opens it too: the focus is on its title link
      event.preventDefault();
      remember(links, at);
      window.location.assign(links[at].href);
    } else if (at >= 0 && (event.key === "t" || event.key === "l" || event.key === "n")) {
      var hit = links[at].closest(".hit-item");
      var control = hit.querySelector({ t: ".hit-marks .tag-input", l: ".hit-marks button.like",
                                        n: ".hit-marks button.dislike" }[event.key]);
      if (!control) return;
      event.preventDefault();
      if (event.key === "t") control.focus(); else control.click();
    }
  });
})();
