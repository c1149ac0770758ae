// The remembered light / dark choice (app.js's switch), applied before the page is drawn: loaded
// in <head> without defer, as a file (the CSP allows no inline script).
(function () {
  "use strict";
  try {
    var theme = localStorage.getItem("papersift-theme");
    if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
  } catch (error) { /* storage off: the system's choice */ }
})();
