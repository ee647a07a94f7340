/** The statuses the client retries: 429 (after Retry-After) and 503. Never 500 or another 4xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 503;
}

export interface BackoffOptions {
  /** First delay's ceiling in ms (default 250). */
  baseDelayMs?: number;
  /** Largest delay in ms (default 8000). */
  maxDelayMs?: number;
}

/**
 * The delay before retry number `retry` (1 for the first retry): exponential with full jitter,
 * a random value in [cap/2, cap] where cap = min(maxDelayMs, baseDelayMs * 2^(retry-1)).
 */
export function backoffDelay(retry: number, opts: BackoffOptions = {}, random: () => number = Math.random): number {
  const base = opts.baseDelayMs ?? 250;
  const max = opts.maxDelayMs ?? 8000;
  const cap = Math.min(max, base * 2 ** Math.max(0, retry - 1));
  return Math.round(cap / 2 + random() * (cap / 2));
}

/**
 * Retry-After in seconds (whole seconds, or an HTTP date) as milliseconds; undefined when absent
 * or unreadable. A date in the past is 0.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value == null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const t = Date.parse(v);
  if (Number.isNaN(t)) return undefined;
  return Math.max(0, t - now);
}
