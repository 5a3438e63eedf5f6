// The public pages' one script; every page works without it.
(function () {
  "use strict";

  // A table's scrolling box is a tab stop only while it scrolls: on a phone its table becomes
  // cards, nothing scrolls, and a tab stop would ring a block thousands of pixels tall. It
  // stays focusable from script (tabindex -1), so the planner can still focus its answer.
  function updateScrollRegions() {
    document.querySelectorAll(".table-scroll[role=region]").forEach(function (box) {
      box.tabIndex = box.scrollWidth > box.clientWidth ? 0 : -1;
    });
  }

  // Folded parts (details.fold: reference sections, tables, sources; never the answer's
  // table) shorten a page on a phone; where the tables are tables (the width the stylesheet's
  // cards stop at), they start open. A link to something folded or to a section whose text
  // is folded, and printing, open its fold.
  var wide = window.matchMedia("(min-width: 50.01rem)");
  function openFolds() {
    document.querySelectorAll("details.fold").forEach(function (fold) { fold.open = true; });
  }
  function openFoldAround(id) {
    var target = id && document.getElementById(id);
    for (var node = target; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
    }
    var own = target && target.querySelector(":scope > details.section-fold");
    if (own) own.open = true;
  }
  function openFoldOfHash() {
    openFoldAround(decodeURIComponent(location.hash.slice(1)));
  }

  if (wide.matches) openFolds();
  openFoldOfHash();
  updateScrollRegions();
  window.addEventListener("hashchange", openFoldOfHash);
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (fold) { fold.open = true; });
  });
  window.addEventListener("resize", updateScrollRegions);
  document.addEventListener("toggle", updateScrollRegions, true);
})();
