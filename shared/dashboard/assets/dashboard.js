// The dashboard's one script (progressive enhancement; every page works without it):
// a copy button beside a secret shown once, and the WebAuthn ceremonies of the passkey
// pages (the server puts the options in a JSON data block; the script answers in a form).
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  function b64urlToBuf(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) { s += "="; }
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { out[i] = bin.charCodeAt(i); }
    return out.buffer;
  }
  function bufToB64url(buf) {
    var bytes = new Uint8Array(buf), bin = "";
    for (var i = 0; i < bytes.length; i++) { bin += String.fromCharCode(bytes[i]); }
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function credToJSON(c) {
    var r = c.response, out = { id: c.id, rawId: bufToB64url(c.rawId), type: c.type,
      clientExtensionResults: c.getClientExtensionResults ? c.getClientExtensionResults() : {},
      response: { clientDataJSON: bufToB64url(r.clientDataJSON) } };
    if (c.authenticatorAttachment) { out.authenticatorAttachment = c.authenticatorAttachment; }
    if (r.attestationObject) {
      out.response.attestationObject = bufToB64url(r.attestationObject);
      if (r.getTransports) { out.response.transports = r.getTransports(); }
    }
    if (r.authenticatorData) {
      out.response.authenticatorData = bufToB64url(r.authenticatorData);
      out.response.signature = bufToB64url(r.signature);
      if (r.userHandle) { out.response.userHandle = bufToB64url(r.userHandle); }
    }
    return out;
  }
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
  var data = document.getElementById("webauthn-options");
  if (!data || !window.PublicKeyCredential) { return; }
  var opts = JSON.parse(data.textContent), form = document.getElementById("webauthn-form");
  var pk = opts.publicKey || opts;
  pk.challenge = b64urlToBuf(pk.challenge);
  if (pk.user && pk.user.id) { pk.user.id = b64urlToBuf(pk.user.id); }
  (pk.excludeCredentials || []).concat(pk.allowCredentials || []).forEach(function (c) { c.id = b64urlToBuf(c.id); });
  var p = data.getAttribute("data-ceremony") === "create" ?
    navigator.credentials.create({ publicKey: pk }) : navigator.credentials.get({ publicKey: pk });
  p.then(function (c) {
    form.elements.response.value = JSON.stringify(credToJSON(c));
    form.submit();
  }, function () {
    var msg = document.getElementById("webauthn-failed");
    if (msg) { msg.hidden = false; }
  });
})();
