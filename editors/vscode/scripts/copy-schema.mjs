// Ships the project's schema inside the extension (for `jsonValidation`).
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
const here = dirname(fileURLToPath(import.meta.url));
const dest = join(here, "..", "schemas");
mkdirSync(dest, { recursive: true });
// The repository's root: this folder's grandparent, or PERMISSION_LSP_ROOT for a copy built elsewhere.
const root = process.env.PERMISSION_LSP_ROOT ?? join(here, "..", "..", "..");
copyFileSync(join(root, "schemas", "pi-permission-system.schema.json"), join(dest, "pi-permission-system.schema.json"));
