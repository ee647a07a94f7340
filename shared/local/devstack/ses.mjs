// Runs aws-ses-v2-local (an SES v1/v2 API server that keeps what it is sent in memory, with a
// web view at / and the received mail as JSON at GET /store) on 127.0.0.1 for make dev and the
// integration tests; shared/local/devstack starts it (StartSES).
//
// Usage: node shared/local/devstack/ses.mjs [port]   (0 = any)
//
// The package's own cli.js listens on :: by default and, when the port is taken, exits with
// "Server does not have an address" (Express 5 hands the listen error to the callback, which
// ignores it). This script binds loopback only and prints the real listen error (EADDRINUSE),
// which devstack's port retry looks for. "aws-ses-v2-local" resolves from the repository's
// node_modules (Node walks up from this file's directory).
import http from "node:http";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let server;
try {
  server = require("aws-ses-v2-local").default;
} catch (err) {
  console.error(`ses.mjs: cannot load aws-ses-v2-local (run npm ci): ${err}`);
  process.exit(1);
}

const requested = Number(process.argv[2] ?? 0);
if (!Number.isInteger(requested) || requested < 0 || requested > 65535) {
  console.error(`ses.mjs: invalid port ${process.argv[2]}`);
  process.exit(2);
}

// Remember the listen error Express swallows.
let listenError;
const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...args) {
  this.once("error", (err) => { listenError = err; });
  return listen.apply(this, args);
};

const s = await server({ host: "127.0.0.1", port: requested });
const addr = s.address();
if (addr === null || typeof addr === "string") {
  console.error(`ses.mjs: listen on 127.0.0.1:${requested}: ${listenError?.code ?? ""} ${listenError?.message ?? "no address"}`);
  process.exit(3);
}
console.log(`aws-ses-v2-local listening at http://127.0.0.1:${addr.port}`);

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(0), 1000).unref();
  s.close(() => process.exit(0));
  s.closeAllConnections?.();
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
