<?php

declare(strict_types=1);

namespace Takapay;

/**
 * The answer of verify (POST /v1/payment/verify, or an intent's verify-transaction). Deliver
 * the goods only when shouldDeliver() is true: COMPLETED and, with expected sent, match.
 */
final class VerifyResult
{
    /**
     * @param list<string>  $mismatches the fields that differ from expected: status, amount_minor, currency, reference
     * @param array<mixed>  $raw        the whole decoded answer (intent_id, source, …)
     */
    public function __construct(
        public readonly string $invoiceId,
        public readonly string $status,
        public readonly int $amountMinor,
        public readonly string $currency,
        public readonly string $reference,
        public readonly string $environment,
        public readonly string $createdAt,
        public readonly ?string $firstVerifiedAt,
        public readonly bool $previouslyVerified,
        public readonly ?bool $match,
        public readonly array $mismatches,
        public readonly array $raw,
    ) {
    }

    /** @param array<mixed> $d */
    public static function fromArray(array $d): self
    {
        return new self(
            (string) $d['invoice_id'], (string) $d['status'], (int) $d['amount_minor'], (string) $d['currency'],
            (string) $d['reference'], (string) $d['environment'], (string) $d['created_at'],
            isset($d['first_verified_at']) ? (string) $d['first_verified_at'] : null,
            (bool) ($d['previously_verified'] ?? false),
            array_key_exists('match', $d) ? (bool) $d['match'] : null,
            array_values(array_map('strval', $d['mismatches'] ?? [])),
            $d,
        );
    }

    /** The amount as a taka string, e.g. "150.50". */
    public function amount(): string
    {
        return Amount::format($this->amountMinor);
    }

    /**
     * COMPLETED and every expected field matched (expected must have been sent). Also check
     * previouslyVerified if one payment must not pay for two orders.
     */
    public function shouldDeliver(): bool
    {
        return $this->status === 'COMPLETED' && $this->match === true;
    }
}
