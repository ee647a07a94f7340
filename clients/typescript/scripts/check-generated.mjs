// Regenerates the contract's types into a temporary file and fails if src/schema.d.ts differs
// (run `npm run generate` after changing shared/openapi/openapi.yaml, and commit the result).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "takapay-schema-"));
try {
  const out = join(dir, "schema.d.ts");
  execFileSync(process.execPath, [join(root, "node_modules/openapi-typescript/bin/cli.js"), "../../shared/openapi/openapi.yaml", "-o", out],
    { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  if (readFileSync(out, "utf8") !== readFileSync(join(root, "src/schema.d.ts"), "utf8")) {
    console.error("src/schema.d.ts is stale: run `npm run generate` in clients/typescript and commit it");
    process.exit(1);
  }
  console.log("src/schema.d.ts matches shared/openapi/openapi.yaml");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
