export { Takapay, Payments, PaymentIntents, Documents, Invoices, PaymentLinks, Refunds } from "./client.js";
export type {
  TakapayOptions, CreateOptions, PaymentCreateParams, LinkedIntentParams, Expected, VerifyResult, Mismatch,
  PaymentCreateResponse, PaymentVerifyResponse, PaymentIntent, PaymentIntentList, PaymentIntentVerification,
  PaymentIntentListQuery, DocumentBody, DocumentPatch, DocumentRecord, DocumentList, DocumentView, DocumentListQuery, Environment,
  Refund, RefundList, RefundCreateParams, RefundTransitionBody, RefundRejectBody, RefundReportReturnedBody, RefundListQuery,
} from "./client.js";
export { toAmountText, toAmountMinor, toPaisa, jsonWithAmount, AmountError, MAX_PAISA, type Amount } from "./amount.js";
export { TakapayError, WebhookVerificationError, type ApiErrorCode, type ClientErrorCode, type WebhookErrorCode } from "./errors.js";
export { backoffDelay, parseRetryAfter, isRetryableStatus, type BackoffOptions } from "./retry.js";
export { newIdempotencyKey, type CallOptions } from "./http.js";
export {
  verifyWebhook, signWebhook, isRefundEvent, REFUND_EVENT_TYPES,
  type VerifyWebhookOptions, type WebhookEvent, type PaymentWebhookEvent, type RefundWebhookEvent, type RefundEventType, type WebhookHeaders,
} from "./webhooks.js";
export { VERSION } from "./version.js";
export type { paths, components } from "./schema.js";
