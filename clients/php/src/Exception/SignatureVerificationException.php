<?php

declare(strict_types=1);

namespace Takapay\Exception;

/** A webhook that must not be trusted: missing headers, a bad or old timestamp, no matching signature. */
final class SignatureVerificationException extends \RuntimeException implements TakapayException
{
}
