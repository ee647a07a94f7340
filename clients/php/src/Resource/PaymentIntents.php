<?php

declare(strict_types=1);

namespace Takapay\Resource;

use Takapay\Client;
use Takapay\Json;
use Takapay\VerifyResult;

/** Payment intents: /v1/payment-intents (the key's workspace and environment). */
final class PaymentIntents
{
    public function __construct(private readonly Client $client)
    {
    }

    /**
     * Create an intent: standalone (amount as in Payments::create) or linked (document_id of an
     * issued invoice or an active payment link, optional quantity; no amount). The
     * Idempotency-Key is generated unless given, and reused on retries.
     *
     * @param array<string, mixed> $params
     * @param array<string, mixed> $opts
     * @return array<mixed> the PaymentIntent
     */
    public function create(array $params, array $opts = []): array
    {
        if (array_key_exists('amount', $params) === array_key_exists('document_id', $params)) {
            throw new \InvalidArgumentException('give amount (standalone) or document_id (linked), one of them');
        }
        return $this->client->request('POST', '/v1/payment-intents', [], Json::object($params, true), $opts, true)->data;
    }

    /**
     * The intent as of now. Its payment_url (the payer's capability) is present only when the
     * key holds payments:write; a payments:read key gets the intent without it.
     *
     * @return array<mixed> the PaymentIntent
     */
    public function get(string $id, array $opts = []): array
    {
        return $this->client->request('GET', '/v1/payment-intents/' . rawurlencode($id), [], null, $opts)->data;
    }

    /**
     * One page, newest first. $query: limit, cursor, status, document_id, created_gte,
     * created_lt, source, reference. A page may be short and still have next_cursor.
     *
     * @param array<string, scalar|null> $query
     * @return array{items: list<array<mixed>>, next_cursor: string|null}
     */
    public function list(array $query = [], array $opts = []): array
    {
        return $this->client->request('GET', '/v1/payment-intents', $query, null, $opts)->data;
    }

    /**
     * Every intent matching $query, page after page.
     *
     * @param array<string, scalar|null> $query
     * @return \Generator<int, array<mixed>>
     */
    public function all(array $query = [], array $opts = []): \Generator
    {
        do {
            $page = $this->list($query, $opts);
            yield from $page['items'];
            $query['cursor'] = $page['next_cursor'] ?? null;
        } while ($query['cursor'] !== null);
    }

    /** PENDING → CANCELLED (an intent already CANCELLED is returned again). @return array<mixed> */
    public function cancel(string $id, array $opts = []): array
    {
        return $this->client->request('POST', '/v1/payment-intents/' . rawurlencode($id) . '/cancel', [], null, $opts)->data;
    }

    /**
     * verify-transaction: the intent's payment, compared with $expected when given.
     *
     * @param array<string, mixed>|null $expected
     */
    public function verify(string $id, ?array $expected = null, array $opts = []): VerifyResult
    {
        $body = $expected === null ? null : Json::object(['expected' => Expected::build($expected)]);
        return VerifyResult::fromArray($this->client->request('POST', '/v1/payment-intents/' . rawurlencode($id) . '/verify-transaction', [], $body, $opts)->data);
    }
}
