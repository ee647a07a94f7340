import type { components } from "./schema.js";

/** The API's error codes (the Error envelope's enum). */
export type ApiErrorCode = components["schemas"]["Error"]["error"]["code"];
/** Codes the client itself uses when no envelope arrived. */
export type ClientErrorCode = "CONNECTION_FAILED" | "TIMEOUT" | "UNEXPECTED_RESPONSE";

/**
 * An API call that failed: the Error envelope's code, message, retryable and correlation_id,
 * the HTTP status (0 when no response arrived) and how many attempts the client made.
 */
export class TakapayError extends Error {
  override name = "TakapayError";
  readonly code: ApiErrorCode | ClientErrorCode;
  readonly retryable: boolean;
  /** The request's correlation id (24 hex), for support; "" when no response arrived. */
  readonly correlation_id: string;
  readonly status: number;
  readonly attempts: number;
  /** The Retry-After the last response carried, in seconds. */
  readonly retryAfter: number | undefined;

  constructor(init: { code: ApiErrorCode | ClientErrorCode; message: string; retryable: boolean; correlation_id: string; status: number; attempts: number; retryAfter?: number; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.retryable = init.retryable;
    this.correlation_id = init.correlation_id;
    this.status = init.status;
    this.attempts = init.attempts;
    this.retryAfter = init.retryAfter;
  }

  /** Alias of correlation_id. */
  get correlationId(): string {
    return this.correlation_id;
  }
}

export type WebhookErrorCode =
  | "MISSING_HEADERS"
  | "INVALID_SECRET"
  | "INVALID_TIMESTAMP"
  | "TIMESTAMP_TOO_OLD"
  | "TIMESTAMP_TOO_NEW"
  | "NO_MATCHING_SIGNATURE"
  | "INVALID_PAYLOAD";

/** A webhook delivery that must not be trusted (answer it 400; do not act on it). */
export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
  readonly code: WebhookErrorCode;
  constructor(code: WebhookErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
