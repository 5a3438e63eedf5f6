/* A warning before leaving a form that differs from what it showed: the guide form
   (#guide_form) and the translation screen (form.warn-unsaved). Saving leaves without one.
   A static file: the Content-Security-Policy allows no inline script. */
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  function changed(element) {
    if (element.type === "hidden" || element.disabled || element.closest(".empty-form")) {
      return false;
    }
    if (element.type === "checkbox" || element.type === "radio") {
      return element.checked !== element.defaultChecked;
    }
    if (element.tagName === "SELECT") {
      var options = Array.prototype.slice.call(element.options);
      var marked = options.some(function (option) { return option.defaultSelected; });
      return options.some(function (option, index) {
        // With no option marked selected, a single choice starts at the first.
        var initially = marked ? option.defaultSelected : (!element.multiple && index === 0);
        return option.selected !== initially;
      });
    }
    if (element.tagName === "TEXTAREA" || element.tagName === "INPUT") {
      return element.value !== element.defaultValue;
    }
    return false;
  }

  document.querySelectorAll("#guide_form, form.warn-unsaved").forEach(function (form) {
    var submitting = false;
    form.addEventListener("submit", function () {
      submitting = true;
    });
    window.addEventListener("beforeunload", function (event) {
      var anyChanged = Array.prototype.some.call(form.elements, function (element) {
        // the token picker's own boxes are a search, not the guide's text
        return element.name && !element.closest(".token-picker") && changed(element);
      });
      if (!submitting && anyChanged) {
        event.preventDefault();
        event.returnValue = "";  // older browsers show their own wording only when this is set
      }
    });
  });
});
