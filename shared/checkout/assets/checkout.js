// Takapay hosted checkout: progressive enhancement only; the page works without it.
// Inlined into the page; its SHA-256 is in the Content-Security-Policy. It chooses the method
// whose field the payer types into, counts down to the expiry, polls the payment's JSON while a
// locked payment waits for the provider (see pollDelay) and, once the payment is final, shows
// that and then goes to the merchant (or reloads the page).
(function () {
  "use strict";

  // The poll schedule. Each request costs an API Gateway request, a Lambda invocation and a
  // DynamoDB read, so the page asks only while the payment is locked and waiting for the
  // provider (nothing changes before the payer chooses a route, nothing after a final
  // status), backs off, pauses while the tab is hidden and gives up after a bounded time.
  var POLL_FIRST_MS = 3000;    // the first wait after the page loads; doubled after each request
  var POLL_MAX_MS = 30000;     // the longest wait
  var POLL_RESUME_MS = 1000;   // the first wait after the page becomes visible again
  var POLL_BUDGET_MS = 600000; // stop once the waits would add up to more than 10 minutes
  var POLL_MAX_COUNT = 30;     // and after 30 requests, however often the tab comes back
  var REDIRECT_MS = 1500;

  // pollDelay returns how long to wait (ms) before the next status request, or -1 for no
  // more requests. made: the requests polling has made on this page; run: the requests since
  // the schedule (re)started; resumed: whether it restarted because the page became visible
  // again; spent: the waits (ms) before the requests made so far, added up. Uninterrupted:
  // 3, 6, 12, 24, then 30 s, 22 requests in 9 min 45 s. After a return to the tab: 1, 3, 6 … s.
  function pollDelay(made, run, resumed, spent) {
    var d = POLL_RESUME_MS;
    if (!resumed || run > 0) {
      d = Math.min(POLL_FIRST_MS * Math.pow(2, resumed ? run - 1 : run), POLL_MAX_MS);
    }
    return made >= POLL_MAX_COUNT || spent + d > POLL_BUDGET_MS ? -1 : d;
  }
  // Exposed so that the schedule can be checked in a browser test.
  window.takapayCheckout = { pollDelay: pollDelay };

  var root = document.getElementById("checkout");
  var statusEl = document.getElementById("status");
  if (!root || !statusEl) {
    return;
  }
  // The words this script writes, in the page's language: the page carries them (the
  // catalogue is on the server), so the script has none of its own.
  var MSG = {};
  try {
    MSG = JSON.parse(root.getAttribute("data-messages") || "{}") || {};
  } catch (e) {
    MSG = {};
  }
  // msg returns message name with its {placeholders} filled from args.
  function msg(name, args) {
    return String(MSG[name] || "").replace(/\{(\w+)\}/g, function (all, key) {
      return args && Object.prototype.hasOwnProperty.call(args, key) ? String(args[key]) : all;
    });
  }
  // digits writes a number's ASCII digits as the page's language writes them.
  function digits(s) {
    var d = MSG.digits || "0123456789";
    return String(s).replace(/[0-9]/g, function (c) { return d.charAt(c.charCodeAt(0) - 48); });
  }
  // The page's own address. After a form error the browser shows the POST's URL (…/lock),
  // so the page names it instead of trusting location.pathname.
  var statusURL = root.getAttribute("data-status-url") || location.pathname;
  var hasLock = root.getAttribute("data-locked") === "true";
  var finished = false;
  var submitting = false;
  var timer = 0; // the next poll

  function merchantName() {
    var m = document.getElementById("merchant-name");
    return m ? m.textContent : msg("merchant");
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
    showPoll("done", -1);
    var status = String(data.status || "");
    var title = /^(COMPLETED|FAILED|CANCELLED|EXPIRED)$/.test(status) ?
      msg(status) : msg("other", { status: status.toLowerCase() });
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
    document.title = title + (MSG.suffix || "");

    if (dest) {
      p.textContent = msg("leaving", { merchant: merchantName() });
      var a = document.createElement("a");
      a.className = "button primary";
      a.id = "return";
      a.href = dest;
      a.textContent = msg("returnTo", { merchant: merchantName() });
      statusEl.appendChild(a);
      window.setTimeout(function () { location.assign(dest); }, REDIRECT_MS);
    } else {
      p.textContent = msg("updating");
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
      note.textContent = msg("leaving", { merchant: merchantName() });
      statusEl.appendChild(note);
      window.setTimeout(function () { location.assign(dest); }, REDIRECT_MS);
    }
    return;
  }
  if (statusEl.getAttribute("data-status") !== "PENDING") {
    return;
  }

  // Route choice: typing into a method's own field chooses that method (without the script
  // the payer ticks the radio; the server reads the chosen method's field either way).
  Array.prototype.forEach.call(document.querySelectorAll('input[name^="payer_"]'), function (field) {
    field.addEventListener("input", function () {
      var radio = document.getElementById("route-" + field.id.replace(/^payer-/, ""));
      if (radio && !radio.checked && field.value !== "") {
        radio.checked = true;
      }
    });
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

  // Polling: only a locked payment can change without the payer (the provider answers it).
  var polling = hasLock && Boolean(window.fetch);
  var made = 0;      // requests made by polling (pollDelay's arguments)
  var run = 0;
  var resumed = false;
  var spent = 0;
  var stopped = false;
  var inFlight = false;
  var etag = "";     // of the last view: asked for with If-None-Match, so unchanged is a bodiless 304

  // The schedule's state, for whoever looks (and for the browser test): data-poll is off (not
  // polling), waiting (data-poll-delay: the wait in ms), paused (tab hidden), stopped or done.
  function showPoll(state, delay) {
    root.setAttribute("data-poll", state);
    if (delay >= 0) {
      root.setAttribute("data-poll-delay", String(delay));
    } else {
      root.removeAttribute("data-poll-delay");
    }
  }

  // next waits for the next request, at least minMs (a 429's Retry-After).
  function next(minMs) {
    window.clearTimeout(timer);
    if (!polling || finished || stopped || inFlight) {
      return;
    }
    if (document.hidden) {
      showPoll("paused", -1);
      return;
    }
    var d = pollDelay(made, run, resumed, spent);
    if (d < 0) {
      stopPolling();
      return;
    }
    d = Math.max(d, minMs || 0);
    showPoll("waiting", d);
    timer = window.setTimeout(function () {
      made++;
      run++;
      spent += d;
      if (submitting) {
        next(); // the page is leaving with a form: skip this one
        return;
      }
      request();
    }, d);
  }

  // stopPolling ends polling for good and offers the payer the way to ask again.
  function stopPolling() {
    stopped = true;
    window.clearTimeout(timer);
    showPoll("stopped", -1);
    var link = document.getElementById("refresh");
    var holder;
    if (link) {
      holder = link.parentNode;
    } else {
      holder = document.createElement("p");
      link = document.createElement("a");
      link.className = "button secondary";
      link.id = "refresh";
      link.href = statusURL;
      link.textContent = msg("again");
      holder.appendChild(link);
      statusEl.insertBefore(holder, statusEl.querySelector("form.cancel"));
    }
    var note = document.createElement("p");
    note.className = "muted";
    note.id = "poll-stopped";
    note.textContent = msg("stopped");
    holder.parentNode.insertBefore(note, holder);
  }

  // request asks for the payment's view once, then waits for the next (when polling).
  function request() {
    if (finished || inFlight) {
      return;
    }
    inFlight = true;
    var headers = { Accept: "application/json" };
    if (etag) {
      headers["If-None-Match"] = etag;
    }
    fetch(statusURL, { headers: headers, cache: "no-store", credentials: "same-origin" })
      .then(function (res) {
        inFlight = false;
        if (res.status === 304) {
          next(); // unchanged
          return;
        }
        if (res.status === 429) {
          var after = parseInt(res.headers.get("Retry-After") || "", 10);
          next(after > 0 ? after * 1000 : 0);
          return;
        }
        if (res.status >= 400 && res.status < 500) {
          if (polling && !finished) {
            stopPolling(); // the link is no longer valid: stop asking
          }
          return;
        }
        if (!res.ok) {
          next();
          return;
        }
        var tag = res.headers.get("ETag") || "";
        return res.json().then(function (data) {
          etag = tag;
          handle(data);
        });
      })
      .catch(function () {
        inFlight = false;
        next();
      });
  }

  function handle(data) {
    if (finished || submitting || !data) {
      next();
      return;
    }
    if (data.terminal) {
      showFinal(data);
      return;
    }
    if (Boolean(data.lock) !== hasLock) {
      finished = true; // locked elsewhere, e.g. in another tab
      reloadPage();
      return;
    }
    next();
  }

  // checkNow asks once, out of schedule (at the expiry, after a return through the back/forward
  // cache); a polling page then carries on with its schedule.
  function checkNow() {
    if (!window.fetch || finished) {
      return;
    }
    window.clearTimeout(timer);
    request();
  }

  document.addEventListener("visibilitychange", function () {
    if (!polling || finished || stopped) {
      return;
    }
    if (document.hidden) {
      window.clearTimeout(timer);
      showPoll("paused", -1);
      return;
    }
    run = 0; // a fresh, short wait: the payer may be back from the provider's app
    resumed = true;
    next();
  });

  window.addEventListener("pageshow", function (ev) {
    if (ev.persisted) { // back from the merchant via the back/forward cache
      submitting = false;
      setButtons(false);
      run = 0;
      resumed = true;
      checkNow();
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
      countdown.textContent = msg("timeUp");
      if (!askedAtZero) {
        askedAtZero = true;
        checkNow();
      }
    } else {
      var h = Math.floor(left / 3600);
      var m = Math.floor((left % 3600) / 60);
      countdown.textContent = h > 0 ?
        msg("leftHours", { h: digits(h), m: digits(m) }) :
        msg("leftMin", { m: digits(m), s: digits(pad(left % 60)) });
    }
    window.setTimeout(tick, 1000);
  }

  if (polling) {
    next();
  } else {
    showPoll("off", -1);
  }
  tick();
})();
