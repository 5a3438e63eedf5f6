/* "Add price check": choosing another provider reloads the form with that provider's last
   known prices in the rows (the server fills them: ?provider=<id>), keeping the day, source
   and note typed so far. A static file (the Content-Security-Policy allows no inline script).
   Without JavaScript the form says whose prices fill the rows, and a save whose rows were
   filled for another provider is refused (the hidden field prefilled_for). */
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  var provider = document.getElementById("id_provider");
  var filledFor = document.getElementById("id_prefilled_for");
  if (!provider || !filledFor || provider.disabled) {
    return;  // not a new check, or a correction (its provider is fixed)
  }
  provider.addEventListener("change", function () {
    if (!provider.value || provider.value === filledFor.value) {
      return;
    }
    var url = new URL(window.location.href);
    url.searchParams.set("provider", provider.value);
    ["checked_on", "source_url", "note"].forEach(function (name) {
      var field = document.getElementById("id_" + name);
      if (field && field.value) {
        url.searchParams.set(name, field.value);
      } else {
        url.searchParams.delete(name);
      }
    });
    provider.form.setAttribute("aria-busy", "true");
    window.location.assign(url.toString());
  });
});
