// A request htmx sent that the server could not answer (a 5xx, or no answer at all) swaps
// nothing (see the htmx-config in base.html): say so in #request-error instead of leaving the
// person to wonder whether the click did anything. 4xx answers carry their own message and
// are swapped in place.
(function () {
  "use strict";

  function show(text) {
    var box = document.getElementById("request-error");
    if (!box) return;
    box.textContent = text;
    box.setAttribute("role", "alert"); // announced when shown; no empty alert meanwhile
    box.hidden = false;
  }

  document.addEventListener("htmx:responseError", function (event) {
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    show("The server could not finish that (HTTP " + status + "). Reload the page to see what was saved, then try again.");
  });
  document.addEventListener("htmx:sendError", function () {
    show("The server did not answer. Check the connection, reload the page, then try again.");
  });
  document.addEventListener("htmx:beforeRequest", function () {
    var box = document.getElementById("request-error");
    if (box) {
      box.hidden = true;
      box.removeAttribute("role");
    }
  });
})();
