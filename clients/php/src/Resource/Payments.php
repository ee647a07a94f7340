<?php

declare(strict_types=1);

namespace Takapay\Resource;

use Takapay\Client;
use Takapay\Json;
use Takapay\VerifyResult;

/** Hosted payments: POST /v1/payment/create and /v1/payment/verify. */
final class Payments
{
    public function __construct(private readonly Client $client)
    {
    }

    /**
     * Create a hosted payment. $params: amount (REQUIRED: taka as a decimal string "150.50" or
     * int paisa 15050 — never a float), reference, webhook_url, redirect_url, cancel_url,
     * customer_name, customer_email, customer_phone, expires_in_minutes, locale, metadata.
     * An Idempotency-Key is generated unless $opts['idempotency_key'] is given; retries reuse it.
     *
     * @param array<string, mixed> $params
     * @param array<string, mixed> $opts idempotency_key, timeout, max_attempts
     * @return array{invoice_id: string, status: string, payment_url: string}
     */
    public function create(array $params, array $opts = []): array
    {
        if (!array_key_exists('amount', $params)) {
            throw new \InvalidArgumentException('amount: required (a decimal string of taka, or an int of paisa)');
        }
        return $this->client->request('POST', '/v1/payment/create', [], Json::object($params, true), $opts, true)->data;
    }

    /**
     * Verify a payment server-side. With $expected (amount as a taka string or int paisa, or
     * amount_minor; currency, default BDT; reference) the service compares exactly: a
     * mismatch is reported in the result (match false, mismatches), not thrown.
     *
     * @param array<string, mixed>|null $expected
     * @param array<string, mixed> $opts
     */
    public function verify(string $invoiceId, ?array $expected = null, array $opts = []): VerifyResult
    {
        $body = ['invoice_id' => $invoiceId];
        if ($expected !== null) {
            $body['expected'] = Expected::build($expected);
        }
        return VerifyResult::fromArray($this->client->request('POST', '/v1/payment/verify', [], Json::object($body), $opts)->data);
    }
}
