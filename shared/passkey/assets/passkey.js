// Takapay passkeys: drives navigator.credentials for forms marked data-passkey (the form
// contract is in shared/passkey's package documentation). No inline handlers; served as the
// page's inline script, allowed by its CSP hash.
(function () {
  "use strict";
  var forms = document.querySelectorAll("form[data-passkey]");
  var supported = !!(window.PublicKeyCredential && navigator.credentials &&
    typeof navigator.credentials.create === "function" && typeof navigator.credentials.get === "function");
  var unsupported = document.querySelectorAll("[data-passkey-unsupported]");
  var i;
  for (i = 0; i < unsupported.length; i++) { unsupported[i].hidden = supported; }
  if (!supported) { return; }

  function fromB64url(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) { s += "="; }
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var j = 0; j < bin.length; j++) { out[j] = bin.charCodeAt(j); }
    return out.buffer;
  }
  function toB64url(buf) {
    var bytes = new Uint8Array(buf), bin = "";
    for (var j = 0; j < bytes.length; j++) { bin += String.fromCharCode(bytes[j]); }
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function ids(list) {
    return (list || []).map(function (c) {
      var d = { type: c.type, id: fromB64url(c.id) };
      if (c.transports) { d.transports = c.transports; }
      return d;
    });
  }
  function creationOptions(pk) {
    pk.challenge = fromB64url(pk.challenge);
    pk.user.id = fromB64url(pk.user.id);
    pk.excludeCredentials = ids(pk.excludeCredentials);
    return pk;
  }
  function requestOptions(pk) {
    pk.challenge = fromB64url(pk.challenge);
    pk.allowCredentials = ids(pk.allowCredentials);
    return pk;
  }
  function encode(cred) {
    var r = cred.response, out = {
      id: cred.id, rawId: toB64url(cred.rawId), type: cred.type,
      authenticatorAttachment: cred.authenticatorAttachment || undefined,
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
      response: { clientDataJSON: toB64url(r.clientDataJSON) }
    };
    if (r.attestationObject) {
      out.response.attestationObject = toB64url(r.attestationObject);
      if (r.getTransports) { out.response.transports = r.getTransports(); }
    } else {
      out.response.authenticatorData = toB64url(r.authenticatorData);
      out.response.signature = toB64url(r.signature);
      if (r.userHandle) { out.response.userHandle = toB64url(r.userHandle); }
    }
    return JSON.stringify(out);
  }
  function show(form, selector, on) {
    var el = form.querySelector(selector);
    if (el) { el.hidden = !on; }
  }

  function run(form) {
    var mode = form.getAttribute("data-passkey");
    var submit = form.querySelector("[type=submit]");
    var call;
    try {
      var opts = JSON.parse(form.getAttribute("data-passkey-options"));
      if (mode === "register") {
        call = navigator.credentials.create({ publicKey: creationOptions(opts.publicKey) });
      } else if (mode === "login") {
        call = navigator.credentials.get({ publicKey: requestOptions(opts.publicKey) });
      } else {
        throw new TypeError("data-passkey must be register or login");
      }
    } catch (err) {
      call = Promise.reject(err);
    }
    show(form, "[data-passkey-error]", false);
    form.setAttribute("aria-busy", "true");
    if (submit) { submit.disabled = true; }
    call.then(function (cred) {
      if (!cred) { throw new Error("no credential"); }
      form.elements.namedItem("response").value = encode(cred);
      // A normal navigation (submit() fires no submit event). Through the prototype: a control
      // named or with the id "submit" would shadow form.submit.
      HTMLFormElement.prototype.submit.call(form);
    }).catch(function (err) {
      // The DOMException's name (NotAllowedError: cancelled or timed out; InvalidStateError:
      // this authenticator already holds a passkey of the user) for tests and support.
      form.setAttribute("data-passkey-failure", (err && err.name) || "Error");
      form.removeAttribute("aria-busy");
      if (submit) { submit.disabled = false; }
      show(form, "[data-passkey-error]", true);
    });
  }

  for (i = 0; i < forms.length; i++) {
    (function (form) {
      form.hidden = false;
      form.addEventListener("submit", function (ev) {
        ev.preventDefault();
        run(form);
      });
    })(forms[i]);
  }
})();
