<?php

declare(strict_types=1);

namespace Takapay\Resource;

use Takapay\Client;

/**
 * Documents of the key's workspace and environment: $documents->customers,
 * $documents->invoices (issue, cancel) and $documents->paymentLinks (publish, archive).
 */
final class Documents
{
    public readonly DocumentKind $customers;
    public readonly Invoices $invoices;
    public readonly PaymentLinks $paymentLinks;

    public function __construct(Client $client)
    {
        $this->customers = new DocumentKind($client, 'customers');
        $this->invoices = new Invoices($client, 'invoices');
        $this->paymentLinks = new PaymentLinks($client, 'payment-links');
    }
}
