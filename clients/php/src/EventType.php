<?php

declare(strict_types=1);

namespace Takapay;

/**
 * The webhook event types (an event's 'type', after Webhook::verify). A payment event's data is
 * the payment (invoice_id, status, amount_minor, …); a refund event's data is the refund
 * (id, payment_id, status, amount_minor, …): docs/webhooks.md and docs/refunds.md.
 *
 *     if (EventType::isRefund($event['type'])) { … $event['data']['payment_id'] … }
 */
final class EventType
{
    public const PAYMENT_COMPLETED = 'payment.completed';
    public const PAYMENT_FAILED = 'payment.failed';
    public const PAYMENT_CANCELLED = 'payment.cancelled';
    public const PAYMENT_EXPIRED = 'payment.expired';

    public const REFUND_REQUESTED = 'refund.requested';
    public const REFUND_IN_REVIEW = 'refund.in_review';
    public const REFUND_APPROVED = 'refund.approved';
    public const REFUND_REJECTED = 'refund.rejected';
    public const REFUND_RETURNED = 'refund.returned';
    public const REFUND_CANCELLED = 'refund.cancelled';

    public const PAYMENT = [self::PAYMENT_COMPLETED, self::PAYMENT_FAILED, self::PAYMENT_CANCELLED, self::PAYMENT_EXPIRED];
    public const REFUND = [self::REFUND_REQUESTED, self::REFUND_IN_REVIEW, self::REFUND_APPROVED, self::REFUND_REJECTED,
        self::REFUND_RETURNED, self::REFUND_CANCELLED];

    private function __construct()
    {
    }

    /** Whether $type is one of the refund events. */
    public static function isRefund(string $type): bool
    {
        return in_array($type, self::REFUND, true);
    }

    /** Whether $type is one of the payment events. */
    public static function isPayment(string $type): bool
    {
        return in_array($type, self::PAYMENT, true);
    }
}
