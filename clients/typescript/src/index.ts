export { Takapay, Payments, PaymentIntents, Documents, Invoices, PaymentLinks } from "./client.js";
export type {
  TakapayOptions, CreateOptions, PaymentCreateParams, LinkedIntentParams, Expected, VerifyResult, Mismatch,
  PaymentCreateResponse, PaymentVerifyResponse, PaymentIntent, PaymentIntentList, PaymentIntentVerification,
  PaymentIntentListQuery, DocumentBody, DocumentPatch, DocumentRecord, DocumentList, DocumentView, DocumentListQuery, Environment,
} from "./client.js";
export { toAmountText, toAmountMinor, toPaisa, jsonWithAmount, AmountError, MAX_PAISA, type Amount } from "./amount.js";
export { TakapayError, WebhookVerificationError, type ApiErrorCode, type ClientErrorCode, type WebhookErrorCode } from "./errors.js";
export { backoffDelay, parseRetryAfter, isRetryableStatus, type BackoffOptions } from "./retry.js";
export { newIdempotencyKey, type CallOptions } from "./http.js";
export { verifyWebhook, signWebhook, type VerifyWebhookOptions, type WebhookEvent, type WebhookHeaders } from "./webhooks.js";
export { VERSION } from "./version.js";
export type { paths, components } from "./schema.js";
