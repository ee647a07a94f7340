<?php

declare(strict_types=1);

namespace Takapay;

use Takapay\Exception\SignatureVerificationException;

/**
 * Webhook verification in one call (Standard Webhooks). In a plain PHP endpoint:
 *
 *     $payload = file_get_contents('php://input');          // the raw body, byte for byte
 *     try {
 *         $event = Takapay\Webhook::verify($payload, getallheaders(), getenv('TAKAPAY_WEBHOOK_SECRET'));
 *     } catch (Takapay\Exception\SignatureVerificationException $e) {
 *         http_response_code(400);
 *         exit;
 *     }
 *     // Dedupe on $event['id'] (= webhook-id), then verify the payment before delivering goods.
 *
 * Laravel: Webhook::verify($request->getContent(), $request->headers->all(), $secret).
 */
final class Webhook
{
    public const DEFAULT_TOLERANCE = 300;

    private function __construct()
    {
    }

    /**
     * Check the signature of a delivery and return its event (the decoded body).
     *
     * $headers: any of getallheaders(), $_SERVER (HTTP_WEBHOOK_ID, …), Laravel/Symfony's
     * headers->all() (values as arrays), PSR-7's getHeaders(); names are case-insensitive.
     * $secret: the whsec_… secret. $tolerance: seconds the timestamp may be off, either way.
     * Any one of the space-separated v1 signatures may match (secret rotation). Constant-time.
     *
     * @param array<string, string|list<string>> $headers
     * @return array<mixed> the event: id, type, timestamp, data
     * @throws SignatureVerificationException
     */
    public static function verify(string $payload, array $headers, string $secret, int $tolerance = self::DEFAULT_TOLERANCE, ?int $now = null): array
    {
        $id = self::header($headers, 'webhook-id');
        $timestamp = self::header($headers, 'webhook-timestamp');
        $signatures = self::header($headers, 'webhook-signature');
        if ($id === null || $timestamp === null || $signatures === null) {
            throw new SignatureVerificationException('missing webhook-id, webhook-timestamp or webhook-signature header');
        }
        if (preg_match('/^[0-9]{1,15}$/D', $timestamp) !== 1) {
            throw new SignatureVerificationException('webhook-timestamp: not a Unix time in seconds');
        }
        $now ??= time();
        $ts = (int) $timestamp;
        if ($ts < $now - $tolerance) {
            throw new SignatureVerificationException('webhook-timestamp: too old (a replay?)');
        }
        if ($ts > $now + $tolerance) {
            throw new SignatureVerificationException('webhook-timestamp: too far in the future');
        }
        $expected = self::sign($id, $timestamp, $payload, $secret);
        $matched = false;
        foreach (preg_split('/ +/', trim($signatures)) ?: [] as $candidate) {
            $parts = explode(',', $candidate, 2);
            if (count($parts) === 2 && $parts[0] === 'v1' && hash_equals($expected, $parts[1])) {
                $matched = true; // no early exit: every candidate is compared
            }
        }
        if (!$matched) {
            throw new SignatureVerificationException('no matching signature');
        }
        try {
            $event = json_decode($payload, true, 512, JSON_THROW_ON_ERROR | JSON_BIGINT_AS_STRING);
        } catch (\JsonException $e) {
            throw new SignatureVerificationException('the signed body is not JSON', 0, $e);
        }
        if (!is_array($event)) {
            throw new SignatureVerificationException('the signed body is not a JSON object');
        }
        return $event;
    }

    /**
     * The v1 signature (base64 HMAC-SHA256 of "id.timestamp.payload") of a delivery: for tests
     * of a merchant's endpoint.
     */
    public static function sign(string $id, string $timestamp, string $payload, string $secret): string
    {
        return base64_encode(hash_hmac('sha256', $id . '.' . $timestamp . '.' . $payload, self::key($secret), true));
    }

    private static function key(string $secret): string
    {
        if (str_starts_with($secret, 'whsec_')) {
            $secret = substr($secret, 6);
        }
        $key = base64_decode($secret, true);
        if ($key === false || $key === '') {
            throw new SignatureVerificationException('secret: not a whsec_<base64> webhook secret');
        }
        return $key;
    }

    /** @param array<string, mixed> $headers */
    private static function header(array $headers, string $name): ?string
    {
        $server = 'HTTP_' . strtoupper(str_replace('-', '_', $name));
        foreach ($headers as $k => $v) {
            $k = (string) $k;
            if (strcasecmp($k, $name) === 0 || $k === $server) {
                if (is_array($v)) {
                    $v = $v[0] ?? null;
                }
                return is_string($v) ? $v : null;
            }
        }
        return null;
    }
}
