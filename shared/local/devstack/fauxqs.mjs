// Runs fauxqs (an SQS wire-protocol emulator) on 127.0.0.1 for make dev and
// the integration tests; shared/local/devstack starts it.
//
// Usage: node shared/local/devstack/fauxqs.mjs [port]   (or FAUXQS_PORT=port; 0 = any)
//
// The fauxqs CLI always binds 0.0.0.0 and builds queue URLs like
// http://sqs.us-east-1.localhost:PORT/..., so this script binds loopback only
// and makes every QueueUrl http://127.0.0.1:PORT/000000000000/<name>, which
// is the endpoint the Go SDK is configured with. "fauxqs" resolves from the
// repository's node_modules (Node walks up from this file's directory).
import { buildApp } from "fauxqs";

const appURL = import.meta.resolve("fauxqs"); // .../node_modules/fauxqs/dist/app.js
let SqsStore;
try {
  ({ SqsStore } = await import(new URL("./sqs/sqsStore.js", appURL).href));
} catch (err) {
  console.error(`fauxqs.mjs: cannot load SqsStore next to ${appURL} (fauxqs version changed?): ${err}`);
  process.exit(1);
}

const ACCOUNT_ID = "000000000000";
const requested = Number(process.argv[2] ?? process.env.FAUXQS_PORT ?? 0);
if (!Number.isInteger(requested) || requested < 0 || requested > 65535) {
  console.error(`fauxqs.mjs: invalid port ${process.argv[2] ?? process.env.FAUXQS_PORT}`);
  process.exit(2);
}

let port = requested;
const sqsStore = new SqsStore();
sqsStore.buildQueueUrl = (queueName) => `http://127.0.0.1:${port}/${ACCOUNT_ID}/${queueName}`;

const app = buildApp({ logger: false, stores: { sqsStore } });
try {
  await app.listen({ port: requested, host: "127.0.0.1" });
} catch (err) {
  console.error(`fauxqs.mjs: listen on 127.0.0.1:${requested}: ${err.code ?? ""} ${err.message}`);
  process.exit(3);
}
port = app.server.address().port;
console.log(`fauxqs listening at http://127.0.0.1:${port}`);

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(0), 1000).unref();
  app.close().finally(() => process.exit(0));
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
