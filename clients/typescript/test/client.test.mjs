import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { Takapay, TakapayError, VERSION } from "../dist/index.js";

// A local API: each test sets `script`, a function (request number, request) -> [status, headers, body] or "hang".
let script = () => [500, {}, "{}"];
let seen = [];
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const r = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
    seen.push(r);
    const out = script(seen.length, r);
    if (out === "hang") return; // never answers: the client's per-attempt timeout fires
    if (out === "destroy") return req.socket.destroy();
    const [status, headers, body] = out;
    res.writeHead(status, { "Content-Type": "application/json", ...headers });
    res.end(body);
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
after(() => { server.closeAllConnections(); server.close(); });
const baseUrl = `http://127.0.0.1:${server.address().port}`;
const client = (o = {}) => new Takapay({ apiKey: "sk_sandbox_test", baseUrl, workspaceId: "11111111-1111-4111-8111-111111111111", baseDelayMs: 5, maxDelayMs: 20, ...o });
const reset = (fn) => { seen = []; script = fn; };

const created = JSON.stringify({ invoice_id: "22222222-2222-4222-8222-222222222222", status: "PENDING", payment_url: `${baseUrl}/v1/public/checkout/${"a".repeat(43)}` });
const envelope = (code, retryable, cid = "0123456789abcdef01234567") => JSON.stringify({ error: { code, message: `${code} happened`, retryable, correlation_id: cid } });

test("create: the body's amount is the exact literal; a generated key; the User-Agent", async () => {
  reset(() => [201, {}, created]);
  const out = await client().payments.create({ amount: "150.5", reference: "order-1", metadata: { n: 1 } });
  assert.equal(out.invoice_id, "22222222-2222-4222-8222-222222222222");
  assert.equal(out.replayed, false);
  const [r] = seen;
  assert.equal(r.method, "POST");
  assert.equal(r.url, "/v1/payment/create");
  assert.equal(r.body, '{"amount":150.50,"reference":"order-1","metadata":{"n":1}}');
  assert.match(r.headers["idempotency-key"], /^[A-Za-z0-9_.:-]{16,128}$/);
  assert.equal(r.headers["user-agent"], `takapay-typescript/${VERSION}`);
  assert.equal(r.headers.authorization, "Bearer sk_sandbox_test");
  assert.equal(r.headers["content-type"], "application/json");
  reset(() => [201, {}, created]);
  await client().payments.create({ amount: 15050 });
  assert.equal(seen[0].body, '{"amount":150.50}');
});

test("each call gets its own key; the caller's key is sent as given", async () => {
  reset(() => [201, { "Idempotent-Replayed": "true" }, created]);
  const c = client();
  await c.payments.create({ amount: "1.00" });
  await c.payments.create({ amount: "1.00" });
  const out = await c.payments.create({ amount: "1.00" }, { idempotencyKey: "order-1001-attempt-0001" });
  assert.notEqual(seen[0].headers["idempotency-key"], seen[1].headers["idempotency-key"]);
  assert.equal(seen[2].headers["idempotency-key"], "order-1001-attempt-0001");
  assert.equal(out.replayed, true);
  await assert.rejects(c.payments.create({ amount: "1.00" }, { idempotencyKey: "short" }), TypeError);
  await assert.rejects(c.payments.create({ amount: 1.5 }), RangeError);
  assert.equal(seen.length, 3); // refused before sending
});

test("503 then 429 (Retry-After) then 201: the same key and the same body every time", async () => {
  reset((n) => n === 1 ? [503, { "Retry-After": "0" }, envelope("SERVICE_UNAVAILABLE", true)]
    : n === 2 ? [429, { "Retry-After": "1" }, envelope("RATE_LIMITED", true)] : [201, {}, created]);
  const t0 = Date.now();
  await client().payments.create({ amount: "150.50", reference: "r" });
  assert.equal(seen.length, 3);
  assert.ok(Date.now() - t0 >= 990, "Retry-After: 1 is honoured");
  assert.equal(new Set(seen.map((r) => r.headers["idempotency-key"])).size, 1);
  assert.equal(new Set(seen.map((r) => r.body)).size, 1);
});

test("per-attempt timeouts and dropped connections are retried with the same key", async () => {
  reset((n) => n === 1 ? "hang" : n === 2 ? "destroy" : [201, {}, created]);
  await client({ timeoutMs: 200 }).payments.create({ amount: "2.00" });
  assert.equal(seen.length, 3);
  assert.equal(new Set(seen.map((r) => r.headers["idempotency-key"])).size, 1);
});

test("retries stop at maxAttempts with the last error", async () => {
  reset(() => [503, {}, envelope("SERVICE_UNAVAILABLE", true)]);
  const err = await client({ maxAttempts: 4 }).payments.create({ amount: "2.00" }).catch((e) => e);
  assert.ok(err instanceof TakapayError);
  assert.equal(err.code, "SERVICE_UNAVAILABLE");
  assert.equal(err.status, 503);
  assert.equal(err.retryable, true);
  assert.equal(err.attempts, 4);
  assert.equal(seen.length, 4);
  reset(() => "hang");
  const t = await client({ maxAttempts: 2, timeoutMs: 100 }).paymentIntents.get("x").catch((e) => e);
  assert.equal(t.code, "TIMEOUT");
  assert.equal(t.status, 0);
  assert.equal(seen.length, 2);
  const refused = await new Takapay({ apiKey: "sk_sandbox_x", baseUrl: "http://127.0.0.1:1", maxAttempts: 2, baseDelayMs: 1 }).paymentIntents.get("x").catch((e) => e);
  assert.equal(refused.code, "CONNECTION_FAILED");
  assert.equal(refused.attempts, 2);
});

test("500 and other 4xx are final: a typed error after one attempt", async () => {
  for (const [status, code] of [[500, "INTERNAL_ERROR"], [404, "NOT_FOUND"], [409, "IDEMPOTENCY_KEY_REUSED"], [422, "VALIDATION_FAILED"], [400, "MALFORMED_REQUEST"]]) {
    reset(() => [status, { "X-Correlation-Id": "ffffffffffffffffffffffff" }, envelope(code, status === 500, "abcdefabcdefabcdefabcdef")]);
    const err = await client().payments.verify("33333333-3333-4333-8333-333333333333").catch((e) => e);
    assert.ok(err instanceof TakapayError, String(err));
    assert.deepEqual([err.status, err.code, err.correlation_id, err.correlationId, err.attempts, err.message], [status, code, "abcdefabcdefabcdefabcdef", "abcdefabcdefabcdefabcdef", 1, `${code} happened`]);
    assert.equal(seen.length, 1);
  }
  reset(() => [502, { "X-Correlation-Id": "ffffffffffffffffffffffff" }, "<html>bad gateway</html>"]);
  const err = await client().payments.verify("x").catch((e) => e);
  assert.deepEqual([err.code, err.status, err.correlation_id], ["UNEXPECTED_RESPONSE", 502, "ffffffffffffffffffffffff"]);
});

test("verify sends expected in paisa; a mismatch is an answer", async () => {
  reset(() => [200, {}, JSON.stringify({ invoice_id: "i", status: "COMPLETED", match: false, mismatches: ["amount_minor"] })]);
  const v = await client().payments.verify("i", { expected: { amount: "150.50", reference: "order-1" } });
  assert.deepEqual(JSON.parse(seen[0].body), { invoice_id: "i", expected: { amount_minor: 15050, currency: "BDT", reference: "order-1" } });
  assert.equal(v.match, false);
  assert.deepEqual(v.mismatches, ["amount_minor"]);
});

test("intents and documents: paths, queries, keys", async () => {
  reset(() => [200, {}, JSON.stringify({ items: [{ id: "d" }], next_cursor: null, delivery: [], activity: {} })]);
  const c = client();
  await c.paymentIntents.list({ reference: "order 1", limit: 10 });
  await c.paymentIntents.cancel("i-1");
  await c.paymentIntents.create({ document_id: "44444444-4444-4444-8444-444444444444", quantity: 2 });
  await c.paymentIntents.create({ amount: "5", reference: "x" });
  await c.invoices.create({ reference: "inv-1" });
  const got = await c.invoices.get("d1", { historyCursor: "3" });
  await c.invoices.edit("d1", { notes: null }, { expectedVersion: 2 });
  await c.invoices.issue("d1", { expectedVersion: 3 });
  await c.paymentLinks.publish("l1");
  await c.customers.list({ q: "rahim" });
  const ws = "/v1/workspaces/11111111-1111-4111-8111-111111111111/documents";
  assert.deepEqual(seen.map((r) => `${r.method} ${r.url}`), [
    "GET /v1/payment-intents?reference=order+1&limit=10",
    "POST /v1/payment-intents/i-1/cancel",
    "POST /v1/payment-intents",
    "POST /v1/payment-intents",
    `POST ${ws}/invoices?environment=sandbox`,
    `GET ${ws}/invoices/d1?environment=sandbox&history_cursor=3`,
    `PATCH ${ws}/invoices/d1?environment=sandbox`,
    `POST ${ws}/invoices/d1/issue?environment=sandbox`,
    `POST ${ws}/payment-links/l1/publish?environment=sandbox`,
    `GET ${ws}/customers?environment=sandbox&q=rahim`,
  ]);
  assert.equal(got.record.id, "d");
  assert.equal(seen[1].body, "");
  assert.equal(seen[2].body, '{"document_id":"44444444-4444-4444-8444-444444444444","quantity":2}');
  assert.equal(seen[3].body, '{"amount":5.00,"reference":"x"}');
  for (const i of [2, 3, 4, 6]) assert.match(seen[i].headers["idempotency-key"], /^[A-Za-z0-9_.:-]{16,128}$/, String(i));
  assert.equal(seen[6].body, '{"notes":null,"expected_version":2}');
  assert.equal(seen[7].body, '{"expected_version":3}');
  assert.equal(new Takapay({ apiKey: "sk_live_x", baseUrl }).environment, "live");
  await assert.rejects(new Takapay({ apiKey: "sk_sandbox_x", baseUrl }).invoices.get("d"), /workspaceId/);
});

test("server-side only: refuses to start in a browser", () => {
  globalThis.window = {};
  globalThis.document = {};
  try {
    assert.throws(() => client(), /server-side only/);
  } finally {
    delete globalThis.window;
    delete globalThis.document;
  }
  client();
});

test("VERSION is package.json's", () => {
  assert.equal(VERSION, JSON.parse(readFileSync(new URL("../package.json", import.meta.url))).version);
});

test("the caller's signal stops the retries, even during a Retry-After wait", async () => {
  reset(() => [429, { "Retry-After": "30" }, envelope("RATE_LIMITED", true)]);
  const ac = new AbortController();
  const t0 = Date.now();
  setTimeout(() => ac.abort(new Error("shutting down")), 100);
  await assert.rejects(client({ maxAttempts: 5 }).paymentIntents.list({}, { signal: ac.signal }), /shutting down/);
  assert.ok(Date.now() - t0 < 5000);
  assert.equal(seen.length, 1);
});

const refundJson = (o = {}) => JSON.stringify({ id: "33333333-3333-4333-8333-333333333333", object: "refund", status: "REQUESTED", amount_minor: 20000, version: 1, ...o });

test("refunds: create with one key on every attempt, the environment, the body as given", async () => {
  reset((n) => n === 1 ? [503, { "Retry-After": "0" }, envelope("SERVICE_UNAVAILABLE", true)] : [201, { "Idempotent-Replayed": "true" }, refundJson()]);
  const r = await client().refunds.create({ payment_id: "p-1", amount_minor: 20000, reason: "goods_returned", note: "শাড়ি ফেরত" },
    { idempotencyKey: "order-2001-refund-0001" });
  assert.equal(r.status, "REQUESTED");
  assert.equal(r.replayed, true);
  assert.equal(seen.length, 2);
  for (const s of seen) {
    assert.equal(s.method, "POST");
    assert.equal(s.url, "/v1/workspaces/11111111-1111-4111-8111-111111111111/refunds?environment=sandbox");
    assert.equal(s.headers["idempotency-key"], "order-2001-refund-0001");
    assert.equal(s.body, '{"payment_id":"p-1","amount_minor":20000,"reason":"goods_returned","note":"শাড়ি ফেরত"}');
  }
});

test("refunds: each transition posts its body to its path, without a key; a refusal is a TakapayError", async () => {
  reset((n, r) => r.url.includes("/cancel") ? [409, {}, envelope("STATE_CONFLICT", false)] : [200, {}, refundJson()]);
  const c = client();
  const id = "33333333-3333-4333-8333-333333333333";
  await c.refunds.review(id);
  await c.refunds.approve(id, { expected_version: 2 });
  await c.refunds.reject(id, { reason: "Not ours" });
  await c.refunds.reportReturned(id, { provider_reference: "TRX9BC4D2E1" });
  await c.refunds.get(id);
  await assert.rejects(c.refunds.cancel(id, { note: "kept" }), (e) => e instanceof TakapayError && e.status === 409 && e.code === "STATE_CONFLICT" && e.attempts === 1);
  const p = `/v1/workspaces/11111111-1111-4111-8111-111111111111/refunds/${id}`;
  assert.deepEqual(seen.map((s) => [s.method, s.url, s.body, s.headers["idempotency-key"]]), [
    ["POST", `${p}/review?environment=sandbox`, "{}", undefined],
    ["POST", `${p}/approve?environment=sandbox`, '{"expected_version":2}', undefined],
    ["POST", `${p}/reject?environment=sandbox`, '{"reason":"Not ours"}', undefined],
    ["POST", `${p}/report-returned?environment=sandbox`, '{"provider_reference":"TRX9BC4D2E1"}', undefined],
    ["GET", `${p}?environment=sandbox`, "", undefined],
    ["POST", `${p}/cancel?environment=sandbox`, '{"note":"kept"}', undefined],
  ]);
});

test("refunds: listAll pages with the filters until next_cursor is null; the workspace is read once from the merchant context", async () => {
  reset((n, r) => {
    if (r.url === "/v1/merchant/context") return [200, {}, JSON.stringify({ workspace_id: "44444444-4444-4444-8444-444444444444" })];
    const cursor = new URL(r.url, baseUrl).searchParams.get("cursor");
    if (!cursor) return [200, {}, JSON.stringify({ items: [JSON.parse(refundJson({ id: "a" }))], next_cursor: "c-1" })];
    if (cursor === "c-1") return [200, {}, JSON.stringify({ items: [], next_cursor: "c-2" })];
    return [200, {}, JSON.stringify({ items: [JSON.parse(refundJson({ id: "b" }))], next_cursor: null })];
  });
  const c = client({ workspaceId: undefined });
  const ids = [];
  for await (const r of c.refunds.listAll({ status: "APPROVED", overdue: "true" })) ids.push(r.id);
  assert.deepEqual(ids, ["a", "b"]);
  const p = "/v1/workspaces/44444444-4444-4444-8444-444444444444/refunds?environment=sandbox&status=APPROVED&overdue=true";
  assert.deepEqual(seen.map((s) => s.url), ["/v1/merchant/context", p, `${p}&cursor=c-1`, `${p}&cursor=c-2`]);
});
