// tsc emits no file for a .d.ts source: the generated schema types are copied next to the
// emitted declarations that import them.
import { copyFileSync } from "node:fs";
copyFileSync(new URL("../src/schema.d.ts", import.meta.url), new URL("../dist/schema.d.ts", import.meta.url));
