// Progressive enhancement only: every feature below also works as a plain link or form.
(function () {
  "use strict";
  var toast = document.getElementById("toast");

  function say(text) {
    if (!toast) return;
    toast.textContent = text;
    toast.classList.add("show");
    setTimeout(function () { toast.classList.remove("show"); }, 2000);
  }

  // Copy BibTeX: fetch the export link and put it on the clipboard (the link itself opens it).
  document.addEventListener("click", function (event) {
    var link = event.target.closest("a[data-copy]");
    if (!link || !navigator.clipboard) return;
    event.preventDefault();
    fetch(link.href)
      .then(function (response) {
        if (!response.ok) throw new Error(response.statusText);
        return response.text();
      })
      .then(function (text) { return navigator.clipboard.writeText(text); })
      .then(function () { link.dataset.copied = "true"; say(document.body.dataset.copied); })
      .catch(function () { say(document.body.dataset.copyFailed); window.location.href = link.href; });
  });

  // Changing the mode or the sort order searches again at once.
  document.querySelectorAll(".search-form input[name=mode], .search-form select[name=sort]").forEach(function (control) {
    control.addEventListener("change", function () { control.form.submit(); });
  });

  // "Show full abstract" only where the abstract is cut.
  document.querySelectorAll(".abstract-box").forEach(function (box) {
    var text = box.querySelector(".abstract");
    if (text && text.scrollHeight <= text.clientHeight + 1) box.classList.add("fits");
  });

  // Light or dark, chosen with the header's switch and remembered (the system's choice until then).
  var themeSwitch = document.querySelector("button.theme-switch");
  if (themeSwitch) {
    var label = function () {
      var dark = document.documentElement.dataset.theme === "dark" ||
        (!document.documentElement.dataset.theme && window.matchMedia("(prefers-color-scheme: dark)").matches);
      themeSwitch.textContent = dark ? themeSwitch.dataset.toLight : themeSwitch.dataset.toDark;
      themeSwitch.setAttribute("aria-pressed", dark ? "true" : "false");
      return dark;
    };
    themeSwitch.hidden = false;
    label();
    themeSwitch.addEventListener("click", function () {
      var theme = label() ? "light" : "dark";
      document.documentElement.dataset.theme = theme;
      try { localStorage.setItem("papersift-theme", theme); } catch (error) { /* private mode: this page only */ }
      label();
    });
  }

  // Keys ("/", j, k, o, ?) are in keys.js.
})();
