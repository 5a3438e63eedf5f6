/* "Add price check": beside each price row the server shows the provider's last price of that
   GPU and the change, as of the page's last load. Once a row's price, GPU count or GPU is
   typed again here, its comparison would be out of date: it says "compared when you save"
   instead (the text is the page's, translated), and shows the server's again when the row is
   put back as it was. The comparison and its confirmation stay the server's. */
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  var help = document.getElementById("price-rows-help");
  if (!help) {
    return;
  }
  var pending = help.dataset.pending;

  function cells(row, names) {
    return names
      .map(function (name) { return row.querySelector(".field-" + name + " p"); })
      .filter(Boolean);
  }

  function typedAgain(row) {
    return Array.prototype.some.call(
      row.querySelectorAll("input[type=text], select"),
      function (field) { return field.dataset.shown !== undefined && field.value !== field.dataset.shown; }
    );
  }

  function gpuChanged(row) {
    var gpu = row.querySelector(".field-gpu select");
    return gpu && gpu.dataset.shown !== undefined && gpu.value !== gpu.dataset.shown;
  }

  function update(row) {
    cells(row, ["last_price", "price_change"]).forEach(function (cell) {
      var stale = cell.closest(".field-last_price") ? gpuChanged(row) : typedAgain(row);
      if (cell.dataset.server === undefined) {
        cell.dataset.server = cell.innerHTML;
      }
      if (stale) {
        cell.textContent = pending;
      } else {
        cell.innerHTML = cell.dataset.server;
      }
    });
  }

  document.querySelectorAll(".field-price_change").forEach(function (cell) {
    var row = cell.closest("tr");
    row.querySelectorAll("input[type=text], select").forEach(function (field) {
      field.dataset.shown = field.value;
      field.addEventListener("input", function () { update(row); });
      field.addEventListener("change", function () { update(row); });
    });
  });
});
