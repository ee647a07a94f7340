<?php

declare(strict_types=1);

// A PSR-4 autoloader for Takapay\ → src/, for plain PHP and WordPress:
//     require __DIR__ . '/takapay-php/src/autoload.php';
// Composer users (Laravel) need not require it: composer.json maps the same namespace.
spl_autoload_register(static function (string $class): void {
    $prefix = 'Takapay\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $file = __DIR__ . '/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    if (is_file($file)) {
        require $file;
    }
});
