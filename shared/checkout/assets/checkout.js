// Takapay hosted checkout: progressive enhancement only; the page works without it.
// Inlined into the page; its SHA-256 is in the Content-Security-Policy. It adapts the payer
// field to the chosen route, counts down to the expiry, polls the payment's JSON every 3 s and,
// once the payment is final, shows that and then goes to the merchant (or reloads the page).
(function () {
  "use strict";

  var POLL_MS = 3000;
  var REDIRECT_MS = 1500;
  var TITLES = {
    COMPLETED: "Payment received",
    FAILED: "Payment failed",
    CANCELLED: "Payment cancelled",
    EXPIRED: "This payment has expired"
  };

  var root = document.getElementById("checkout");
  var statusEl = document.getElementById("status");
  if (!root || !statusEl) {
    return;
  }
  // The page's own address. After a form error the browser shows the POST's URL (…/lock),
  // so the page names it instead of trusting location.pathname.
  var statusURL = root.getAttribute("data-status-url") || location.pathname;
  var hasLock = root.getAttribute("data-locked") === "true";
  var finished = false;
  var submitting = false;
  var timer = 0;

  function merchantName() {
    var m = document.getElementById("merchant-name");
    return m ? m.textContent : "the merchant";
  }

  // safeURL returns u as an absolute http(s) URL, or "" for anything else (javascript: …).
  function safeURL(u) {
    if (!u) {
      return "";
    }
    var parsed;
    try {
      parsed = new URL(u, location.href);
    } catch (e) {
      return "";
    }
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : "";
  }

  function reloadPage() {
    location.replace(statusURL);
  }

  function hide(id) {
    var el = document.getElementById(id);
    if (el) {
      el.hidden = true;
    }
  }

  // showFinal replaces the form with the final state, then leaves for the merchant or reloads.
  function showFinal(data) {
    finished = true;
    window.clearTimeout(timer);
    var status = String(data.status || "");
    var title = TITLES[status] || "Payment " + status.toLowerCase();
    var dest = safeURL(data.return_url);

    statusEl.setAttribute("data-status", status);
    root.setAttribute("data-terminal", "true");
    hide("expiry");
    hide("error");
    while (statusEl.firstChild) {
      statusEl.removeChild(statusEl.firstChild);
    }
    var h = document.createElement("h2");
    h.className = "state-title state-" + status;
    h.id = "status-title";
    h.textContent = title;
    statusEl.appendChild(h);
    var p = document.createElement("p");
    p.className = "muted";
    statusEl.appendChild(p);
    document.title = title + " — Takapay";

    if (dest) {
      p.textContent = "Taking you back to " + merchantName() + "…";
      var a = document.createElement("a");
      a.className = "button primary";
      a.id = "return";
      a.href = dest;
      a.textContent = "Return to " + merchantName();
      statusEl.appendChild(a);
      window.setTimeout(function () { location.assign(dest); }, REDIRECT_MS);
    } else {
      p.textContent = "Updating…";
      window.setTimeout(reloadPage, REDIRECT_MS);
    }
  }

  // A page rendered final with a way back to the merchant goes there by itself.
  if (root.getAttribute("data-terminal") === "true") {
    var back = document.getElementById("return");
    var dest = back ? safeURL(back.getAttribute("href")) : "";
    if (dest) {
      var note = document.createElement("p");
      note.className = "muted";
      note.textContent = "Taking you back to " + merchantName() + "…";
      statusEl.appendChild(note);
      window.setTimeout(function () { location.assign(dest); }, REDIRECT_MS);
    }
    return;
  }
  if (statusEl.getAttribute("data-status") !== "PENDING") {
    return;
  }

  // Route choice: the payer field follows the chosen route's label, placeholder and kind.
  var payer = document.getElementById("payer");
  var payerLabel = document.getElementById("payer-label");
  var payerHint = document.getElementById("payer-hint");

  function applyRoute(radio) {
    if (!payer || !radio) {
      return;
    }
    var kind = radio.getAttribute("data-payer-kind");
    if (payerLabel) {
      payerLabel.textContent = radio.getAttribute("data-payer-label") || "Mobile number or email";
    }
    var placeholder = radio.getAttribute("data-placeholder");
    if (placeholder) {
      payer.setAttribute("placeholder", placeholder);
    } else {
      payer.removeAttribute("placeholder");
    }
    if (kind === "phone") {
      payer.type = "tel";
      payer.setAttribute("inputmode", "tel");
      payer.setAttribute("autocomplete", "tel");
    } else if (kind === "email") {
      payer.type = "email";
      payer.setAttribute("inputmode", "email");
      payer.setAttribute("autocomplete", "email");
    } else {
      payer.type = "text";
      payer.removeAttribute("inputmode");
      payer.setAttribute("autocomplete", "off");
    }
    if (payerHint) {
      payerHint.hidden = true;
    }
  }

  var radios = document.querySelectorAll('input[name="route"]');
  Array.prototype.forEach.call(radios, function (radio) {
    radio.addEventListener("change", function () {
      if (radio.checked) {
        applyRoute(radio);
      }
    });
    if (radio.checked) {
      applyRoute(radio);
    }
  });

  // One submission at a time: a second tap (or Approve then Decline) is ignored.
  function setButtons(disabled) {
    Array.prototype.forEach.call(document.querySelectorAll("button"), function (b) {
      b.disabled = disabled;
    });
  }
  document.addEventListener("submit", function (ev) {
    if (submitting || finished) {
      ev.preventDefault();
      return;
    }
    submitting = true;
    // Disable after the browser has built the submission.
    window.setTimeout(function () { setButtons(true); }, 0);
    window.setTimeout(function () {
      submitting = false;
      setButtons(false);
    }, 15000);
  });
  window.addEventListener("pageshow", function (ev) {
    if (ev.persisted) { // back from the merchant via the back/forward cache
      submitting = false;
      setButtons(false);
      schedule(0);
    }
  });

  // Polling.
  function schedule(ms) {
    window.clearTimeout(timer);
    if (!finished) {
      timer = window.setTimeout(poll, ms);
    }
  }

  function handle(data) {
    if (finished || submitting || !data) {
      schedule(POLL_MS);
      return;
    }
    if (data.terminal) {
      showFinal(data);
      return;
    }
    if (Boolean(data.lock) !== hasLock) {
      finished = true; // locked (or not) elsewhere, e.g. in another tab
      reloadPage();
      return;
    }
    schedule(POLL_MS);
  }

  function poll() {
    if (finished) {
      return;
    }
    if (submitting || document.hidden) {
      schedule(POLL_MS);
      return;
    }
    fetch(statusURL, { headers: { Accept: "application/json" }, cache: "no-store", credentials: "same-origin" })
      .then(function (res) {
        if (res.status === 429) {
          var after = parseInt(res.headers.get("Retry-After") || "", 10);
          schedule(after > 0 ? after * 1000 : 10 * POLL_MS);
          return;
        }
        if (res.status >= 400 && res.status < 500) {
          return; // the link is no longer valid: stop asking
        }
        if (!res.ok) {
          schedule(2 * POLL_MS);
          return;
        }
        return res.json().then(handle);
      })
      .catch(function () {
        schedule(2 * POLL_MS);
      });
  }

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden && !finished) {
      schedule(0);
    }
  });

  // Countdown to the expiry; at zero, ask the server at once.
  var expiry = document.getElementById("expiry");
  var countdown = document.getElementById("countdown");
  var expiresAt = expiry ? Date.parse(expiry.getAttribute("data-expires-at") || "") : NaN;
  var askedAtZero = false;

  function pad(n) {
    return n < 10 ? "0" + n : String(n);
  }

  function tick() {
    if (finished || !countdown || isNaN(expiresAt)) {
      return;
    }
    var left = Math.floor((expiresAt - Date.now()) / 1000);
    countdown.hidden = false;
    if (left <= 0) {
      countdown.textContent = "· time is up";
      if (!askedAtZero) {
        askedAtZero = true;
        schedule(0);
      }
    } else {
      var h = Math.floor(left / 3600);
      var m = Math.floor((left % 3600) / 60);
      countdown.textContent = "· " + (h > 0 ? h + " h " + m + " min" : m + ":" + pad(left % 60)) + " left";
    }
    window.setTimeout(tick, 1000);
  }

  if (window.fetch) {
    schedule(POLL_MS);
  }
  tick();
})();
