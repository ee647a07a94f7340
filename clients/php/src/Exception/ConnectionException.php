<?php

declare(strict_types=1);

namespace Takapay\Exception;

/**
 * No answer: the connection failed or an attempt timed out, on every attempt the client made.
 * errorCode is CONNECTION_ERROR or TIMEOUT, httpStatus 0, retryable true (the same
 * Idempotency-Key may be sent again: a create that did happen is replayed, not repeated).
 */
final class ConnectionException extends ApiException
{
}
