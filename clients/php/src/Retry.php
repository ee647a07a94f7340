<?php

declare(strict_types=1);

namespace Takapay;

/**
 * When to retry and how long to wait. Retryable: HTTP 503 and 429, and no answer at all (a
 * refused or reset connection, a timed-out attempt). Never: any other 4xx, and 500 (a bug on
 * our side that the same request would hit again).
 */
final class Retry
{
    /** First backoff, in seconds; it doubles per attempt up to MAX_DELAY. */
    public const BASE_DELAY = 0.25;
    public const MAX_DELAY = 8.0;
    /** A Retry-After longer than this is not waited for: the error is thrown instead. */
    public const MAX_RETRY_AFTER = 60;

    private function __construct()
    {
    }

    public static function isRetryableStatus(int $status): bool
    {
        return $status === 503 || $status === 429;
    }

    /**
     * The wait before attempt $attempt + 1, in seconds, after attempt $attempt (1-based) failed.
     * Retry-After (seconds) wins when the server sent one; otherwise exponential backoff
     * with "equal jitter": half the step fixed, half random.
     *
     * @param callable():float|null $random a number in [0, 1) (tests pass a fixed one)
     */
    public static function delay(int $attempt, ?int $retryAfter = null, ?callable $random = null): float
    {
        if ($retryAfter !== null) {
            return (float) $retryAfter;
        }
        $step = min(self::MAX_DELAY, self::BASE_DELAY * (2 ** max(0, $attempt - 1)));
        $r = $random !== null ? $random() : mt_rand() / (mt_getrandmax() + 1);
        return $step / 2 + $step / 2 * $r;
    }

    /**
     * Retry-After as whole seconds: delta-seconds ("2") or an HTTP date; null when absent or
     * unreadable. A date in the past is 0.
     */
    public static function parseRetryAfter(?string $value, ?int $now = null): ?int
    {
        if ($value === null) {
            return null;
        }
        $value = trim($value);
        if ($value === '') {
            return null;
        }
        if (preg_match('/^[0-9]{1,9}$/D', $value) === 1) {
            return (int) $value;
        }
        $t = \DateTimeImmutable::createFromFormat('D, d M Y H:i:s \G\M\T', $value, new \DateTimeZone('UTC'));
        if ($t === false) {
            return null;
        }
        return max(0, $t->getTimestamp() - ($now ?? time()));
    }
}
