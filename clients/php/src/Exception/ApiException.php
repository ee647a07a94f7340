<?php

declare(strict_types=1);

namespace Takapay\Exception;

/**
 * An error answer of the API (the error envelope), or — as ConnectionException — no answer at all.
 *
 * $e->code and $e->getCode() are the envelope's code, a string (e.g. VALIDATION_FAILED), as
 * PDOException's are; $e->httpStatus is the HTTP status.
 */
class ApiException extends \RuntimeException implements TakapayException
{
    /** @var string the envelope's code (public here; Exception's is protected) */
    public $code;

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
        parent::__construct($message, 0, $previous);
        $this->code = $errorCode;
    }

    /** The envelope's code (alias of the public property errorCode). */
    public function getErrorCode(): string
    {
        return $this->errorCode;
    }
}
