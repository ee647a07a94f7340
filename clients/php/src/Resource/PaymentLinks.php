<?php

declare(strict_types=1);

namespace Takapay\Resource;

/** Payment links: draft → active (publish), active → archived (archive). */
final class PaymentLinks extends DocumentKind
{
    /** @return array<mixed> the DocumentRecord, active */
    public function publish(string $id, ?int $expectedVersion = null, array $opts = []): array
    {
        return $this->transition($id, 'publish', $expectedVersion, $opts);
    }

    /** @return array<mixed> the DocumentRecord, archived */
    public function archive(string $id, ?int $expectedVersion = null, array $opts = []): array
    {
        return $this->transition($id, 'archive', $expectedVersion, $opts);
    }
}
