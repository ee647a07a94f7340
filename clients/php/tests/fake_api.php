<?php

// A scripted stand-in for the API, run by tests/run.php under `php -S`: each request takes the
// next answer from the script file (TAKAPAY_FAKE_DIR/script.json) and is logged to log.jsonl.

declare(strict_types=1);

$dir = getenv('TAKAPAY_FAKE_DIR');
$script = json_decode((string) file_get_contents("$dir/script.json"), true);
$n = count(file_exists("$dir/log.jsonl") ? file("$dir/log.jsonl") : []);
$headers = array_change_key_case(getallheaders(), CASE_LOWER);
file_put_contents("$dir/log.jsonl", json_encode([
    'method' => $_SERVER['REQUEST_METHOD'],
    'uri' => $_SERVER['REQUEST_URI'],
    'headers' => $headers,
    'body' => file_get_contents('php://input'),
]) . "\n", FILE_APPEND);
$answer = $script[min($n, count($script) - 1)];
if (isset($answer['sleep_ms'])) {
    usleep($answer['sleep_ms'] * 1000);
}
http_response_code($answer['status']);
header('Content-Type: application/json');
header('X-Correlation-Id: 0123456789abcdef01234567');
foreach ($answer['headers'] ?? [] as $k => $v) {
    header("$k: $v");
}
echo json_encode($answer['body']);
