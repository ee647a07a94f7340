<?php

declare(strict_types=1);

namespace Takapay\Resource;

use Takapay\Amount;

/** @internal verify's expected: {amount (taka string or int paisa) | amount_minor, currency (BDT), reference}. */
final class Expected
{
    /**
     * @param array{amount?: string|int, amount_minor?: int, currency?: string, reference: string} $expected
     * @return array{amount_minor: int, currency: string, reference: string}
     */
    public static function build(array $expected): array
    {
        if (array_key_exists('amount', $expected) === array_key_exists('amount_minor', $expected)) {
            throw new \InvalidArgumentException('expected: give amount (taka string or int paisa) or amount_minor (int paisa), one of them');
        }
        if (array_key_exists('amount_minor', $expected)) {
            if (!is_int($expected['amount_minor'])) {
                throw new \InvalidArgumentException('expected.amount_minor: an int of paisa');
            }
            $minor = Amount::toPaisa($expected['amount_minor']);
        } else {
            $minor = Amount::toPaisa($expected['amount']);
        }
        if (!isset($expected['reference']) || !is_string($expected['reference'])) {
            throw new \InvalidArgumentException('expected.reference: your order\'s reference');
        }
        return ['amount_minor' => $minor, 'currency' => (string) ($expected['currency'] ?? 'BDT'), 'reference' => $expected['reference']];
    }
}
