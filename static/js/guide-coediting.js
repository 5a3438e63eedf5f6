/* The guide form with other editors about: who else has it open (a beat every minute, a
   goodbye on leaving) and the other editor's text beside a conflicting field with "Use theirs"
   (js/unsaved-changes.js warns before leaving a changed form). A static file: the Content-Security-Policy
   allows no inline script; its texts are rendered by the server. */
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  var form = document.getElementById("guide_form");
  if (!form) {
    return;
  }
  var token = form.querySelector("input[name=csrfmiddlewaretoken]");

  // --- presence: stay listed while the form is open, leave when it closes -----------------

  var presence = document.querySelector(".guide-presence[data-presence-url]");

  function presenceData(leaving) {
    var data = new FormData();
    data.append("csrfmiddlewaretoken", token ? token.value : "");
    if (leaving) {
      data.append("leave", "1");
    }
    return data;
  }

  function showOthers(lines) {
    var list = presence.querySelector("ul");
    list.replaceChildren();
    lines.forEach(function (line) {
      var item = document.createElement("li");
      item.textContent = line;
      list.appendChild(item);
    });
    presence.hidden = lines.length === 0;
  }

  function beat() {
    fetch(presence.dataset.presenceUrl, {
      method: "POST", body: presenceData(false), credentials: "same-origin",
    }).then(function (response) {
      return response.ok ? response.json() : null;
    }).then(function (answer) {
      if (answer) {
        showOthers(answer.others);
      }
    }).catch(function () {});  // offline for a minute: the next beat tries again
  }

  var submitting = false;
  form.addEventListener("submit", function () {
    submitting = true;
  });

  if (presence) {
    beat();  // at once: a goodbye from the page this one replaced may have just arrived
    window.setInterval(beat, Number(presence.dataset.beatMs) || 60000);
    window.addEventListener("pagehide", function () {
      if (!submitting) {  // a save says goodbye itself, and its answer opens the form again
        navigator.sendBeacon(presence.dataset.presenceUrl, presenceData(true));
      }
    });
    window.addEventListener("pageshow", function (event) {
      if (event.persisted) {  // back from the page cache: listed again at once
        beat();
      }
    });
  }

  // --- a conflict: the other editor's text beside the field, and "Use theirs" -------------

  document.querySelectorAll(".edit-conflict[data-for]").forEach(function (box) {
    var field = document.getElementById(box.dataset.for);
    if (field) {  // beside the field, within its language tab and row
      (field.closest(".flex-container") || field).insertAdjacentElement("afterend", box);
    }
  });
  document.querySelectorAll("button.use-theirs").forEach(function (button) {
    button.addEventListener("click", function () {
      var field = document.getElementById(button.dataset.target);
      var theirs = document.getElementById(button.dataset.target + "-theirs");
      if (field && theirs) {
        field.value = theirs.value;
        field.dispatchEvent(new Event("input", { bubbles: true }));
        field.focus();
      }
    });
  });
});
