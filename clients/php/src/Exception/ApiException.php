<?php

declare(strict_types=1);

namespace Takapay\Exception;

/**
 * An error answer of the API (the error envelope), or — as ConnectionException — no answer at all.
 *
 * $code is the envelope's code (e.g. VALIDATION_FAILED); getCode() is the HTTP status.
 */
class ApiException extends \RuntimeException implements TakapayException
{
    /**
     * @param string      $errorCode     the envelope's code, e.g. NOT_FOUND
     * @param bool        $retryable     the envelope's retryable
     * @param string|null $correlationId the envelope's correlation_id (24 hex), also X-Correlation-Id
     * @param int         $httpStatus    the HTTP status (0 when there was no answer)
     * @param int         $attempts      how many attempts the client made for this call
     * @param int|null    $retryAfter    the Retry-After header, in seconds, when there was one
     */
    public function __construct(
        public readonly string $errorCode,
        string $message,
        public readonly bool $retryable,
        public readonly ?string $correlationId,
        public readonly int $httpStatus,
        public readonly int $attempts = 1,
        public readonly ?int $retryAfter = null,
        public readonly ?string $responseBody = null,
        ?\Throwable $previous = null,
    ) {
        parent::__construct($message, $httpStatus, $previous);
    }

    /** The envelope's code (alias of the public property errorCode). */
    public function getErrorCode(): string
    {
        return $this->errorCode;
    }
}
