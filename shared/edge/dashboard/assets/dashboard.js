// The dashboard's script (progressive enhancement; every page but the passkey ceremonies
// works without it): a copy button beside a secret shown once. The passkey ceremonies'
// script (package passkey) follows it in the same inline element.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  document.addEventListener("click", function (e) {
    var btn = e.target.closest ? e.target.closest("[data-copy]") : null;
    if (!btn) { return; }
    var el = document.getElementById(btn.getAttribute("data-copy"));
    if (!el || !navigator.clipboard) { return; }
    navigator.clipboard.writeText(el.textContent.trim()).then(function () {
      var done = btn.getAttribute("data-done");
      if (done) { btn.textContent = done; }
    });
  });
})();
