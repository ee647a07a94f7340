<?php

// The client's journey against a local stack (shared/local/clienttest runs it: see
// shared/local/clienttest/php_test.go). It uses only the client's public API, plus plain HTTP
// to the harness's control server, which plays the payer and the platform's workers.
// One line per step ("ok 1 create …"); any failure exits non-zero.

declare(strict_types=1);

require __DIR__ . '/../src/autoload.php';

use Takapay\Client;
use Takapay\EventType;
use Takapay\Exception\ApiException;
use Takapay\Exception\SignatureVerificationException;
use Takapay\Webhook;

function env(string $name): string
{
    $v = getenv($name);
    if ($v === false || $v === '') {
        fail("$name is not set");
    }
    return $v;
}

function fail(string $why): never
{
    fwrite(STDERR, "FAIL $why\n");
    exit(1);
}

function expect(bool $ok, string $why): void
{
    if (!$ok) {
        fail($why);
    }
}

/** Plain HTTP to the control server. @return array<mixed> */
function control(string $method, string $path, ?array $body = null): array
{
    $ch = curl_init(env('TAKAPAY_CONTROL_URL') . $path);
    curl_setopt_array($ch, [
        CURLOPT_CUSTOMREQUEST => $method,
        CURLOPT_RETURNTRANSFER => true,
        CURLOPT_TIMEOUT => 60,
        CURLOPT_HTTPHEADER => ['Content-Type: application/json'],
    ]);
    if ($body !== null) {
        curl_setopt($ch, CURLOPT_POSTFIELDS, json_encode($body));
    }
    $out = curl_exec($ch);
    $status = curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
    if (!is_string($out) || $status !== 200) {
        fail("control $method $path: $status " . curl_error($ch) . ' ' . var_export($out, true));
    }
    return json_decode($out, true, 512, JSON_THROW_ON_ERROR);
}

/** @param callable(): mixed $f */
function rejected(callable $f): ?SignatureVerificationException
{
    try {
        $f();
    } catch (SignatureVerificationException $e) {
        return $e;
    }
    return null;
}

$secret = env('TAKAPAY_WEBHOOK_SECRET');
$takapay = new Client([
    'apiKey' => env('TAKAPAY_API_KEY'),
    'baseUrl' => env('TAKAPAY_BASE_URL'),
    'appInfo' => 'journey/1',
]);
$run = bin2hex(random_bytes(4));

// 1. A hosted payment of 150.50 taka, with a webhook.
$reference = "php-order-$run";
$payment = $takapay->payments->create([
    'amount' => '150.50',
    'reference' => $reference,
    'webhook_url' => env('TAKAPAY_WEBHOOK_URL'),
]);
expect($payment['status'] === 'PENDING', 'create: status ' . $payment['status']);
$id = $payment['invoice_id'];
echo "ok 1 create $id\n";

// 2. The payer approves it on the sandbox checkout.
control('POST', '/approve', ['payment_url' => $payment['payment_url']]);
echo "ok 2 approve\n";

// 3. Verify with the order's values: COMPLETED and a match; a wrong amount is a mismatch, not an exception.
$v = $takapay->payments->verify($id, ['amount' => '150.50', 'currency' => 'BDT', 'reference' => $reference]);
expect($v->status === 'COMPLETED' && $v->match === true && $v->mismatches === [] && $v->shouldDeliver(),
    'verify: ' . json_encode($v->raw));
expect($v->amountMinor === 15050 && $v->amount() === '150.50', 'verify: amount ' . $v->amountMinor);
$wrong = $takapay->payments->verify($id, ['amount' => 15051, 'currency' => 'BDT', 'reference' => $reference]);
expect($wrong->match === false && $wrong->mismatches === ['amount_minor'] && !$wrong->shouldDeliver(),
    'verify with a wrong amount: ' . json_encode($wrong->raw));
echo "ok 3 verify {$v->status} match=true; wrong amount match=false mismatches=" . implode(',', $wrong->mismatches) . "\n";

// 4. The webhook, delivered to the receiver, verified in one call; tampering and age rejected.
control('POST', '/drain');
$delivery = null;
foreach (control('GET', '/deliveries') as $d) {
    if (str_contains($d['body'], $id)) {
        $delivery = $d;
    }
}
expect($delivery !== null, "no delivery for $id");
$headers = ['webhook-id' => $delivery['id'], 'webhook-timestamp' => $delivery['timestamp'], 'webhook-signature' => $delivery['signature']];
$event = Webhook::verify($delivery['body'], $headers, $secret);
expect($event['type'] === 'payment.completed' && $event['data']['invoice_id'] === $id && $event['data']['amount_minor'] === 15050,
    'webhook event: ' . $delivery['body']);
$tampered = rejected(static fn () => Webhook::verify(str_replace('15050', '15', $delivery['body']), $headers, $secret));
expect($tampered !== null, 'a tampered body was accepted');
$badSig = $headers;
$badSig['webhook-signature'] = 'v1,' . base64_encode(random_bytes(32));
expect(rejected(static fn () => Webhook::verify($delivery['body'], $badSig, $secret)) !== null, 'a forged signature was accepted');
$old = (string) (time() - 600); // correctly signed, ten minutes old: a replay
$oldHeaders = ['webhook-id' => $delivery['id'], 'webhook-timestamp' => $old,
    'webhook-signature' => 'v1,' . Webhook::sign($delivery['id'], $old, $delivery['body'], $secret)];
$tooOld = rejected(static fn () => Webhook::verify($delivery['body'], $oldHeaders, $secret));
expect($tooOld !== null, 'an old delivery was accepted');
echo "ok 4 webhook {$event['type']} {$delivery['id']}; tampered rejected ({$tampered->getMessage()}); old rejected ({$tooOld->getMessage()})\n";

// 5. DynamoDB stops for 2.5 s: the create retries (1 s per attempt, up to 6) with one
// Idempotency-Key, succeeds, and makes exactly one payment.
$retryRef = "php-retry-$run";
control('POST', '/pause-dynamodb', ['ms' => 2500]);
$started = microtime(true);
$p = $takapay->payments->create(['amount' => '99.99', 'reference' => $retryRef], ['timeout' => 1, 'max_attempts' => 6]);
$attempts = $takapay->lastAttempts(); // before the list below
$key = $takapay->lastResponse()?->idempotencyKey;
$took = microtime(true) - $started;
expect($attempts >= 2, "the create took $attempts attempt(s): DynamoDB was not paused?");
$found = $takapay->paymentIntents->list(['reference' => $retryRef]);
expect(count($found['items']) === 1 && $found['items'][0]['id'] === $p['invoice_id'],
    'intents with reference ' . $retryRef . ': ' . json_encode(array_column($found['items'], 'id')));
printf("ok 5 retry %s attempts=%d in %.1fs key=%s; exactly one payment\n", $p['invoice_id'], $attempts, $took,
    $key);

// 6. A 4xx is a typed error and is not retried. (A malformed amount never leaves the client.)
try {
    $takapay->payments->create(['amount' => '150.505']);
    fail('a malformed amount was sent');
} catch (\InvalidArgumentException) {
}
$unknown = sprintf('%s-%s-4%s-8%s-%s', bin2hex(random_bytes(4)), bin2hex(random_bytes(2)), substr(bin2hex(random_bytes(2)), 1),
    substr(bin2hex(random_bytes(2)), 1), bin2hex(random_bytes(6)));
try {
    $takapay->payments->verify($unknown);
    fail("verify of an unknown payment $unknown succeeded");
} catch (ApiException $e) {
    expect($e->errorCode === 'NOT_FOUND' && $e->httpStatus === 404 && $e->retryable === false, "verify unknown: {$e->errorCode} {$e->httpStatus}");
    expect(is_string($e->correlationId) && preg_match('/^[a-f0-9]{24}$/D', $e->correlationId) === 1, 'correlation id ' . var_export($e->correlationId, true));
    expect($e->attempts === 1 && $takapay->lastAttempts() === 1, "a 404 was retried ({$e->attempts} attempts)");
    echo "ok 6 error {$e->errorCode} status={$e->httpStatus} retryable=false correlation_id={$e->correlationId} attempts={$e->attempts} unknown=$unknown\n";
}

// 7. An intent (create, get, cancel) and documents (a customer, an invoice issued, read back).
$intent = $takapay->paymentIntents->create(['amount' => 7525, 'reference' => "php-intent-$run"]);
expect($intent['status'] === 'PENDING' && $intent['amount_minor'] === 7525, 'intent create: ' . json_encode($intent));
$got = $takapay->paymentIntents->get($intent['id']);
expect($got['id'] === $intent['id'] && $got['reference'] === "php-intent-$run", 'intent get');
$cancelled = $takapay->paymentIntents->cancel($intent['id']);
expect($cancelled['status'] === 'CANCELLED', 'intent cancel: ' . $cancelled['status']);
$customer = $takapay->documents->customers->create(['reference' => "php-cust-$run", 'name' => 'Rahim Uddin', 'email' => 'rahim@example.com.bd']);
$invoice = $takapay->documents->invoices->create([
    'reference' => "PHP-INV-$run",
    'customer_id' => $customer['id'],
    'items' => [['title' => 'Saree', 'quantity' => 2, 'unit_amount_minor' => 50000], ['title' => 'Blouse', 'quantity' => 1, 'unit_amount_minor' => 25050]],
    'tax_minor' => 1000,
]);
expect($invoice['status'] === 'draft' && $invoice['amount_minor'] === 126050, 'invoice create: ' . json_encode($invoice));
$edited = $takapay->documents->invoices->edit($invoice['id'], ['notes' => 'Thank you'], $invoice['version']);
$issued = $takapay->documents->invoices->issue($invoice['id'], $edited['version']);
$read = $takapay->documents->invoices->get($invoice['id']);
expect($issued['status'] === 'issued' && $read['status'] === 'issued' && $read['version'] === $edited['version'] + 1, 'invoice issue/get: ' . json_encode($read));
echo "ok 7 intent {$intent['id']} CANCELLED; customer {$customer['id']}; invoice {$invoice['id']} issued amount_minor={$read['amount_minor']} version={$read['version']}\n";

// 8. The rest of the surface: an intent priced from the issued invoice (verified without
// expected), a payment link published and archived, a search of customers.
$linked = $takapay->paymentIntents->create(['document_id' => $invoice['id']]);
expect($linked['amount_minor'] === 126050 && $linked['source']['kind'] === 'invoices' && $linked['reference'] === "PHP-INV-$run",
    'linked intent: ' . json_encode($linked));
$lv = $takapay->paymentIntents->verify($linked['id']);
expect($lv->status === 'PENDING' && $lv->match === null && $lv->raw['intent_id'] === $linked['id'], 'verify-transaction: ' . json_encode($lv->raw));
$link = $takapay->documents->paymentLinks->create(['reference' => "PHP-LINK-$run", 'description' => 'Club T-shirt', 'amount_minor' => 65000, 'max_quantity' => 3]);
$active = $takapay->documents->paymentLinks->publish($link['id']);
$archived = $takapay->documents->paymentLinks->archive($link['id'], $active['version']);
expect($link['status'] === 'draft' && $active['status'] === 'active' && $archived['status'] === 'archived', 'payment link lifecycle');
$found = $takapay->documents->customers->list(['q' => "php-cust-$run", 'limit' => 10]);
expect(count($found['items']) === 1 && $found['items'][0]['id'] === $customer['id'], 'customers q: ' . json_encode(array_column($found['items'], 'id')));
$all = iterator_to_array($takapay->paymentIntents->all(['reference' => "PHP-INV-$run", 'limit' => 1]), false);
expect(count($all) === 1 && $all[0]['id'] === $linked['id'], 'intents of the invoice, paged');
echo "ok 8 linked intent {$linked['id']} amount_minor={$linked['amount_minor']} {$lv->status}; payment link {$link['id']} draft→active→archived; customer found by q\n";

// 9. Refunds of step 1's COMPLETED payment (15050 paisa): the create and its replay under one
// key, the money rule, every transition, paging, and the refund webhooks verified.
/** @param callable(): mixed $f */
function conflict(callable $f, string $code, string $what): void
{
    try {
        $f();
    } catch (ApiException $e) {
        expect($e->httpStatus === 409 && $e->errorCode === $code, "$what: 409 $code, got {$e->httpStatus} {$e->errorCode}");
        return;
    }
    fail("$what: accepted");
}
$asked = ['payment_id' => $id, 'amount_minor' => 5000, 'reason' => 'goods_returned', 'note' => 'একটি শাড়ি ফেরত', 'reference' => "php-rma-$run"];
$refund = $takapay->refunds->create($asked, ['idempotency_key' => "php-refund-$run-0001"]);
expect($refund['status'] === 'REQUESTED' && $refund['amount_minor'] === 5000 && $refund['requested_by'] === 'merchant'
    && $refund['note'] === 'একটি শাড়ি ফেরত', 'refund create: ' . json_encode($refund));
$replay = $takapay->refunds->create($asked, ['idempotency_key' => "php-refund-$run-0001"]);
expect($replay['id'] === $refund['id'] && $takapay->lastResponse()?->replayed() === true, 'refund replay: ' . json_encode($replay));
conflict(static fn () => $takapay->refunds->create(['payment_id' => $id, 'amount_minor' => 15000, 'reason' => 'other']), 'STATE_CONFLICT', 'a refund over what is refundable');
$refund = $takapay->refunds->review($refund['id'], ['note' => 'Parcel checked']);
$stale = $refund['version'] - 1;
conflict(static fn () => $takapay->refunds->approve($refund['id'], ['expected_version' => $stale]), 'VERSION_CONFLICT', 'approve with a stale version');
$refund = $takapay->refunds->approve($refund['id'], ['expected_version' => $refund['version']]);
expect($refund['status'] === 'APPROVED' && isset($refund['due_by']), 'approve: ' . json_encode($refund));
$refund = $takapay->refunds->reportReturned($refund['id'], ['provider_reference' => "TRX$run"]);
$again = $takapay->refunds->reportReturned($refund['id'], ['provider_reference' => "TRX$run"]);
expect($refund['status'] === 'RETURNED' && $again['version'] === $refund['version'], 'report returned: ' . json_encode($again));
conflict(static fn () => $takapay->refunds->cancel($refund['id']), 'STATE_CONFLICT', 'cancel a returned refund');
$rest = $takapay->refunds->create(['payment_id' => $id, 'reason' => 'requested_by_customer']);
$rejected = $takapay->refunds->reject($rest['id'], ['reason' => 'Delivered and signed for']);
expect($rest['amount_minor'] === 10050 && $rejected['status'] === 'REJECTED' && $rejected['rejection_reason'] === 'Delivered and signed for',
    'the rest, rejected: ' . json_encode($rejected));
$listed = array_column(iterator_to_array($takapay->refunds->all(['payment_id' => $id, 'limit' => 1]), false), 'status');
expect($listed === ['REJECTED', 'RETURNED'], 'the payment\'s refunds, one a page: ' . json_encode($listed));
$read = $takapay->refunds->get($refund['id']);
expect(array_column($read['history'], 'status') === ['REQUESTED', 'IN_REVIEW', 'APPROVED', 'RETURNED'], 'history: ' . json_encode($read['history']));
control('POST', '/drain');
$types = [];
foreach (control('GET', '/deliveries') as $d) {
    if (!str_contains($d['body'], $refund['id'])) {
        continue;
    }
    $ev = Webhook::verify($d['body'], ['webhook-id' => $d['id'], 'webhook-timestamp' => $d['timestamp'], 'webhook-signature' => $d['signature']], $secret);
    expect(EventType::isRefund($ev['type']) && $ev['data']['id'] === $refund['id'], 'a refund event: ' . $d['body']);
    $types[$ev['type']] = true;
}
foreach ([EventType::REFUND_REQUESTED, EventType::REFUND_IN_REVIEW, EventType::REFUND_APPROVED, EventType::REFUND_RETURNED] as $t) {
    expect(isset($types[$t]), "$t delivered (got " . implode(',', array_keys($types)) . ')');
}
echo "ok 9 refund {$refund['id']} REQUESTED IN_REVIEW APPROVED RETURNED; over-refund 409; rest {$rest['id']} REJECTED; listed " . implode(',', $listed)
    . '; webhooks ' . implode(',', array_keys($types)) . "\n";
