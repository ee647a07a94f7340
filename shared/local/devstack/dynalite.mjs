// Runs dynalite (a DynamoDB wire-protocol server on LevelDB) for make dev and the integration
// tests; shared/local/devstack starts it with dynalite's own command-line options.
//
// Usage: node shared/local/devstack/dynalite.mjs --host 127.0.0.1 --port N [--path DIR] [...]
//
// Why not dynalite's cli.js: its request handler does `req.on('error', err => { throw err })`,
// so a client that gives up on a request while sending it (the AWS SDK's per-attempt timeout
// on a loaded machine) raises ECONNRESET "aborted" as an uncaught exception and kills the
// whole server; every later request of every test then fails. Real DynamoDB drops such a
// request and serves the rest. This launcher does the same: an aborted incoming request is
// logged and ignored (its body never arrived, so dynalite never started its operation);
// any other uncaught exception still ends the process.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const dynalite = require("dynalite");
// dynalite's own argument parser, resolved from dynalite's folder as its cli.js does.
const minimist = createRequire(require.resolve("dynalite"))("minimist");
const argv = minimist(process.argv.slice(2));

process.on("uncaughtException", (err) => {
  if (err && err.code === "ECONNRESET" && err.message === "aborted") {
    console.error("dynalite.mjs: a client aborted its request; ignored");
    return;
  }
  console.error(err);
  process.exit(1);
});

const server = dynalite(argv).listen(argv.port ?? 4567, argv.host ?? undefined, () => {
  const address = server.address();
  console.log("Dynalite listening at: http://%s:%s", argv.host ?? "localhost", address.port);
});
