<?php

declare(strict_types=1);

namespace Takapay\Resource;

/** Invoices: draft → issued (issue), draft|issued → cancelled (cancel). */
final class Invoices extends DocumentKind
{
    /** @return array<mixed> the DocumentRecord, issued */
    public function issue(string $id, ?int $expectedVersion = null, array $opts = []): array
    {
        return $this->transition($id, 'issue', $expectedVersion, $opts);
    }

    /** @return array<mixed> the DocumentRecord, cancelled */
    public function cancel(string $id, ?int $expectedVersion = null, array $opts = []): array
    {
        return $this->transition($id, 'cancel', $expectedVersion, $opts);
    }
}
