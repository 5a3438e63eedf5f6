// The tutorial's copy buttons. Script adds them, so that without it (or without a clipboard
// the page may write to) each command stays plain, selectable text and no dead button shows.
// A file of its own, as the CSP allows scripts from our origin only; the labels come
// translated from the page (data-copy-label, data-copied-label on the article).
(function () {
  "use strict";
  var page = document.querySelector("[data-copy-label]");
  if (!page || !window.isSecureContext || !navigator.clipboard) return;
  var label = page.getAttribute("data-copy-label");
  var copied = page.getAttribute("data-copied-label");

  page.querySelectorAll("pre.command").forEach(function (block) {
    var code = block.querySelector("code");
    if (!code) return;
    var box = document.createElement("div");
    box.className = "command-box";
    block.parentNode.insertBefore(box, block);
    box.appendChild(block);
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    var name = block.getAttribute("aria-label") || "";
    function show(text) {
      button.textContent = text;
      button.setAttribute("aria-label", text + ": " + name);
    }
    show(label);
    var reset;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(code.textContent).then(function () {
        show(copied);
        clearTimeout(reset);
        reset = setTimeout(function () { show(label); }, 2000);
      });
    });
    box.appendChild(button);
  });
})();
