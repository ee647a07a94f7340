import { test } from "node:test";
import assert from "node:assert/strict";
import { backoffDelay, parseRetryAfter, isRetryableStatus } from "../dist/index.js";

test("backoff doubles from the base, with jitter in [cap/2, cap], up to the max", () => {
  const lo = () => 0, hi = () => 0.999999;
  assert.equal(backoffDelay(1, {}, lo), 125);
  assert.equal(backoffDelay(1, {}, hi), 250);
  assert.equal(backoffDelay(2, {}, hi), 500);
  assert.equal(backoffDelay(3, { baseDelayMs: 100 }, lo), 200);
  assert.equal(backoffDelay(30, { baseDelayMs: 100, maxDelayMs: 1000 }, hi), 1000);
  for (let i = 0; i < 200; i++) {
    const d = backoffDelay(4);
    assert.ok(d >= 1000 && d <= 2000, String(d));
  }
});

test("Retry-After: whole seconds or an HTTP date", () => {
  assert.equal(parseRetryAfter("2"), 2000);
  assert.equal(parseRetryAfter(" 60 "), 60000);
  assert.equal(parseRetryAfter(null), undefined);
  assert.equal(parseRetryAfter("soon"), undefined);
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(parseRetryAfter("Thu, 01 Jan 2026 00:00:03 GMT", now), 3000);
  assert.equal(parseRetryAfter("Wed, 31 Dec 2025 00:00:00 GMT", now), 0);
});

test("only 429 and 503 are retryable statuses", () => {
  assert.ok(isRetryableStatus(429) && isRetryableStatus(503));
  for (const s of [400, 401, 403, 404, 409, 413, 422, 500, 502]) assert.ok(!isRetryableStatus(s), String(s));
});
