<?php

// The client's own tests, no PHPUnit (nothing to download): php tests/run.php
// The pure parts (amounts, JSON bodies, backoff and Retry-After, webhook verification) and the
// retry loop against a scripted local server (php -S tests/fake_api.php).

declare(strict_types=1);

require __DIR__ . '/../src/autoload.php';

use Takapay\Amount;
use Takapay\Client;
use Takapay\Exception\ApiException;
use Takapay\Exception\ConnectionException;
use Takapay\Exception\SignatureVerificationException;
use Takapay\Json;
use Takapay\Retry;
use Takapay\Webhook;

$failures = 0;
$passes = 0;
function check(bool $ok, string $what): void
{
    global $failures, $passes;
    if ($ok) {
        $passes++;
    } else {
        $failures++;
        $t = debug_backtrace(DEBUG_BACKTRACE_IGNORE_ARGS, 1)[0];
        fwrite(STDERR, "FAIL {$what} (line {$t['line']})\n");
    }
}
function same(mixed $want, mixed $got, string $what): void
{
    check($want === $got, $what . ': want ' . var_export($want, true) . ', got ' . var_export($got, true));
}
/** @param class-string<\Throwable> $class */
function throws(string $class, callable $f, string $what): ?\Throwable
{
    try {
        $f();
    } catch (\Throwable $e) {
        check($e instanceof $class, "$what: want $class, got " . get_class($e) . ': ' . $e->getMessage());
        return $e;
    }
    check(false, "$what: want $class, nothing thrown");
    return null;
}
function section(string $name): void
{
    echo "-- $name\n";
}

section('amounts');
foreach ([['150.50', 15050, '150.50'], ['150.5', 15050, '150.50'], ['150', 15000, '150.00'], ['0.01', 1, '0.01'],
          ['007.10', 710, '7.10'], [15050, 15050, '150.50'], [1, 1, '0.01'], ['1000000000', 100000000000, '1000000000.00'],
          ['1000000000.00', 100000000000, '1000000000.00'], [100000000000, 100000000000, '1000000000.00']] as [$in, $paisa, $json]) {
    same($paisa, Amount::toPaisa($in), 'toPaisa ' . var_export($in, true));
    same($json, Amount::toJsonNumber($in), 'toJsonNumber ' . var_export($in, true));
}
foreach (['', '.5', '150.', '150.505', '-1', '+1', '1e2', '1,000', ' 150', "150\n", '150.50 ', '١٥٠', '0', '0.00', '1000000000.01',
          '99999999999999999999999', '0x10', 0, -5, 100000000001, 150.5, 1.0, null, true, ['150']] as $bad) {
    throws(\InvalidArgumentException::class, static fn () => Amount::toPaisa($bad), 'toPaisa rejects ' . var_export($bad, true));
}
same('-1.05', Amount::format(-105), 'format negative');
same('0.00', Amount::format(0), 'format 0');

section('json bodies');
same('{"amount":150.50,"reference":"order-1"}', Json::object(['reference' => 'order-1', 'amount' => '150.50'], true), 'amount first, exact');
same('{"amount":0.10}', Json::object(['amount' => 10], true), 'amount alone, from paisa');
same('{"amount":12345678.91,"metadata":{"rating":4.5,"tags":["a"]}}',
    Json::object(['amount' => '12345678.91', 'metadata' => ['rating' => 4.5, 'tags' => ['a']]], true), 'metadata floats are fine');
same('{}', Json::object([]), 'empty object');
same('{"url":"https://x.example/a/b","name":"টাকা"}', Json::object(['url' => 'https://x.example/a/b', 'name' => 'টাকা']), 'no escaping');
throws(\InvalidArgumentException::class, static fn () => Json::object(['amount' => 150.5], true), 'float amount');
throws(\InvalidArgumentException::class, static fn () => Json::object(['items' => [['unit_amount_minor' => 100.0]]]), 'float *_minor');
same(['n' => '123456789012345678901234567890'], Json::decode('{"n":123456789012345678901234567890}'), 'big ints stay strings');

section('backoff and Retry-After');
same(true, Retry::isRetryableStatus(503), '503 retryable');
same(true, Retry::isRetryableStatus(429), '429 retryable');
foreach ([400, 401, 403, 404, 409, 413, 422, 500, 502] as $s) {
    same(false, Retry::isRetryableStatus($s), "$s not retryable");
}
$zero = static fn (): float => 0.0;
$one = static fn (): float => 0.999999;
same(0.125, Retry::delay(1, null, $zero), 'attempt 1 lower bound');
check(abs(Retry::delay(1, null, $one) - 0.25) < 1e-5, 'attempt 1 upper bound');
same(0.25, Retry::delay(2, null, $zero), 'doubles');
same(4.0, Retry::delay(20, null, $zero), 'capped at MAX_DELAY/2..MAX_DELAY');
check(Retry::delay(20, null, $one) <= Retry::MAX_DELAY, 'never beyond MAX_DELAY');
same(3.0, Retry::delay(1, 3), 'Retry-After wins');
for ($i = 0; $i < 100; $i++) {
    $d = Retry::delay(3);
    check($d >= 0.5 && $d <= 1.0, 'jitter within [step/2, step]');
}
same(2, Retry::parseRetryAfter('2'), 'seconds');
same(2, Retry::parseRetryAfter(' 2 '), 'seconds, trimmed');
same(null, Retry::parseRetryAfter(null), 'absent');
same(null, Retry::parseRetryAfter(''), 'empty');
same(null, Retry::parseRetryAfter('-1'), 'negative');
same(null, Retry::parseRetryAfter('soon'), 'garbage');
same(null, Retry::parseRetryAfter('1.5'), 'fraction');
$now = gmmktime(12, 0, 0, 11, 27, 2026);
same(30, Retry::parseRetryAfter('Fri, 27 Nov 2026 12:00:30 GMT', $now), 'HTTP date');
same(0, Retry::parseRetryAfter('Fri, 27 Nov 2026 11:00:00 GMT', $now), 'HTTP date in the past');

section('webhooks');
$secret = 'whsec_' . base64_encode(str_repeat("\x07", 32));
$other = 'whsec_' . base64_encode(str_repeat("\x09", 32));
$body = '{"id":"evt_1","type":"payment.completed","timestamp":"2026-11-27T12:00:00Z","data":{"amount_minor":15050}}';
$ts = (string) $now;
$sig = Webhook::sign('evt_1', $ts, $body, $secret);
$h = ['webhook-id' => 'evt_1', 'webhook-timestamp' => $ts, 'webhook-signature' => 'v1,' . $sig];
same('payment.completed', Webhook::verify($body, $h, $secret, 300, $now)['type'], 'verifies');
same(15050, Webhook::verify($body, $h, $secret, 300, $now)['data']['amount_minor'], 'the event is decoded');
// Known vector (Standard Webhooks' own test): secret MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw, id msg_p5jXN8AQM9LWM0D4loKWxJek.
$swSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
$swBody = '{"test": 2432232314}';
same('g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=', Webhook::sign('msg_p5jXN8AQM9LWM0D4loKWxJek', '1614265330', $swBody, $swSecret), 'Standard Webhooks vector');
same(2432232314, Webhook::verify($swBody, ['webhook-id' => 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'webhook-timestamp' => '1614265330',
    'webhook-signature' => 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='], $swSecret, 300, 1614265330)['test'], 'vector verifies');
// Header shapes: Title-Case, arrays (Laravel/Symfony, PSR-7), $_SERVER.
$shapes = [
    ['Webhook-Id' => 'evt_1', 'Webhook-Timestamp' => $ts, 'Webhook-Signature' => 'v1,' . $sig],
    ['webhook-id' => ['evt_1'], 'webhook-timestamp' => [$ts], 'webhook-signature' => ['v1,' . $sig]],
    ['HTTP_WEBHOOK_ID' => 'evt_1', 'HTTP_WEBHOOK_TIMESTAMP' => $ts, 'HTTP_WEBHOOK_SIGNATURE' => 'v1,' . $sig],
];
foreach ($shapes as $i => $shape) {
    same('evt_1', Webhook::verify($body, $shape, $secret, 300, $now)['id'], "header shape $i");
}
// Rotation: any one signature of several may match, in any position.
$rot = $h;
$rot['webhook-signature'] = 'v1,' . Webhook::sign('evt_1', $ts, $body, $other) . ' v1,' . $sig;
same('evt_1', Webhook::verify($body, $rot, $secret, 300, $now)['id'], 'rotation: the second signature matches');
same('evt_1', Webhook::verify($body, $rot, $other, 300, $now)['id'], 'rotation: the first signature matches');
$rot['webhook-signature'] = 'v2,' . $sig . ' v1a,' . $sig;
throws(SignatureVerificationException::class, static fn () => Webhook::verify($body, $rot, $secret, 300, $now), 'only v1 counts');
// Tolerance, both directions.
same('evt_1', Webhook::verify($body, $h, $secret, 300, $now + 300)['id'], '300 s late is accepted');
same('evt_1', Webhook::verify($body, $h, $secret, 300, $now - 300)['id'], '300 s early is accepted');
throws(SignatureVerificationException::class, static fn () => Webhook::verify($body, $h, $secret, 300, $now + 301), 'too old');
throws(SignatureVerificationException::class, static fn () => Webhook::verify($body, $h, $secret, 300, $now - 301), 'too new');
throws(SignatureVerificationException::class, static fn () => Webhook::verify($body, $h, $secret, 10, $now + 11), 'own tolerance');
// Tampering.
throws(SignatureVerificationException::class, static fn () => Webhook::verify(str_replace('15050', '15051', $body), $h, $secret, 300, $now), 'tampered body');
throws(SignatureVerificationException::class, static fn () => Webhook::verify($body . ' ', $h, $secret, 300, $now), 'a byte added');
throws(SignatureVerificationException::class, static fn () => Webhook::verify($body, ['webhook-id' => 'evt_2'] + $h, $secret, 300, $now), 'another id');
$late = $h;
$late['webhook-timestamp'] = (string) ($now + 1);
throws(SignatureVerificationException::class, static fn () => Webhook::verify($body, $late, $secret, 300, $now), 'another timestamp');
$bad = $h;
$bad['webhook-signature'] = 'v1,' . ($sig[0] === 'A' ? 'B' : 'A') . substr($sig, 1);
throws(SignatureVerificationException::class, static fn () => Webhook::verify($body, $bad, $secret, 300, $now), 'tampered signature');
throws(SignatureVerificationException::class, static fn () => Webhook::verify($body, $h, $other, 300, $now), 'another secret');
throws(SignatureVerificationException::class, static fn () => Webhook::verify($body, ['webhook-id' => 'evt_1', 'webhook-timestamp' => $ts], $secret, 300, $now), 'no signature header');
$odd = $h;
$odd['webhook-timestamp'] = $ts . '.5';
throws(SignatureVerificationException::class, static fn () => Webhook::verify($body, $odd, $secret, 300, $now), 'timestamp not an integer');
throws(SignatureVerificationException::class, static fn () => Webhook::verify($body, $h, 'whsec_not base64!', 300, $now), 'bad secret');
$nb = 'not json';
$nh = ['webhook-id' => 'evt_1', 'webhook-timestamp' => $ts, 'webhook-signature' => 'v1,' . Webhook::sign('evt_1', $ts, $nb, $secret)];
throws(SignatureVerificationException::class, static fn () => Webhook::verify($nb, $nh, $secret, 300, $now), 'signed but not JSON');

section('client config');
throws(\InvalidArgumentException::class, static fn () => new Client(['apiKey' => 'pk_nope']), 'a key that is not a secret key');
throws(\InvalidArgumentException::class, static fn () => new Client(['apiKey' => 'sk_sandbox_x', 'maxAttempts' => 0]), 'maxAttempts 0');
throws(\InvalidArgumentException::class, static fn () => new Client(['apiKey' => 'sk_sandbox_x', 'baseUrl' => 'ftp://x']), 'baseUrl scheme');
same('live', (new Client(['apiKey' => 'sk_live_x']))->environment(), 'live key');
same('sandbox', (new Client(['apiKey' => 'sk_sandbox_x']))->environment(), 'sandbox key');
check(preg_match('/^[A-Za-z0-9_.:-]{16,128}$/D', Client::newIdempotencyKey()) === 1, 'generated keys match the contract');
check(Client::newIdempotencyKey() !== Client::newIdempotencyKey(), 'generated keys differ');

section('retries against a scripted server');
$dir = sys_get_temp_dir() . '/takapay-php-test-' . bin2hex(random_bytes(4));
mkdir($dir);
function freePort(): int
{
    $sock = stream_socket_server('tcp://127.0.0.1:0');
    $port = (int) substr(strrchr(stream_socket_get_name($sock, false), ':'), 1);
    fclose($sock);
    return $port;
}
$port = freePort();
$server = proc_open([PHP_BINARY, '-S', "127.0.0.1:$port", __DIR__ . '/fake_api.php'], [1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']],
    $pipes, null, ['TAKAPAY_FAKE_DIR' => $dir]);
register_shutdown_function(static function () use ($server): void {
    if (is_resource($server) && proc_get_status($server)['running']) {
        proc_terminate($server);
    }
});
$fake = static function (array $script) use ($dir): void {
    file_put_contents("$dir/script.json", json_encode($script));
    @unlink("$dir/log.jsonl");
};
$log = static fn (): array => array_map(static fn ($l) => json_decode($l, true), file("$dir/log.jsonl") ?: []);
$sleeps = [];
$client = new Client(['apiKey' => 'sk_sandbox_test', 'baseUrl' => "http://127.0.0.1:$port", 'timeout' => 0.5, 'maxAttempts' => 4,
    'sleep' => static function (float $s) use (&$sleeps): void { $sleeps[] = $s; }]);
for ($i = 0; $i < 50; $i++) { // wait for php -S
    $c = @fsockopen('127.0.0.1', $port, $errno, $errstr, 0.1);
    if ($c) {
        fclose($c);
        break;
    }
    usleep(100000);
}
$created = ['status' => 201, 'body' => ['invoice_id' => '9b2f1c7e-3c1a-4b8e-9f00-000000000001', 'status' => 'PENDING', 'payment_url' => 'http://x/v1/public/checkout/t']];
$envelope = static fn (string $code, bool $retryable) => ['error' => ['code' => $code, 'message' => "a $code", 'retryable' => $retryable, 'correlation_id' => 'abcdefabcdefabcdefabcdef']];

$fake([['status' => 503, 'headers' => ['Retry-After' => '1'], 'body' => $envelope('SERVICE_UNAVAILABLE', true)],
       ['status' => 429, 'headers' => ['Retry-After' => '2'], 'body' => $envelope('RATE_LIMITED', true)], $created]);
$sleeps = [];
$p = $client->payments->create(['amount' => '150.50', 'reference' => 'order-1']);
same('PENDING', $p['status'], '503, 429, then 201');
$reqs = $log();
same(3, count($reqs), 'three attempts');
same(1, count(array_unique(array_map(static fn ($r) => $r['headers']['idempotency-key'] ?? '', $reqs))), 'one Idempotency-Key on every attempt');
check(preg_match('/^[A-Za-z0-9_.:-]{16,128}$/D', $reqs[0]['headers']['idempotency-key'] ?? '') === 1, 'a well-formed generated key');
same([1.0, 2.0], $sleeps, 'Retry-After honoured');
same('{"amount":150.50,"reference":"order-1"}', $reqs[0]['body'], 'the body, amount exact');
check(str_starts_with($reqs[0]['headers']['user-agent'] ?? '', 'takapay-php/' . Client::VERSION), 'User-Agent');
same('Bearer sk_sandbox_test', $reqs[0]['headers']['authorization'] ?? null, 'bearer key');
same(3, $client->lastAttempts(), 'lastAttempts');

$fake([['status' => 503, 'body' => $envelope('SERVICE_UNAVAILABLE', true)], $created]);
$client->payments->create(['amount' => 15050], ['idempotency_key' => 'order-1-create-000001']);
same(['order-1-create-000001', 'order-1-create-000001'], array_map(static fn ($r) => $r['headers']['idempotency-key'], $log()), "the caller's key, on every attempt");

foreach ([[500, 'INTERNAL_ERROR', true], [422, 'VALIDATION_FAILED', false], [404, 'NOT_FOUND', false], [409, 'IDEMPOTENCY_KEY_REUSED', false]] as [$status, $code, $retryable]) {
    $fake([['status' => $status, 'body' => $envelope($code, $retryable)], $created]);
    $e = throws(ApiException::class, static fn () => $client->payments->create(['amount' => '1.00']), "$status is thrown");
    if ($e instanceof ApiException) {
        same($code, $e->errorCode, "$status code");
        same($code, $e->code, "$status ->code");
        same($code, $e->getCode(), "$status getCode()");
        same($status, $e->httpStatus, "$status status");
        same($retryable, $e->retryable, "$status retryable, as the envelope says");
        same('abcdefabcdefabcdefabcdef', $e->correlationId, "$status correlation id");
        same("a $code", $e->getMessage(), "$status message");
        same(1, $e->attempts, "$status not retried");
    }
    same(1, count($log()), "$status: one request");
}

$fake([['status' => 503, 'headers' => ['Retry-After' => '1'], 'body' => $envelope('SERVICE_UNAVAILABLE', true)]]);
$e = throws(ApiException::class, static fn () => $client->payments->create(['amount' => '1.00']), '503 every time');
same(4, $e?->attempts, 'maxAttempts attempts, then the last error');
same(1, $e?->retryAfter, 'its Retry-After');
same(4, count($log()), 'four requests');

$fake([['status' => 429, 'headers' => ['Retry-After' => '3600'], 'body' => $envelope('RATE_LIMITED', true)]]);
$e = throws(ApiException::class, static fn () => $client->payments->create(['amount' => '1.00']), 'Retry-After of an hour');
same(1, $e?->attempts, 'not waited for');

$fake([['status' => 502, 'body' => 'Bad Gateway']]);
$e = throws(ApiException::class, static fn () => $client->paymentIntents->get('x'), 'not the envelope');
same('HTTP_502', $e?->errorCode, 'HTTP_<status>');

$fake([['status' => 201, 'sleep_ms' => 700, 'body' => $created['body']], $created]);
$sleeps = [];
$p = $client->payments->create(['amount' => '2.00']);
same('PENDING', $p['status'], 'a timed-out attempt is retried');
$reqs = $log(); // two, unless a loaded machine made the second attempt time out too
check(count($reqs) >= 2, 'the timed-out attempt was retried');
same(1, count(array_unique(array_map(static fn ($r) => $r['headers']['idempotency-key'], $reqs))), 'with the same key');
same(count($reqs) - 1, count($sleeps), 'a backoff before each retry');

$fake([['status' => 201, 'sleep_ms' => 700, 'body' => $created['body']]]);
$e = throws(ConnectionException::class, static fn () => $client->payments->create(['amount' => '2.00'], ['max_attempts' => 2]), 'timeouts every time');
same('TIMEOUT', $e?->errorCode, 'TIMEOUT');
same(0, $e?->httpStatus, 'no status');
same(2, $e?->attempts, 'per-call max_attempts');

$fake([['status' => 200, 'body' => ['items' => [], 'next_cursor' => null]]]);
$client->paymentIntents->list(['reference' => 'a b&c', 'status' => null, 'limit' => 5]);
same('/v1/payment-intents?reference=a%20b%26c&limit=5', $log()[0]['uri'], 'query encoded, nulls dropped');
same('', $log()[0]['body'], 'a GET has no body');
same(null, $log()[0]['headers']['idempotency-key'] ?? null, 'a GET has no key');

$fake([['status' => 200, 'body' => ['id' => 'i']]]);
$client->paymentIntents->cancel('5f0c');
same(['POST', '/v1/payment-intents/5f0c/cancel', ''], [$log()[0]['method'], $log()[0]['uri'], $log()[0]['body']], 'cancel: no body');
same(null, $log()[0]['headers']['content-type'] ?? null, 'cancel: no Content-Type');

$ws = new Client(['apiKey' => 'sk_sandbox_test', 'baseUrl' => "http://127.0.0.1:$port/", 'workspaceId' => 'ws-1']);
$fake([['status' => 200, 'body' => ['id' => 'd']]]);
$ws->documents->invoices->issue('doc-1', 3);
same('/v1/workspaces/ws-1/documents/invoices/doc-1/issue?environment=sandbox', $log()[0]['uri'], 'documents path');
same('{"expected_version":3}', $log()[0]['body'], 'expected_version');
$fake([['status' => 200, 'body' => ['id' => 'd']]]);
$ws->documents->customers->edit('doc-2', ['email' => null]);
same(['PATCH', '{"email":null}'], [$log()[0]['method'], $log()[0]['body']], 'edit: PATCH, null kept');
check(isset($log()[0]['headers']['idempotency-key']), 'edit: a key');

$noWs = new Client(['apiKey' => 'sk_sandbox_test', 'baseUrl' => "http://127.0.0.1:$port"]);
$fake([['status' => 200, 'body' => ['workspace_id' => 'ws-9', 'merchant_name' => 'm', 'environment' => 'sandbox', 'key_id' => 'k', 'scopes' => [], 'release' => ['payments' => 'sandbox-only']]],
       ['status' => 200, 'body' => ['items' => [['id' => 'c1']], 'next_cursor' => null, 'delivery' => [], 'activity' => []]]]);
same('c1', $noWs->documents->customers->get('c1')['id'], 'get returns the record');
same(['/v1/merchant/context', '/v1/workspaces/ws-9/documents/customers/c1?environment=sandbox'], array_column($log(), 'uri'), 'the workspace read from merchant context');

section('refunds');
$refund = ['id' => 'r-1', 'object' => 'refund', 'status' => 'REQUESTED', 'amount_minor' => 20000, 'version' => 1];
$fake([['status' => 503, 'body' => $envelope('SERVICE_UNAVAILABLE', true)], ['status' => 201, 'body' => $refund]]);
$r = $ws->refunds->create(['payment_id' => 'p-1', 'amount_minor' => 20000, 'reason' => 'goods_returned', 'note' => 'শাড়ি ফেরত'],
    ['idempotency_key' => 'order-2001-refund-0001']);
same('r-1', $r['id'], 'create answers the refund');
$reqs = $log();
same(['POST', '/v1/workspaces/ws-1/refunds?environment=sandbox'], [$reqs[0]['method'], $reqs[0]['uri']], 'create: path and environment');
same('{"payment_id":"p-1","amount_minor":20000,"reason":"goods_returned","note":"শাড়ি ফেরত"}', $reqs[0]['body'], 'create: the body as given');
same(['order-2001-refund-0001', 'order-2001-refund-0001'], array_column(array_column($reqs, 'headers'), 'idempotency-key'), 'create: one key on every attempt');
$fake([['status' => 201, 'body' => $refund]]);
$ws->refunds->create(['payment_id' => 'p-1', 'reason' => 'other']);
check(preg_match('/^[A-Za-z0-9_.:-]{16,128}$/D', $log()[0]['headers']['idempotency-key'] ?? '') === 1, 'create: a generated key');
throws(\InvalidArgumentException::class, static fn () => $ws->refunds->create(['payment_id' => 'p-1', 'amount_minor' => 200.0]), 'a float amount_minor');
foreach ([['review', [], '{}'], ['approve', ['expected_version' => 2], '{"expected_version":2}'], ['cancel', ['note' => 'kept'], '{"note":"kept"}'],
          ['reject', ['reason' => 'Not ours'], '{"reason":"Not ours"}'],
          ['reportReturned', ['provider_reference' => 'TRX9BC4D2E1', 'expected_version' => 3], '{"provider_reference":"TRX9BC4D2E1","expected_version":3}']] as [$m, $body, $json]) {
    $fake([['status' => 200, 'body' => $refund]]);
    $ws->refunds->$m('r-1', $body);
    $action = $m === 'reportReturned' ? 'report-returned' : $m;
    same(['POST', "/v1/workspaces/ws-1/refunds/r-1/$action?environment=sandbox", $json], [$log()[0]['method'], $log()[0]['uri'], $log()[0]['body']], "$m: path and body");
    same(null, $log()[0]['headers']['idempotency-key'] ?? null, "$m: no key (a repeat answers the refund as it is)");
}
$fake([['status' => 409, 'body' => $envelope('STATE_CONFLICT', false)]]);
$e = throws(ApiException::class, static fn () => $ws->refunds->cancel('r-1'), 'a transition from the wrong status');
same('STATE_CONFLICT', $e?->errorCode, '409 STATE_CONFLICT, typed');
$fake([['status' => 200, 'body' => $refund]]);
$ws->refunds->get('r-1');
same(['GET', '/v1/workspaces/ws-1/refunds/r-1?environment=sandbox'], [$log()[0]['method'], $log()[0]['uri']], 'get');
$fake([['status' => 200, 'body' => ['items' => [['id' => 'a'], ['id' => 'b']], 'next_cursor' => 'c-1']],
       ['status' => 200, 'body' => ['items' => [], 'next_cursor' => 'c-2']],
       ['status' => 200, 'body' => ['items' => [['id' => 'c']]]]]);
same(['a', 'b', 'c'], array_column(iterator_to_array($ws->refunds->all(['status' => 'APPROVED', 'overdue' => true]), false), 'id'), 'all: every page, an empty one too');
same(['/v1/workspaces/ws-1/refunds?environment=sandbox&status=APPROVED&overdue=true',
      '/v1/workspaces/ws-1/refunds?environment=sandbox&status=APPROVED&overdue=true&cursor=c-1',
      '/v1/workspaces/ws-1/refunds?environment=sandbox&status=APPROVED&overdue=true&cursor=c-2'], array_column($log(), 'uri'), 'all: the cursors');
same(true, \Takapay\EventType::isRefund('refund.in_review'), 'refund.in_review is a refund event');
same(false, \Takapay\EventType::isRefund('payment.completed'), 'payment.completed is not');
same(6, count(\Takapay\EventType::REFUND), 'six refund events');

proc_terminate($server);
proc_close($server);
$port = freePort(); // nobody listens there
array_map('unlink', glob("$dir/*"));
rmdir($dir);

$stopped = new Client(['apiKey' => 'sk_sandbox_test', 'baseUrl' => "http://127.0.0.1:$port", 'maxAttempts' => 3, 'sleep' => static fn (float $s) => null]);
$e = throws(ConnectionException::class, static fn () => $stopped->payments->create(['amount' => '1.00']), 'connection refused');
same('CONNECTION_ERROR', $e?->errorCode, 'CONNECTION_ERROR');
same(3, $e?->attempts, 'retried');

echo $failures === 0 ? "ok: $passes checks\n" : "FAILED: $failures of " . ($passes + $failures) . " checks\n";
exit($failures === 0 ? 0 : 1);
