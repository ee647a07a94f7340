import { test } from "node:test";
import assert from "node:assert/strict";
import { verifyWebhook, signWebhook, WebhookVerificationError, Takapay, isRefundEvent, REFUND_EVENT_TYPES } from "../dist/index.js";

const secret = "whsec_" + Buffer.from("0123456789abcdef0123456789abcdef").toString("base64");
const oldSecret = "whsec_" + Buffer.from("the previous secret, rotated out").toString("base64");
const now = 1_790_000_000_000;
const ts = String(now / 1000);
const id = "01J0000000000000000000000";
const body = '{"id":"01J0000000000000000000000","type":"payment.completed","timestamp":"2026-09-21T12:00:00Z","data":{"invoice_id":"b596d2cd-c8cc-8f8e-99ad-9c305b07c7be","amount_minor":15050}}';
const headers = (sig, t = ts) => ({ "webhook-id": id, "webhook-timestamp": t, "webhook-signature": sig });
const code = (c) => (err) => err instanceof WebhookVerificationError && err.code === c;

test("a known vector (the Standard Webhooks reference)", () => {
  // From standard-webhooks' own test suite.
  const s = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const msgId = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  const payload = '{"test": 2432232314}';
  assert.equal(signWebhook(s, msgId, 1614265330, payload), "g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  const ev = verifyWebhook({ body: payload, secret: s, now: 1614265330_000,
    headers: { "webhook-id": msgId, "webhook-timestamp": "1614265330", "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" } });
  assert.deepEqual(ev, { test: 2432232314 });
});

test("a good delivery verifies and is parsed; bytes and Headers work too", () => {
  const sig = signWebhook(secret, id, ts, body);
  const ev = verifyWebhook({ body, headers: headers(`v1,${sig}`), secret, now });
  assert.equal(ev.type, "payment.completed");
  assert.equal(ev.data.amount_minor, 15050);
  verifyWebhook({ body: Buffer.from(body), headers: new Headers(headers(`v1,${sig}`)), secret, now });
  verifyWebhook({ body, headers: { "Webhook-Id": id, "Webhook-Timestamp": [ts], "Webhook-Signature": `v1,${sig}` }, secret, now });
  new Takapay({ apiKey: "sk_sandbox_x", baseUrl: "http://127.0.0.1:1" }).verifyWebhook({ body, headers: headers(`v1,${sig}`), secret, now });
});

test("rotation: any of the space-separated signatures may match", () => {
  const cur = signWebhook(secret, id, ts, body);
  const old = signWebhook(oldSecret, id, ts, body);
  verifyWebhook({ body, headers: headers(`v1,${old} v1,${cur}`), secret, now });
  verifyWebhook({ body, headers: headers(`v1,${cur} v1,${old}`), secret, now });
  verifyWebhook({ body, headers: headers(`v1,${cur} v1,${old}`), secret: oldSecret, now });
  verifyWebhook({ body, headers: headers(`v1a,abc v2,${cur} v1,${cur}`), secret, now });
  assert.throws(() => verifyWebhook({ body, headers: headers(`v1,${old}`), secret, now }), code("NO_MATCHING_SIGNATURE"));
  assert.throws(() => verifyWebhook({ body, headers: headers(`v2,${cur}`), secret, now }), code("NO_MATCHING_SIGNATURE"));
});

test("tampering is rejected", () => {
  const sig = signWebhook(secret, id, ts, body);
  assert.throws(() => verifyWebhook({ body: body.replace("15050", "15051"), headers: headers(`v1,${sig}`), secret, now }), code("NO_MATCHING_SIGNATURE"));
  assert.throws(() => verifyWebhook({ body: body + " ", headers: headers(`v1,${sig}`), secret, now }), code("NO_MATCHING_SIGNATURE"));
  assert.throws(() => verifyWebhook({ body, headers: { ...headers(`v1,${sig}`), "webhook-id": "other" }, secret, now }), code("NO_MATCHING_SIGNATURE"));
  assert.throws(() => verifyWebhook({ body, headers: headers(`v1,${sig.slice(0, -4)}AAA=`), secret, now }), code("NO_MATCHING_SIGNATURE"));
  assert.throws(() => verifyWebhook({ body, headers: headers("v1,"), secret, now }), code("NO_MATCHING_SIGNATURE"));
  const t2 = String(Number(ts) + 1);
  assert.throws(() => verifyWebhook({ body, headers: headers(`v1,${sig}`, t2), secret, now }), code("NO_MATCHING_SIGNATURE"));
});

test("timestamps outside the tolerance, both directions", () => {
  const at = (t) => headers(`v1,${signWebhook(secret, id, t, body)}`, t);
  verifyWebhook({ body, headers: at(String(Number(ts) - 300)), secret, now });
  verifyWebhook({ body, headers: at(String(Number(ts) + 300)), secret, now });
  assert.throws(() => verifyWebhook({ body, headers: at(String(Number(ts) - 301)), secret, now }), code("TIMESTAMP_TOO_OLD"));
  assert.throws(() => verifyWebhook({ body, headers: at(String(Number(ts) + 301)), secret, now }), code("TIMESTAMP_TOO_NEW"));
  verifyWebhook({ body, headers: at(String(Number(ts) - 3600)), secret, now, toleranceSeconds: 3600 });
  assert.throws(() => verifyWebhook({ body, headers: at("1.5"), secret, now }), code("INVALID_TIMESTAMP"));
  assert.throws(() => verifyWebhook({ body, headers: at("-1"), secret, now }), code("INVALID_TIMESTAMP"));
});

test("missing headers, a bad secret, a body that is not JSON", () => {
  const sig = signWebhook(secret, id, ts, body);
  assert.throws(() => verifyWebhook({ body, headers: {}, secret, now }), code("MISSING_HEADERS"));
  assert.throws(() => verifyWebhook({ body, headers: { ...headers(`v1,${sig}`), "webhook-signature": undefined }, secret, now }), code("MISSING_HEADERS"));
  assert.throws(() => verifyWebhook({ body, headers: headers(`v1,${sig}`), secret: "not-a-secret", now }), code("INVALID_SECRET"));
  assert.throws(() => verifyWebhook({ body, headers: headers(`v1,${sig}`), secret: "whsec_", now }), code("INVALID_SECRET"));
  const text = "not json";
  assert.throws(() => verifyWebhook({ body: text, headers: headers(`v1,${signWebhook(secret, id, ts, text)}`), secret, now }), code("INVALID_PAYLOAD"));
});

test("a refund event verifies like a payment event and isRefundEvent tells them apart", () => {
  const refund = '{"id":"01J0000000000000000000000","type":"refund.approved","timestamp":"2026-09-21T12:00:00Z","data":{"id":"r-1","object":"refund","payment_id":"b596d2cd-c8cc-8f8e-99ad-9c305b07c7be","status":"APPROVED","amount_minor":20000}}';
  const ev = verifyWebhook({ body: refund, headers: headers(`v1,${signWebhook(secret, id, ts, refund)}`), secret, now });
  assert.equal(isRefundEvent(ev), true);
  assert.equal(ev.data.payment_id, "b596d2cd-c8cc-8f8e-99ad-9c305b07c7be");
  const pay = verifyWebhook({ body, headers: headers(`v1,${signWebhook(secret, id, ts, body)}`), secret, now });
  assert.equal(isRefundEvent(pay), false);
  assert.deepEqual([...REFUND_EVENT_TYPES], ["refund.requested", "refund.in_review", "refund.approved", "refund.rejected", "refund.returned", "refund.cancelled"]);
  assert.throws(() => verifyWebhook({ body: refund.replace("20000", "90000"), headers: headers(`v1,${signWebhook(secret, id, ts, refund)}`), secret, now }),
    code("NO_MATCHING_SIGNATURE"));
});
