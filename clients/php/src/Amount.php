<?php

declare(strict_types=1);

namespace Takapay;

/**
 * Money without floats. An amount is either a decimal string of taka ("150.50", "150.5", "150")
 * or an int of paisa (15050). A float is refused: 0.1 + 0.2 is not 0.3, and a payment API must
 * not guess.
 */
final class Amount
{
    /** The largest amount the API takes: 1,000,000,000 taka. */
    public const MAX_PAISA = 100000000000;

    private function __construct()
    {
    }

    /**
     * Paisa of a taka string or a paisa int, validated exactly: a string must match
     * ^[0-9]+(\.[0-9]{1,2})?$ (no sign, no exponent, no spaces, no thousands separators); the
     * result must be from 1 paisa to 1,000,000,000 taka.
     *
     * @throws \InvalidArgumentException
     */
    public static function toPaisa(mixed $amount): int
    {
        if (is_int($amount)) {
            $paisa = $amount;
        } elseif (is_string($amount)) {
            if (preg_match('/^([0-9]+)(?:\.([0-9]{1,2}))?$/D', $amount, $m) !== 1) {
                throw new \InvalidArgumentException(sprintf(
                    'amount %s: must be a decimal string of taka with at most two decimal places (e.g. "150.50"), or an int of paisa',
                    json_encode($amount, JSON_INVALID_UTF8_SUBSTITUTE)
                ));
            }
            $whole = ltrim($m[1], '0');
            if (strlen($whole) > 12) { // far beyond the maximum (and an int overflow)
                $paisa = PHP_INT_MAX;
            } else {
                $paisa = (int) ($whole === '' ? '0' : $whole) * 100 + (int) str_pad($m[2] ?? '', 2, '0');
            }
        } else {
            throw new \InvalidArgumentException(sprintf(
                'amount: must be a decimal string of taka ("150.50") or an int of paisa (15050), not %s',
                get_debug_type($amount)
            ));
        }
        if ($paisa < 1 || $paisa > self::MAX_PAISA) {
            throw new \InvalidArgumentException('amount: must be from 0.01 to 1000000000.00 taka');
        }
        return $paisa;
    }

    /** The JSON number literal of an amount in taka, e.g. 15050 → "150.50" (integer arithmetic only). */
    public static function toJsonNumber(mixed $amount): string
    {
        $paisa = self::toPaisa($amount);
        return intdiv($paisa, 100) . '.' . str_pad((string) ($paisa % 100), 2, '0', STR_PAD_LEFT);
    }

    /** Paisa as a taka string for display: 15050 → "150.50". */
    public static function format(int $paisa): string
    {
        $sign = $paisa < 0 ? '-' : '';
        $paisa = abs($paisa);
        return $sign . intdiv($paisa, 100) . '.' . str_pad((string) ($paisa % 100), 2, '0', STR_PAD_LEFT);
    }
}
