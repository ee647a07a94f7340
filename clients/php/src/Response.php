<?php

declare(strict_types=1);

namespace Takapay;

/** A successful answer: the decoded body and what the headers said. */
final class Response
{
    /**
     * @param array<mixed>          $data    the decoded JSON body
     * @param array<string, string> $headers lower-cased names, last value wins
     */
    public function __construct(
        public readonly int $status,
        public readonly array $data,
        public readonly array $headers,
        public readonly int $attempts,
        public readonly ?string $idempotencyKey = null,
    ) {
    }

    public function correlationId(): ?string
    {
        return $this->headers['x-correlation-id'] ?? null;
    }

    /** True when a create was the replay of an earlier one with the same Idempotency-Key. */
    public function replayed(): bool
    {
        return ($this->headers['idempotent-replayed'] ?? '') === 'true';
    }
}
