// Compiled (no emit) by test/types.test.mjs against the built package's shipped .d.ts: what a
// TypeScript merchant writes must type-check, and the wrong things must not.
import { Takapay, TakapayError, type PaymentIntent, type components } from "@takapay/client";

const c = new Takapay({ apiKey: "sk_sandbox_x", baseUrl: "https://api.example.com" });
export async function f(): Promise<string> {
  const p = await c.payments.create({ amount: "150.50", reference: "r" });
  const v = await c.payments.verify(p.invoice_id, { expected: { amount: 15050, reference: "r" } });
  const s: "PENDING" | "COMPLETED" | "FAILED" | "CANCELLED" | "EXPIRED" = v.status;
  const i: PaymentIntent = await c.paymentIntents.get(p.invoice_id);
  const ev: components["schemas"]["WebhookPayload"] = c.verifyWebhook({ body: "", headers: {}, secret: "" });
  const doc = await c.invoices.get("d");
  const n: number = doc.record.version;
  // @ts-expect-error an unknown member of the create body
  await c.payments.create({ amount: "1", nope: 1 });
  // @ts-expect-error a status that is not the contract's
  const bad: PaymentIntent["status"] = "DONE";
  try { await c.paymentIntents.cancel(i.id); } catch (e) { if (e instanceof TakapayError) return e.correlation_id; }
  return `${s}${ev.type}${n}${bad}`;
}
