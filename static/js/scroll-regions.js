// A table's scrolling box is a tab stop only while it scrolls: on a phone its table becomes
// cards, nothing scrolls, and a tab stop would ring a block thousands of pixels tall. It stays
// focusable from script (tabindex -1), so the planner can still focus its answer.
(function () {
  "use strict";
  function update() {
    document.querySelectorAll(".table-scroll[role=region]").forEach(function (box) {
      box.tabIndex = box.scrollWidth > box.clientWidth ? 0 : -1;
    });
  }
  update();
  window.addEventListener("resize", update);
})();
