import { randomBytes } from "node:crypto";
import { TakapayError } from "./errors.js";
import { backoffDelay, isRetryableStatus, parseRetryAfter, type BackoffOptions } from "./retry.js";

const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{16,128}$/;

/** A fresh Idempotency-Key: "tkp_" + 32 random hex characters. */
export function newIdempotencyKey(): string {
  return `tkp_${randomBytes(16).toString("hex")}`;
}

/** Checks a caller's Idempotency-Key (16-128 of [A-Za-z0-9_.:-]). */
export function checkIdempotencyKey(key: string): string {
  if (!IDEMPOTENCY_KEY.test(key)) throw new TypeError("idempotencyKey must be 16 to 128 of letters, digits, '_', '.', ':' and '-'");
  return key;
}

export interface TransportOptions extends BackoffOptions {
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  maxAttempts: number;
  timeoutMs: number;
  fetch: typeof globalThis.fetch;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface CallOptions {
  /** Per-call override of the client's attempts (1 = no retry). */
  maxAttempts?: number;
  /** Per-call override of the per-attempt timeout, ms. */
  timeoutMs?: number;
  /** Abort the whole call (no further retries). */
  signal?: AbortSignal;
}

export interface Request extends CallOptions {
  method: "GET" | "POST" | "PATCH";
  path: string;
  query?: Record<string, string | number | boolean | null | undefined>;
  /** The JSON body's exact text (built once: every retry sends the same bytes). */
  body?: string;
  idempotencyKey?: string;
}

export interface Response<T> {
  data: T;
  status: number;
  headers: Headers;
  attempts: number;
}

/** Waits ms, or rejects with the signal's reason as soon as it aborts. */
export function sleepDefault(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * One API call with the client's retries: HTTP 503 and 429 (Retry-After honoured) and
 * connection failures or per-attempt timeouts are retried with exponential backoff and jitter,
 * up to maxAttempts, sending the same Idempotency-Key and body each time; any other status is
 * final. Errors are TakapayError.
 */
export async function call<T>(t: TransportOptions, req: Request): Promise<Response<T>> {
  const url = new URL(req.path.replace(/^\//, ""), t.baseUrl.endsWith("/") ? t.baseUrl : t.baseUrl + "/");
  for (const [k, v] of Object.entries(req.query ?? {})) {
    if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
  }
  const headers: Record<string, string> = {
    Authorization: `Bearer ${t.apiKey}`,
    "User-Agent": t.userAgent,
    Accept: "application/json",
  };
  if (req.body !== undefined) headers["Content-Type"] = "application/json";
  if (req.idempotencyKey !== undefined) headers["Idempotency-Key"] = req.idempotencyKey;
  const maxAttempts = Math.max(1, req.maxAttempts ?? t.maxAttempts);
  const timeoutMs = req.timeoutMs ?? t.timeoutMs;

  for (let attempt = 1; ; attempt++) {
    req.signal?.throwIfAborted();
    const signals = [AbortSignal.timeout(timeoutMs)];
    if (req.signal) signals.push(req.signal);
    let res: globalThis.Response;
    let text: string;
    try {
      res = await t.fetch(url, { method: req.method, headers, body: req.body, signal: AbortSignal.any(signals) });
      text = await res.text();
    } catch (err) {
      if (req.signal?.aborted) throw err;
      const timedOut = err instanceof DOMException && (err.name === "TimeoutError" || err.name === "AbortError");
      if (attempt < maxAttempts) {
        await t.sleep(backoffDelay(attempt, t), req.signal);
        continue;
      }
      throw new TakapayError({
        code: timedOut ? "TIMEOUT" : "CONNECTION_FAILED",
        message: timedOut ? `no answer within ${timeoutMs} ms` : `connection failed: ${(err as Error)?.message ?? err}`,
        retryable: true, correlation_id: "", status: 0, attempts: attempt, cause: err,
      });
    }
    if (res.ok) {
      let data: T;
      try {
        data = (text === "" ? undefined : JSON.parse(text)) as T;
      } catch (err) {
        throw new TakapayError({ code: "UNEXPECTED_RESPONSE", message: `HTTP ${res.status}: the body is not JSON`, retryable: false,
          correlation_id: res.headers.get("x-correlation-id") ?? "", status: res.status, attempts: attempt, cause: err });
      }
      return { data, status: res.status, headers: res.headers, attempts: attempt };
    }
    const retryAfter = parseRetryAfter(res.headers.get("retry-after"));
    if (isRetryableStatus(res.status) && attempt < maxAttempts) {
      await t.sleep(retryAfter ?? backoffDelay(attempt, t), req.signal);
      continue;
    }
    throw errorFrom(res, text, attempt, retryAfter);
  }
}

function errorFrom(res: globalThis.Response, text: string, attempts: number, retryAfterMs: number | undefined): TakapayError {
  const retryAfter = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
  try {
    const e = JSON.parse(text)?.error;
    if (e && typeof e.code === "string" && typeof e.message === "string") {
      return new TakapayError({ code: e.code, message: e.message, retryable: e.retryable === true,
        correlation_id: typeof e.correlation_id === "string" ? e.correlation_id : res.headers.get("x-correlation-id") ?? "",
        status: res.status, attempts, retryAfter });
    }
  } catch {
    // not the envelope: below
  }
  return new TakapayError({ code: "UNEXPECTED_RESPONSE", message: `HTTP ${res.status} without the error envelope`,
    retryable: isRetryableStatus(res.status), correlation_id: res.headers.get("x-correlation-id") ?? "", status: res.status, attempts, retryAfter });
}
