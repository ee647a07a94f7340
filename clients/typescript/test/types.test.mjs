import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

test("the shipped .d.ts type-check a consumer (package self-reference)", () => {
  const tsc = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
  const r = spawnSync(process.execPath, [tsc, "-p", fileURLToPath(new URL("./consumer/tsconfig.json", import.meta.url))], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
