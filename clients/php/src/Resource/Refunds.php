<?php

declare(strict_types=1);

namespace Takapay\Resource;

use Takapay\Client;
use Takapay\Json;

/**
 * Refunds of the key's workspace and environment: /v1/workspaces/{workspaceID}/refunds
 * (docs/refunds.md). A refund is asked for, reviewed, approved or rejected, and reported
 * returned once the money went back; amounts are int paisa (amount_minor), never more than the
 * payment still has refundable. Each transition answers the refund; repeating one that already
 * happened answers the refund as it is, another from the wrong status is 409 STATE_CONFLICT,
 * and expected_version in the body guards against a concurrent decision (409 VERSION_CONFLICT).
 */
final class Refunds
{
    public function __construct(private readonly Client $client)
    {
    }

    /**
     * Ask for a refund of a COMPLETED payment (REQUESTED). The Idempotency-Key is generated
     * unless given (['idempotency_key' => …]), and reused on retries: the same key and body
     * answer the same refund (lastResponse()->replayed()).
     *
     * @param array<string, mixed> $params payment_id (the payment's invoice_id), amount_minor (int paisa;
     *                                     absent: everything still refundable), reason, note, reference, metadata
     * @param array<string, mixed> $opts
     * @return array<mixed> the Refund
     */
    public function create(array $params, array $opts = []): array
    {
        return $this->client->request('POST', $this->path(), $this->env(), Json::object($params), $opts, true)->data;
    }

    /** @return array<mixed> the Refund */
    public function get(string $id, array $opts = []): array
    {
        return $this->client->request('GET', $this->path($id), $this->env(), null, $opts)->data;
    }

    /**
     * One page, newest first. $query: status, payment_id, overdue (true: APPROVED past due_by),
     * limit, cursor. A filtered page may be short, even empty, and still have next_cursor.
     *
     * @param array<string, scalar|null> $query
     * @return array{items: list<array<mixed>>, next_cursor?: string|null}
     */
    public function list(array $query = [], array $opts = []): array
    {
        return $this->client->request('GET', $this->path(), $this->env() + $query, null, $opts)->data;
    }

    /**
     * Every refund matching $query, page after page until next_cursor is absent.
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

    /** REQUESTED → IN_REVIEW. $body: note, expected_version. @return array<mixed> the Refund */
    public function review(string $id, array $body = [], array $opts = []): array
    {
        return $this->transition($id, 'review', $body, $opts);
    }

    /** REQUESTED or IN_REVIEW → APPROVED (due_by set). $body: note, expected_version. @return array<mixed> */
    public function approve(string $id, array $body = [], array $opts = []): array
    {
        return $this->transition($id, 'approve', $body, $opts);
    }

    /** REQUESTED or IN_REVIEW → REJECTED. $body: reason (required, ≤ 255), expected_version. @return array<mixed> */
    public function reject(string $id, array $body, array $opts = []): array
    {
        return $this->transition($id, 'reject', $body, $opts);
    }

    /**
     * APPROVED → RETURNED. $body: provider_reference (required, ≤ 64: the provider's
     * transaction id, e.g. a bKash TrxID), returned_at (RFC 3339, not in the future), expected_version.
     *
     * @return array<mixed> the Refund
     */
    public function reportReturned(string $id, array $body, array $opts = []): array
    {
        return $this->transition($id, 'report-returned', $body, $opts);
    }

    /** REQUESTED, IN_REVIEW or APPROVED → CANCELLED. $body: note, expected_version. @return array<mixed> */
    public function cancel(string $id, array $body = [], array $opts = []): array
    {
        return $this->transition($id, 'cancel', $body, $opts);
    }

    /** @return array<mixed> */
    private function transition(string $id, string $action, array $body, array $opts): array
    {
        return $this->client->request('POST', $this->path($id) . '/' . $action, $this->env(), Json::object($body), $opts)->data;
    }

    private function path(?string $id = null): string
    {
        return '/v1/workspaces/' . rawurlencode($this->client->workspaceId()) . '/refunds'
            . ($id === null ? '' : '/' . rawurlencode($id));
    }

    /** @return array{environment: string} */
    private function env(): array
    {
        return ['environment' => $this->client->environment()];
    }
}
