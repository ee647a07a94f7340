// The client's journey against a running stack (shared/local/clienttest): every call goes
// through @takapay/client's public API; the payer's and the platform workers' parts go to
// TAKAPAY_CONTROL_URL with plain fetch. One line per step; exit 1 on any failure.
import { Takapay, TakapayError, WebhookVerificationError, signWebhook, isRefundEvent } from "@takapay/client";

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const control = env("TAKAPAY_CONTROL_URL");
const secret = env("TAKAPAY_WEBHOOK_SECRET");
const webhookUrl = env("TAKAPAY_WEBHOOK_URL");
const options = { apiKey: env("TAKAPAY_API_KEY"), baseUrl: env("TAKAPAY_BASE_URL"), workspaceId: env("TAKAPAY_WORKSPACE_ID") };
const takapay = new Takapay(options);

function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}
async function ctl(method, path, body) {
  const res = await fetch(control + path, { method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`control ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}
function rejects(fn, code, what) {
  try {
    fn();
  } catch (err) {
    check(err instanceof WebhookVerificationError, `${what}: a WebhookVerificationError, got ${err}`);
    check(code === undefined || err.code === code, `${what}: code ${code}, got ${err.code}`);
    return err.code;
  }
  throw new Error(`${what}: accepted`);
}

const run = `${Date.now()}`;
const reference = `journey-ts-${run}`;

// 1. create
const created = await takapay.payments.create({ amount: "150.50", reference, webhook_url: webhookUrl });
check(created.status === "PENDING" && created.payment_url.includes("/v1/public/checkout/"), "create answers PENDING with a payment_url");
console.log(`ok 1 create ${created.invoice_id}`);

// 2. the payer pays
await ctl("POST", "/approve", { payment_url: created.payment_url });
console.log("ok 2 approve");

// 3. verify: match, then a mismatch that is an answer, not an exception
const good = await takapay.payments.verify(created.invoice_id, { expected: { amount: "150.50", currency: "BDT", reference } });
check(good.status === "COMPLETED" && good.match === true && good.mismatches?.length === 0 && good.amount_minor === 15050, `verify matches: ${JSON.stringify(good)}`);
const bad = await takapay.payments.verify(created.invoice_id, { expected: { amount: 15000, reference } });
check(bad.match === false && bad.mismatches?.includes("amount_minor") && bad.mismatches.length === 1, `verify mismatch: ${JSON.stringify(bad)}`);
console.log(`ok 3 verify ${good.status} match=${good.match} mismatch=${bad.mismatches.join(",")}`);

// 4. the webhook
await ctl("POST", "/drain");
const deliveries = await ctl("GET", "/deliveries");
const d = deliveries.find((x) => x.body.includes(created.invoice_id));
check(d, `a delivery for ${created.invoice_id} among ${deliveries.length}`);
const headers = { "webhook-id": d.id, "webhook-timestamp": d.timestamp, "webhook-signature": d.signature };
const event = takapay.verifyWebhook({ body: d.body, headers, secret });
check(event.type === "payment.completed" && event.data.invoice_id === created.invoice_id && event.data.amount_minor === 15050, `event: ${JSON.stringify(event)}`);
// Rotation: an old secret's signature next to the current one still verifies.
takapay.verifyWebhook({ body: d.body, headers: { ...headers, "webhook-signature": `v1,${signWebhook("whsec_" + Buffer.from("an-old-secret").toString("base64"), d.id, d.timestamp, d.body)} ${d.signature}` }, secret });
const tampered = rejects(() => takapay.verifyWebhook({ body: d.body.replace("15050", "15051").replace("COMPLETED", "FAILED"), headers, secret }), "NO_MATCHING_SIGNATURE", "a tampered body");
rejects(() => takapay.verifyWebhook({ body: d.body, headers: { ...headers, "webhook-signature": "v1," + Buffer.alloc(32).toString("base64") }, secret }), "NO_MATCHING_SIGNATURE", "a forged signature");
const old = String(Number(d.timestamp) - 3600);
const stale = rejects(() => takapay.verifyWebhook({ body: d.body, headers: { ...headers, "webhook-timestamp": old, "webhook-signature": `v1,${signWebhook(secret, d.id, old, d.body)}` }, secret }), "TIMESTAMP_TOO_OLD", "an old timestamp");
console.log(`ok 4 webhook ${event.type} ${event.data.invoice_id} tampered=${tampered} old=${stale}`);

// 5. retries through a DynamoDB pause: one payment, whatever the attempts
const retryRef = `journey-ts-retry-${run}`;
let attempts = 0;
const counting = new Takapay({ ...options, timeoutMs: 1000, maxAttempts: 6, fetch: (...a) => { attempts++; return fetch(...a); } });
await ctl("POST", "/pause-dynamodb", { ms: 2500 });
const t0 = Date.now();
const retried = await counting.payments.create({ amount: 15050, reference: retryRef, webhook_url: webhookUrl });
const took = Date.now() - t0;
check(attempts > 1, `the create was retried (attempts ${attempts}, ${took} ms)`);
const listed = await takapay.paymentIntents.list({ reference: retryRef });
check(listed.items.length === 1 && listed.items[0].id === retried.invoice_id && listed.items[0].amount_minor === 15050, `exactly one intent for ${retryRef}: ${JSON.stringify(listed.items.map((i) => i.id))}`);
console.log(`ok 5 retry ${retried.invoice_id} attempts=${attempts} ms=${took} intents=${listed.items.length}`);

// 6. a 4xx: typed, not retried
attempts = 0;
try {
  await counting.payments.verify("00000000-0000-4000-8000-000000000000");
  throw new Error("verify of an unknown id succeeded");
} catch (err) {
  check(err instanceof TakapayError, `a TakapayError, got ${err}`);
  check(err.status === 404 && err.code === "NOT_FOUND" && err.retryable === false && /^[a-f0-9]{24}$/.test(err.correlation_id), `the error: ${JSON.stringify({ ...err, message: err.message })}`);
  check(attempts === 1 && err.attempts === 1, `not retried (attempts ${attempts})`);
  console.log(`ok 6 error ${err.status} ${err.code} retryable=${err.retryable} correlation_id=${err.correlation_id} attempts=${attempts}`);
}

// 7. an intent and documents
const intent = await takapay.paymentIntents.create({ amount: "99.90", reference: `journey-ts-intent-${run}` });
const gotIntent = await takapay.paymentIntents.get(intent.id);
check(gotIntent.status === "PENDING" && gotIntent.amount_minor === 9990, `intent get: ${JSON.stringify(gotIntent)}`);
const cancelled = await takapay.paymentIntents.cancel(intent.id);
check(cancelled.status === "CANCELLED", `intent cancel: ${cancelled.status}`);
const customer = await takapay.customers.create({ reference: `cust-${run}`, name: "Rahim Uddin", email: "rahim@example.com" });
const invoice = await takapay.invoices.create({ reference: `inv-${run}`, customer_id: customer.id, items: [{ title: "T-shirt", quantity: 2, unit_amount_minor: 45000 }] });
check(invoice.status === "draft", `invoice create: ${JSON.stringify(invoice)}`);
const edited = await takapay.invoices.edit(invoice.id, { notes: "Thanks!", due_at: null }, { expectedVersion: invoice.version });
check(edited.version === invoice.version + 1 && edited.body.notes === "Thanks!", `invoice edit: ${JSON.stringify(edited)}`);
const issued = await takapay.invoices.issue(invoice.id, { expectedVersion: edited.version });
const gotInvoice = await takapay.invoices.get(invoice.id);
check(issued.status === "issued" && gotInvoice.record.status === "issued" && gotInvoice.record.customer_id === customer.id && gotInvoice.record.amount_minor === 90000, `invoice: ${JSON.stringify(gotInvoice.record)}`);
const intentCheck = await takapay.paymentIntents.verify(intent.id, { expected: { amount: "99.90", reference: intent.reference } });
check(intentCheck.status === "CANCELLED" && intentCheck.match === false && intentCheck.mismatches.includes("status"), `intent verify: ${JSON.stringify(intentCheck)}`);
const link = await takapay.paymentLinks.create({ reference: `link-${run}`, name: "T-shirt", amount_minor: 45000, max_quantity: 3 });
const published = await takapay.paymentLinks.publish(link.id);
const linked = await takapay.paymentIntents.create({ document_id: link.id, quantity: 2 });
check(published.status === "active" && linked.amount_minor === 90000 && linked.source.kind === "payment-links", `linked intent: ${JSON.stringify(linked)}`);
const archived = await takapay.paymentLinks.archive(link.id);
const customers = await takapay.customers.list({ q: `cust-${run}` });
let byDoc = 0;
for await (const i of takapay.paymentIntents.listAll({ document_id: link.id, limit: 1 })) byDoc += i.id === linked.id ? 1 : 0;
check(archived.status === "archived" && customers.items.some((x) => x.id === customer.id) && byDoc === 1, `link ${archived.status}, customers ${customers.items.length}, by document ${byDoc}`);
console.log(`ok 7 intent ${intent.id} ${cancelled.status} customer ${customer.id} invoice ${invoice.id} ${gotInvoice.record.status} amount_minor=${gotInvoice.record.amount_minor} link ${link.id} ${archived.status} linked ${linked.amount_minor}`);

// 8. refunds of step 1's COMPLETED payment (15050 paisa): every transition, the money rule,
//    paging, and their webhooks verified; the workspace read from the key's merchant context.
const refunds = new Takapay({ ...options, workspaceId: undefined }).refunds;
const refundKey = `journey-ts-refund-${run}`;
const asked = { payment_id: created.invoice_id, amount_minor: 5000, reason: "goods_returned", note: "One item came back", reference: `rma-${run}` };
let refund = await refunds.create(asked, { idempotencyKey: refundKey });
check(refund.status === "REQUESTED" && refund.amount_minor === 5000 && refund.requested_by === "merchant" && refund.replayed === false, `refund create: ${JSON.stringify(refund)}`);
const replay = await refunds.create(asked, { idempotencyKey: refundKey });
check(replay.id === refund.id && replay.replayed === true, `refund replay: ${JSON.stringify(replay)}`);
const conflict = async (p, code, what) => {
  try {
    await p;
  } catch (err) {
    check(err instanceof TakapayError && err.status === 409 && err.code === code, `${what}: 409 ${code}, got ${err}`);
    return;
  }
  throw new Error(`${what}: accepted`);
};
await conflict(refunds.create({ payment_id: created.invoice_id, amount_minor: 15000, reason: "other" }), "STATE_CONFLICT", "a refund over what is refundable");
refund = await refunds.review(refund.id, { note: "Parcel checked" });
check(refund.status === "IN_REVIEW", `review: ${refund.status}`);
await conflict(refunds.approve(refund.id, { expected_version: refund.version - 1 }), "VERSION_CONFLICT", "approve with a stale version");
refund = await refunds.approve(refund.id, { expected_version: refund.version });
check(refund.status === "APPROVED" && typeof refund.due_by === "string", `approve: ${JSON.stringify(refund)}`);
const trx = { provider_reference: `TRX${run}` };
refund = await refunds.reportReturned(refund.id, trx);
const repeated = await refunds.reportReturned(refund.id, trx);
check(refund.status === "RETURNED" && refund.provider_reference === trx.provider_reference && repeated.version === refund.version, `report returned: ${JSON.stringify(repeated)}`);
await conflict(refunds.cancel(refund.id), "STATE_CONFLICT", "cancel a returned refund");
const rest = await refunds.create({ payment_id: created.invoice_id, reason: "requested_by_customer" });
const cancelledRefund = await refunds.cancel(rest.id, { note: "The customer kept it" });
check(rest.amount_minor === 10050 && cancelledRefund.status === "CANCELLED", `the rest, cancelled: ${JSON.stringify(cancelledRefund)}`);
const refundsListed = [];
for await (const r of refunds.listAll({ payment_id: created.invoice_id, limit: 1 })) refundsListed.push(r.status);
check(refundsListed.join(",") === "CANCELLED,RETURNED", `the payment's refunds, one a page: ${refundsListed}`);
const gotRefund = await refunds.get(refund.id);
check(gotRefund.history.map((h) => h.status).join(",") === "REQUESTED,IN_REVIEW,APPROVED,RETURNED", `history: ${JSON.stringify(gotRefund.history)}`);
await ctl("POST", "/drain");
const refundTypes = new Set();
for (const x of await ctl("GET", "/deliveries")) {
  if (!x.body.includes(refund.id)) continue;
  const ev = takapay.verifyWebhook({ body: x.body, headers: { "webhook-id": x.id, "webhook-timestamp": x.timestamp, "webhook-signature": x.signature }, secret });
  check(isRefundEvent(ev) && ev.data.id === refund.id, `a refund event: ${x.body}`);
  refundTypes.add(ev.type);
}
for (const t of ["refund.requested", "refund.in_review", "refund.approved", "refund.returned"]) check(refundTypes.has(t), `${t} delivered (got ${[...refundTypes]})`);
console.log(`ok 8 refund ${refund.id} ${gotRefund.history.map((h) => h.status).join(" ")}; over-refund 409; rest ${rest.id} CANCELLED; listed ${refundsListed}; webhooks ${[...refundTypes]}`);
