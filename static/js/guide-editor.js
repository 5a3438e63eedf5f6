/* The guide form: collapsible inline rows and a token picker beside each prose field.
   A static file (the Content-Security-Policy allows no inline script); its texts come from
   the JSON block #token-picker-data, translated by the server. */
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  var dataNode = document.getElementById("token-picker-data");
  if (!dataNode) {
    return;
  }
  var data = JSON.parse(dataNode.textContent);

  function insertAt(field, text) {
    var start = field.selectionStart === null ? field.value.length : field.selectionStart;
    var end = field.selectionEnd === null ? start : field.selectionEnd;
    field.value = field.value.slice(0, start) + text + field.value.slice(end);
    field.focus();
    field.setSelectionRange(start + text.length, start + text.length);
    field.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function picker(field) {
    var details = document.createElement("details");
    details.className = "token-picker";
    var summary = document.createElement("summary");
    summary.textContent = data.label;
    details.appendChild(summary);
    var search = document.createElement("input");
    search.type = "search";
    search.placeholder = data.filter;
    search.setAttribute("aria-label", data.filter);
    details.appendChild(search);
    var list = document.createElement("ul");
    function fill() {  // on first opening: 39 fields x every kind would slow the page down
      if (list.children.length) {
        return;
      }
      data.kinds.forEach(function (kind) {
        var item = document.createElement("li");
        var button = document.createElement("button");
        button.type = "button";
        button.className = "token-choice";
        button.textContent = kind.token;
        button.title = kind.help;
        button.addEventListener("click", function () {
          insertAt(field, kind.token);
          details.open = false;
        });
        var help = document.createElement("span");
        help.textContent = " " + kind.help;
        item.appendChild(button);
        item.appendChild(help);
        list.appendChild(item);
      });
    }
    details.addEventListener("toggle", fill);
    details.appendChild(list);
    search.addEventListener("input", function () {
      var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      Array.prototype.forEach.call(list.children, function (item) {
        var text = item.textContent.toLowerCase();
        item.hidden = !words.every(function (word) { return text.indexOf(word) !== -1; });
      });
    });
    search.addEventListener("keydown", function (event) {
      if (event.key === "Enter") {  // insert the first match; never submit the form
        event.preventDefault();
        var first = Array.prototype.find.call(list.children, function (item) { return !item.hidden; });
        if (first) {
          first.querySelector("button").click();
        }
      }
    });
    // Below the field's row (label and input), not squeezed beside the input.
    (field.closest(".flex-container") || field).insertAdjacentElement("afterend", details);
  }

  document.querySelectorAll("[data-token-picker]").forEach(function (field) {
    if (!field.closest(".empty-form")) {
      picker(field);
    }
  });

  // Stacked inline rows (sections, FAQ entries) fold to their heading; rows with errors stay open.
  document.querySelectorAll(".inline-group .inline-related:not(.empty-form)").forEach(function (row) {
    var heading = row.querySelector("h3");
    if (!heading || !row.querySelector("fieldset")) {
      return;
    }
    var toggle = document.createElement("button");
    toggle.type = "button";
    toggle.className = "inline-toggle";
    toggle.textContent = heading.querySelector("b") ? heading.querySelector("b").textContent : "";
    heading.insertBefore(toggle, heading.firstChild);
    if (heading.querySelector("b")) {
      heading.querySelector("b").remove();
    }
    function set(open) {
      row.classList.toggle("folded", !open);
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
    }
    set(row.querySelector(".errorlist") !== null);
    toggle.addEventListener("click", function () {
      set(row.classList.contains("folded"));
    });
  });
});
