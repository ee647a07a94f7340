<?php

declare(strict_types=1);

namespace Takapay;

use Takapay\Exception\ApiException;
use Takapay\Exception\ConnectionException;
use Takapay\Resource\Documents;
use Takapay\Resource\PaymentIntents;
use Takapay\Resource\Payments;
use Takapay\Resource\Refunds;

/**
 * The Takapay API client.
 *
 *     $takapay = new Takapay\Client([
 *         'apiKey'  => getenv('TAKAPAY_API_KEY'),   // sk_sandbox_… (server-side only)
 *         'baseUrl' => 'https://api.example.com',   // your deployment's ApiUrl
 *     ]);
 *     $p = $takapay->payments->create(['amount' => '150.50', 'reference' => 'order-1001']);
 *
 * Config: apiKey (required); baseUrl; timeout (seconds per attempt, default 10);
 * connectTimeout (seconds, default min(timeout, 5)); maxAttempts (default 3);
 * workspaceId (documents and refunds; read from GET /v1/merchant/context when absent);
 * appInfo (appended to the User-Agent, e.g. "my-shop/2.1").
 */
final class Client
{
    public const VERSION = '0.1.0';
    public const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';
    private const KEY_PATTERN = '/^[A-Za-z0-9_.:-]{16,128}$/D';
    /** curl errors that mean "no answer this time": worth another attempt. */
    private const TRANSIENT_CURL_ERRORS = [
        CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_OPERATION_TIMEDOUT, CURLE_GOT_NOTHING,
        CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_SSL_CONNECT_ERROR, CURLE_PARTIAL_FILE, 16 /* HTTP2 */,
    ];

    public readonly Payments $payments;
    public readonly PaymentIntents $paymentIntents;
    public readonly Documents $documents;
    public readonly Refunds $refunds;

    private string $apiKey;
    private string $baseUrl;
    private float $timeout;
    private float $connectTimeout;
    private int $maxAttempts;
    private ?string $workspaceId;
    private string $userAgent;
    /** @var callable(float):void */
    private $sleep;
    private ?\CurlHandle $curl = null;
    private ?Response $lastResponse = null;
    private int $lastAttempts = 0;

    /** @param array{apiKey: string, baseUrl?: string, timeout?: int|float, connectTimeout?: int|float, maxAttempts?: int, workspaceId?: string, appInfo?: string} $config */
    public function __construct(array $config)
    {
        $apiKey = $config['apiKey'] ?? '';
        if (!is_string($apiKey) || !preg_match('/^sk_(sandbox|live)_[A-Za-z0-9_-]+$/D', $apiKey)) {
            throw new \InvalidArgumentException('apiKey: a secret key, sk_sandbox_… or sk_live_…');
        }
        $this->apiKey = $apiKey;
        $this->baseUrl = rtrim((string) ($config['baseUrl'] ?? self::DEFAULT_BASE_URL), '/');
        if (!preg_match('#^https?://#i', $this->baseUrl)) {
            throw new \InvalidArgumentException('baseUrl: an http(s) URL');
        }
        $this->timeout = (float) ($config['timeout'] ?? 10);
        $this->connectTimeout = (float) ($config['connectTimeout'] ?? min($this->timeout, 5));
        if ($this->timeout <= 0 || $this->connectTimeout <= 0) {
            throw new \InvalidArgumentException('timeout, connectTimeout: seconds, more than 0');
        }
        $this->maxAttempts = (int) ($config['maxAttempts'] ?? 3);
        if ($this->maxAttempts < 1) {
            throw new \InvalidArgumentException('maxAttempts: at least 1');
        }
        $this->workspaceId = isset($config['workspaceId']) ? (string) $config['workspaceId'] : null;
        $this->userAgent = 'takapay-php/' . self::VERSION . ' PHP/' . PHP_VERSION
            . (isset($config['appInfo']) ? ' ' . $config['appInfo'] : '');
        $this->sleep = $config['sleep'] ?? static function (float $seconds): void {
            if ($seconds > 0) {
                usleep((int) round($seconds * 1e6));
            }
        };

        $this->payments = new Payments($this);
        $this->paymentIntents = new PaymentIntents($this);
        $this->documents = new Documents($this);
        $this->refunds = new Refunds($this);
    }

    /** sandbox or live, from the key's prefix. */
    public function environment(): string
    {
        return str_starts_with($this->apiKey, 'sk_live_') ? 'live' : 'sandbox';
    }

    /** The workspace id: configured, or read once from GET /v1/merchant/context. */
    public function workspaceId(): string
    {
        if ($this->workspaceId === null) {
            $this->workspaceId = (string) $this->merchantContext()['workspace_id'];
        }
        return $this->workspaceId;
    }

    /** GET /v1/merchant/context: the key's workspace, environment, scopes. @return array<mixed> */
    public function merchantContext(): array
    {
        return $this->request('GET', '/v1/merchant/context')->data;
    }

    /** The last successful response (headers, correlation id, replayed). */
    public function lastResponse(): ?Response
    {
        return $this->lastResponse;
    }

    /** How many attempts the last call made (successful or not). */
    public function lastAttempts(): int
    {
        return $this->lastAttempts;
    }

    /** A new random Idempotency-Key (26 characters of [a-z0-9_]). */
    public static function newIdempotencyKey(): string
    {
        return 'tp_' . bin2hex(random_bytes(12));
    }

    /**
     * One API call, with its retries. $body is JSON text (null: no body). Options:
     * idempotency_key (string; with $idempotent a random one is generated when absent, and the
     * same key is sent on every retry), timeout, connect_timeout, max_attempts.
     *
     * @param array<string, scalar|null> $query
     * @param array{idempotency_key?: string, timeout?: int|float, connect_timeout?: int|float, max_attempts?: int} $opts
     * @throws ApiException
     */
    public function request(string $method, string $path, array $query = [], ?string $body = null, array $opts = [], bool $idempotent = false): Response
    {
        $url = $this->baseUrl . $path;
        $query = array_filter($query, static fn ($v) => $v !== null);
        if ($query !== []) {
            $url .= '?' . http_build_query(array_map(
                static fn ($v) => is_bool($v) ? ($v ? 'true' : 'false') : (string) $v, $query
            ), '', '&', PHP_QUERY_RFC3986);
        }
        $key = $opts['idempotency_key'] ?? null;
        if ($key !== null && (!is_string($key) || !preg_match(self::KEY_PATTERN, $key))) {
            throw new \InvalidArgumentException('idempotency_key: 16 to 128 of A-Z a-z 0-9 _ . : -');
        }
        if ($key === null && $idempotent) {
            $key = self::newIdempotencyKey();
        }
        $headers = [
            'Authorization: Bearer ' . $this->apiKey,
            'User-Agent: ' . $this->userAgent,
            'Accept: application/json',
            'Expect:',
        ];
        // No body, no Content-Type (curl would add a form type to an empty POST).
        $headers[] = $body !== null ? 'Content-Type: application/json' : 'Content-Type:';
        if ($key !== null) {
            $headers[] = 'Idempotency-Key: ' . $key;
        }
        $timeout = (float) ($opts['timeout'] ?? $this->timeout);
        $connectTimeout = (float) ($opts['connect_timeout'] ?? min($this->connectTimeout, $timeout));
        $maxAttempts = max(1, (int) ($opts['max_attempts'] ?? $this->maxAttempts));

        for ($attempt = 1; ; $attempt++) {
            $this->lastAttempts = $attempt;
            [$status, $respHeaders, $respBody, $errno, $error] = $this->send($method, $url, $headers, $body, $timeout, $connectTimeout);
            if ($errno !== 0) {
                $transient = in_array($errno, self::TRANSIENT_CURL_ERRORS, true);
                if ($transient && $attempt < $maxAttempts) {
                    ($this->sleep)(Retry::delay($attempt));
                    continue;
                }
                throw new ConnectionException(
                    $errno === CURLE_OPERATION_TIMEDOUT ? 'TIMEOUT' : 'CONNECTION_ERROR',
                    sprintf('%s %s: %s (after %d attempt%s)', $method, $path, $error, $attempt, $attempt === 1 ? '' : 's'),
                    $transient, null, 0, $attempt,
                );
            }
            if ($status >= 200 && $status < 300) {
                $data = $respBody === '' ? [] : Json::decode($respBody);
                return $this->lastResponse = new Response($status, $data, $respHeaders, $attempt, $key);
            }
            $retryAfter = Retry::parseRetryAfter($respHeaders['retry-after'] ?? null);
            if (Retry::isRetryableStatus($status) && $attempt < $maxAttempts
                && ($retryAfter === null || $retryAfter <= Retry::MAX_RETRY_AFTER)) {
                ($this->sleep)(Retry::delay($attempt, $retryAfter));
                continue;
            }
            throw self::apiError($status, $respHeaders, $respBody, $attempt, $retryAfter);
        }
    }

    /** @param array<string, string> $headers */
    private static function apiError(int $status, array $headers, string $body, int $attempts, ?int $retryAfter): ApiException
    {
        $e = null;
        try {
            $e = Json::decode($body)['error'] ?? null;
        } catch (\JsonException) {
        }
        if (is_array($e) && isset($e['code'], $e['message'])) {
            return new ApiException((string) $e['code'], (string) $e['message'], (bool) ($e['retryable'] ?? false),
                isset($e['correlation_id']) ? (string) $e['correlation_id'] : ($headers['x-correlation-id'] ?? null),
                $status, $attempts, $retryAfter, $body);
        }
        // Not the envelope (a gateway or proxy answered): say what we got.
        return new ApiException('HTTP_' . $status, sprintf('HTTP %d: %s', $status, substr(trim(strip_tags($body)), 0, 200)),
            Retry::isRetryableStatus($status), $headers['x-correlation-id'] ?? null, $status, $attempts, $retryAfter, $body);
    }

    /**
     * One attempt. @param list<string> $headers
     * @return array{int, array<string, string>, string, int, string}
     */
    private function send(string $method, string $url, array $headers, ?string $body, float $timeout, float $connectTimeout): array
    {
        if ($this->curl === null) {
            $this->curl = curl_init();
        } else {
            curl_reset($this->curl); // keeps the connection cache: keep-alive across calls
        }
        $ch = $this->curl;
        $respHeaders = [];
        curl_setopt_array($ch, [
            CURLOPT_URL => $url,
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_HTTPHEADER => $headers,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_TIMEOUT_MS => max(1, (int) round($timeout * 1000)),
            CURLOPT_CONNECTTIMEOUT_MS => max(1, (int) round($connectTimeout * 1000)),
            CURLOPT_NOSIGNAL => true,
            CURLOPT_PROTOCOLS => CURLPROTO_HTTP | CURLPROTO_HTTPS,
            CURLOPT_HEADERFUNCTION => static function ($ch, string $line) use (&$respHeaders): int {
                if (str_starts_with($line, 'HTTP/')) {
                    $respHeaders = []; // a new response (after 100 Continue)
                } elseif (($i = strpos($line, ':')) !== false) {
                    $respHeaders[strtolower(trim(substr($line, 0, $i)))] = trim(substr($line, $i + 1));
                }
                return strlen($line);
            },
        ]);
        if ($method === 'POST' || $body !== null) {
            curl_setopt($ch, CURLOPT_POSTFIELDS, $body ?? '');
        }
        if ($method === 'GET') {
            curl_setopt($ch, CURLOPT_HTTPGET, true);
        }
        $out = curl_exec($ch);
        $errno = curl_errno($ch);
        if ($errno !== 0 || !is_string($out)) {
            return [0, [], '', $errno !== 0 ? $errno : CURLE_RECV_ERROR, curl_error($ch)];
        }
        return [(int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE), $respHeaders, $out, 0, ''];
    }
}
