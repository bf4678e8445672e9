// Ships the project's schema inside the extension (for `jsonValidation`).
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
const here = dirname(fileURLToPath(import.meta.url));
const dest = join(here, "..", "schemas");
mkdirSync(dest, { recursive: true });
copyFileSync(join(here, "..", "..", "..", "schemas", "pi-permission-system.schema.json"), join(dest, "pi-permission-system.schema.json"));
