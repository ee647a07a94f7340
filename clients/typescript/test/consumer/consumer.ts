// Compiled (no emit) by test/types.test.mjs against the built package's shipped .d.ts: what a
// TypeScript merchant writes must type-check, and the wrong things must not.
import { Takapay, TakapayError, isRefundEvent, type PaymentIntent, type Refund, type components } from "@takapay/client";

const c = new Takapay({ apiKey: "sk_sandbox_x", baseUrl: "https://api.example.com" });
export async function f(): Promise<string> {
  const p = await c.payments.create({ amount: "150.50", reference: "r" });
  const v = await c.payments.verify(p.invoice_id, { expected: { amount: 15050, reference: "r" } });
  const s: "PENDING" | "COMPLETED" | "FAILED" | "CANCELLED" | "EXPIRED" = v.status;
  const i: PaymentIntent = await c.paymentIntents.get(p.invoice_id);
  const any = c.verifyWebhook({ body: "", headers: {}, secret: "" });
  // A webhook_url receives payment and refund events: narrow before reading data.
  // @ts-expect-error invoice_id is a payment event's, not a refund event's
  any.data.invoice_id;
  if (isRefundEvent(any)) {
    const r: Refund = any.data;
    return r.payment_id;
  }
  const ev: components["schemas"]["WebhookPayload"] = any;
  const rf = await c.refunds.create({ payment_id: p.invoice_id, reason: "goods_returned", amount_minor: 100 }, { idempotencyKey: "order-1-refund-0001" });
  await c.refunds.reportReturned(rf.id, { provider_reference: "TRX1", expected_version: rf.version });
  // @ts-expect-error a reason that is not the contract's
  await c.refunds.create({ payment_id: p.invoice_id, reason: "changed_mind" });
  // @ts-expect-error reject needs a reason
  await c.refunds.reject(rf.id, {});
  const doc = await c.invoices.get("d");
  const n: number = doc.record.version;
  // @ts-expect-error an unknown member of the create body
  await c.payments.create({ amount: "1", nope: 1 });
  // @ts-expect-error a status that is not the contract's
  const bad: PaymentIntent["status"] = "DONE";
  try { await c.paymentIntents.cancel(i.id); } catch (e) { if (e instanceof TakapayError) return e.correlation_id; }
  return `${s}${ev.type}${n}${bad}`;
}
