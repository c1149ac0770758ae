// Keyboard: "/" focuses the query box, j / k move between hits, o (or Enter) opens the
// focused one. Served from /static like app.js (the page's CSP allows no inline script);
// every key only moves focus or follows a link the page already has.
(function () {
  "use strict";

  function hitLinks() {
    return Array.prototype.slice.call(document.querySelectorAll("article.hit h2 a"));
  }

  function current(links) {
    var active = document.activeElement;
    var hit = active && active.closest ? active.closest("article.hit") : null;
    return hit ? links.indexOf(hit.querySelector("h2 a")) : -1;
  }

  function focusHit(links, index) {
    var link = links[Math.max(0, Math.min(links.length - 1, index))];
    if (!link) return;
    document.querySelectorAll("article.hit.current").forEach(function (hit) { hit.classList.remove("current"); });
    var hit = link.closest("article.hit");
    hit.classList.add("current");
    link.focus();
    hit.scrollIntoView({ block: "nearest" });
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    var target = event.target;
    if (target.matches && target.matches("input, textarea, select, [contenteditable]")) return;
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
      window.location.assign(links[at].href);
    }
  });
})();
