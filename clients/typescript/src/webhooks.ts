import { createHmac, timingSafeEqual } from "node:crypto";
import { WebhookVerificationError } from "./errors.js";
import type { components } from "./schema.js";

/** A payment event (the contract's WebhookPayload): payment.completed, payment.failed, payment.cancelled, payment.expired. */
export type PaymentWebhookEvent = components["schemas"]["WebhookPayload"];
/** A refund event (the contract's RefundWebhookPayload): its data is the refund after the step its type names. */
export type RefundWebhookEvent = components["schemas"]["RefundWebhookPayload"];
/** A verified webhook's event: narrow on `type` (or with isRefundEvent) to reach its data. */
export type WebhookEvent = PaymentWebhookEvent | RefundWebhookEvent;
export type RefundEventType = RefundWebhookEvent["type"];

/** The refund event types, one per status a refund reaches. */
export const REFUND_EVENT_TYPES: readonly RefundEventType[] = Object.freeze([
  "refund.requested", "refund.in_review", "refund.approved", "refund.rejected", "refund.returned", "refund.cancelled",
] as const);

/** Whether a verified event is a refund event (then event.data is the refund). */
export function isRefundEvent(event: WebhookEvent): event is RefundWebhookEvent {
  return (REFUND_EVENT_TYPES as readonly string[]).includes(event.type);
}

/** The request's headers: a fetch Headers, or Node's IncomingHttpHeaders (lower-case names). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The raw request body, byte for byte as received (never re-serialised JSON). */
  body: string | Uint8Array;
  headers: WebhookHeaders;
  /** The workspace's signing secret, whsec_<base64>. */
  secret: string;
  /** Largest accepted distance between webhook-timestamp and now, in seconds (default 300, both directions). */
  toleranceSeconds?: number;
  /** Now, in ms since the epoch (tests). */
  now?: number;
}

function header(h: WebhookHeaders, name: string): string | undefined {
  if (typeof (h as Headers).get === "function") return (h as Headers).get(name) ?? undefined;
  const rec = h as Record<string, string | string[] | undefined>;
  let v = rec[name];
  if (v === undefined) {
    const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
    v = key === undefined ? undefined : rec[key];
  }
  return Array.isArray(v) ? v[0] : v;
}

function secretKey(secret: string): Buffer {
  if (typeof secret !== "string" || !secret.startsWith("whsec_")) {
    throw new WebhookVerificationError("INVALID_SECRET", "the webhook secret must be whsec_<base64>");
  }
  const b64 = secret.slice("whsec_".length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw new WebhookVerificationError("INVALID_SECRET", "the webhook secret is not base64");
  const key = Buffer.from(b64, "base64");
  if (key.length === 0) throw new WebhookVerificationError("INVALID_SECRET", "the webhook secret is empty");
  return key;
}

/** The v1 signature (base64) of a delivery: HMAC-SHA256 over `${id}.${timestamp}.${body}`. */
export function signWebhook(secret: string, id: string, timestamp: number | string, body: string | Uint8Array): string {
  const mac = createHmac("sha256", secretKey(secret));
  mac.update(`${id}.${timestamp}.`);
  mac.update(typeof body === "string" ? Buffer.from(body, "utf8") : body);
  return mac.digest("base64");
}

/**
 * Verifies a Standard Webhooks delivery in one call and returns its parsed event, or throws
 * WebhookVerificationError: headers missing, timestamp outside the tolerance (either
 * direction), or no `v1,<sig>` among the space-separated signatures matching (any match
 * passes, so deliveries signed during a secret rotation verify). Comparison is constant-time.
 */
export function verifyWebhook(opts: VerifyWebhookOptions): WebhookEvent {
  const id = header(opts.headers, "webhook-id");
  const ts = header(opts.headers, "webhook-timestamp");
  const sigs = header(opts.headers, "webhook-signature");
  if (!id || !ts || !sigs) {
    throw new WebhookVerificationError("MISSING_HEADERS", "webhook-id, webhook-timestamp and webhook-signature are required");
  }
  if (!/^\d{1,15}$/.test(ts)) throw new WebhookVerificationError("INVALID_TIMESTAMP", "webhook-timestamp is not whole seconds");
  const tolerance = opts.toleranceSeconds ?? 300;
  const nowSec = Math.floor((opts.now ?? Date.now()) / 1000);
  const tsSec = Number(ts);
  if (tsSec < nowSec - tolerance) throw new WebhookVerificationError("TIMESTAMP_TOO_OLD", "webhook-timestamp is too old");
  if (tsSec > nowSec + tolerance) throw new WebhookVerificationError("TIMESTAMP_TOO_NEW", "webhook-timestamp is too far in the future");

  const expected = Buffer.from(signWebhook(opts.secret, id, ts, opts.body), "base64");
  let ok = false;
  for (const part of sigs.split(" ")) {
    const comma = part.indexOf(",");
    if (comma < 0 || part.slice(0, comma) !== "v1") continue;
    const got = Buffer.from(part.slice(comma + 1), "base64");
    if (got.length === expected.length && timingSafeEqual(got, expected)) ok = true;
  }
  if (!ok) throw new WebhookVerificationError("NO_MATCHING_SIGNATURE", "no signature matches");

  const text = typeof opts.body === "string" ? opts.body : Buffer.from(opts.body).toString("utf8");
  try {
    return JSON.parse(text) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("INVALID_PAYLOAD", "the signed body is not JSON");
  }
}
