<?php

declare(strict_types=1);

namespace Takapay;

/** @internal JSON text of request bodies, with the amount member written by Amount, never by a float. */
final class Json
{
    public const FLAGS = JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION | JSON_THROW_ON_ERROR;

    private function __construct()
    {
    }

    /**
     * An object's JSON text. When $params has "amount" it is validated by Amount and written as
     * its exact number literal; every other member goes through json_encode.
     *
     * @param array<string, mixed> $params
     */
    public static function object(array $params, bool $withAmount = false): string
    {
        $amount = null;
        if ($withAmount && array_key_exists('amount', $params)) {
            $amount = '"amount":' . Amount::toJsonNumber($params['amount']);
            unset($params['amount']);
        }
        self::refuseFloats($params, '');
        $rest = $params === [] ? '{}' : json_encode((object) $params, self::FLAGS);
        if ($amount === null) {
            return $rest;
        }
        return $rest === '{}' ? '{' . $amount . '}' : '{' . $amount . ',' . substr($rest, 1);
    }

    /** @return array<mixed> */
    public static function decode(string $text): array
    {
        $v = json_decode($text, true, 512, JSON_THROW_ON_ERROR | JSON_BIGINT_AS_STRING);
        return is_array($v) ? $v : [];
    }

    /** Money members (amount, amount_minor, tax_minor, …) are never floats: a float there is a caller's bug. */
    private static function refuseFloats(array $params, string $path): void
    {
        foreach ($params as $k => $v) {
            if (is_float($v) && is_string($k) && ($k === 'amount' || str_ends_with($k, '_minor'))) {
                throw new \InvalidArgumentException(sprintf(
                    '%s%s: a float is not accepted (write amounts as int paisa or a decimal string)', $path, $k
                ));
            }
            if (is_array($v)) {
                self::refuseFloats($v, $path . $k . '.');
            }
        }
    }
}
