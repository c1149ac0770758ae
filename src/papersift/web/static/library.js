// The library controls of the hits (web/library_forms.py), enhanced: the pressed button's hit
// is sent with fetch and the hit's marks are updated in place, no reload. Without this file the
// same form posts and the server sends the page back (303). Text goes in as textContent only.
(function () {
  "use strict";

  function say(text) {
    var toast = document.getElementById("toast");
    if (!toast) return;
    toast.textContent = text;
    toast.classList.add("show");
    setTimeout(function () { toast.classList.remove("show"); }, 2500);
  }

  function redraw(form, marks, entry) {
    var now = marks.querySelector(".marks-now");
    var lang = form.querySelector("input[name=lang]").value;
    now.textContent = "";
    (entry ? entry.tags : []).forEach(function (tag) {
      var link = document.createElement("a");
      link.className = "badge tag";
      link.href = "/library?" + new URLSearchParams({ tag: tag, lang: lang }).toString();
      link.textContent = tag;
      now.appendChild(link);
      now.appendChild(document.createTextNode(" "));
    });
    var rating = entry ? entry.rating : 0;
    if (rating !== 0) {
      var badge = document.createElement("span");
      badge.className = rating > 0 ? "badge liked" : "badge not-interested";
      badge.textContent = rating > 0 ? "+ " + form.dataset.liked : "\u2212 " + form.dataset.disliked;
      now.appendChild(badge);
    }
    var index = marks.dataset.hit;
    var like = marks.querySelector("button.like"), dislike = marks.querySelector("button.dislike");
    like.value = (rating > 0 ? "none" : "like") + ":" + index;
    like.setAttribute("aria-pressed", rating > 0 ? "true" : "false");
    dislike.value = (rating < 0 ? "none" : "dislike") + ":" + index;
    dislike.setAttribute("aria-pressed", rating < 0 ? "true" : "false");
  }

  function addTagsToList(tags) {
    var list = document.getElementById("library-tags");
    if (!list) return;
    var known = {};
    list.querySelectorAll("option").forEach(function (option) { known[option.value] = true; });
    tags.forEach(function (tag) {
      if (known[tag]) return;
      var option = document.createElement("option");
      option.value = tag;
      list.appendChild(option);
    });
  }

  document.querySelectorAll("form.marks-form").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      var button = event.submitter;
      var action = button && button.name === "do" ? button.value : "tags";
      if (action === "tags") {  // Enter in a tag box: that hit's tag
        var active = document.activeElement;
        var around = active && active.closest ? active.closest(".hit-marks") : null;
        if (!around) return;  // let the form post every tag typed
        action = "tag:" + around.dataset.hit;
      }
      var index = action.split(":")[1];
      var marks = form.querySelector('.hit-marks[data-hit="' + index + '"]');
      if (!marks) return;
      event.preventDefault();
      var body = new URLSearchParams();
      ["csrf", "token", "lang", "back"].forEach(function (name) {
        // the token field is there only without accounts (a login session is the proof)
        var field = form.querySelector("input[name=" + name + "]");
        if (field) body.append(name, field.value);
      });
      body.append("do", action);
      marks.querySelectorAll("input[name]").forEach(function (input) { body.append(input.name, input.value); });
      fetch(form.action, { method: "POST", body: body, headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (response) {
          return response.json().then(function (answer) {
            if (!response.ok) throw new Error((answer.error && answer.error.message) || answer.message || response.statusText);
            return answer;
          });
        })
        .then(function (answer) {
          redraw(form, marks, answer.entries[0] || null);
          addTagsToList(answer.tags || []);
          var input = marks.querySelector(".tag-input");
          if (action.indexOf("tag:") === 0 && input) input.value = "";
          marks.dataset.saved = "true";
          say(form.dataset.saved);
        })
        .catch(function (problem) { say(String(problem.message || problem)); });
    });
  });
})();
