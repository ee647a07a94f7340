<?php

declare(strict_types=1);

namespace Takapay\Exception;

/** Every exception the client throws on purpose implements this. */
interface TakapayException extends \Throwable
{
}
