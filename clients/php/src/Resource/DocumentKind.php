<?php

declare(strict_types=1);

namespace Takapay\Resource;

use Takapay\Client;
use Takapay\Json;

/**
 * One kind of document: /v1/workspaces/{workspaceID}/documents/{kind}, with the environment of
 * the client's key. Amounts in documents are int paisa (amount_minor, unit_amount_minor, …).
 */
class DocumentKind
{
    public function __construct(protected readonly Client $client, public readonly string $kind)
    {
    }

    /**
     * Create (Idempotency-Key generated unless given; reused on retries).
     *
     * @param array<string, mixed> $body DocumentBody: reference (required), name, email, items, …
     * @param array<string, mixed> $opts
     * @return array<mixed> the DocumentRecord
     */
    public function create(array $body, array $opts = []): array
    {
        return $this->client->request('POST', $this->path(), $this->env(), Json::object($body), $opts, true)->data;
    }

    /**
     * The record. $query: history_cursor; for a customer cursor, q, limit page its invoices
     * (use getResult for activity and delivery).
     *
     * @return array<mixed> the DocumentRecord
     */
    public function get(string $id, array $query = [], array $opts = []): array
    {
        return $this->getResult($id, $query, $opts)['items'][0];
    }

    /** The whole list-result of a get: items [record], delivery, activity. @return array<mixed> */
    public function getResult(string $id, array $query = [], array $opts = []): array
    {
        return $this->client->request('GET', $this->path($id), $this->env() + $query, null, $opts)->data;
    }

    /**
     * One page, newest first. $query: limit, cursor, q.
     *
     * @return array{items: list<array<mixed>>, next_cursor: string|null, delivery: array<mixed>, activity: array<mixed>}
     */
    public function list(array $query = [], array $opts = []): array
    {
        return $this->client->request('GET', $this->path(), $this->env() + $query, null, $opts)->data;
    }

    /** @return \Generator<int, array<mixed>> every record matching $query, page after page */
    public function all(array $query = [], array $opts = []): \Generator
    {
        do {
            $page = $this->list($query, $opts);
            yield from $page['items'];
            $query['cursor'] = $page['next_cursor'] ?? null;
        } while ($query['cursor'] !== null);
    }

    /**
     * Edit with a JSON merge patch (null deletes a member). With $expectedVersion, a stale
     * version is 409 VERSION_CONFLICT. Idempotency-Key generated unless given.
     *
     * @param array<string, mixed> $patch
     * @return array<mixed> the DocumentRecord
     */
    public function edit(string $id, array $patch, ?int $expectedVersion = null, array $opts = []): array
    {
        if ($expectedVersion !== null) {
            $patch['expected_version'] = $expectedVersion;
        }
        return $this->client->request('PATCH', $this->path($id), $this->env(), Json::object($patch), $opts, true)->data;
    }

    /** A lifecycle command (issue, cancel, publish, archive). @return array<mixed> */
    protected function transition(string $id, string $action, ?int $expectedVersion, array $opts): array
    {
        $body = $expectedVersion === null ? null : Json::object(['expected_version' => $expectedVersion]);
        return $this->client->request('POST', $this->path($id) . '/' . $action, $this->env(), $body, $opts)->data;
    }

    protected function path(?string $id = null): string
    {
        return '/v1/workspaces/' . rawurlencode($this->client->workspaceId()) . '/documents/' . $this->kind
            . ($id === null ? '' : '/' . rawurlencode($id));
    }

    /** @return array{environment: string} */
    protected function env(): array
    {
        return ['environment' => $this->client->environment()];
    }
}
