// Adds the share-link corpus entries that web/src/share/corpus.test.ts lists
// but tests/share-corpus/v1.json lacks. Existing entries are links v1 already
// wrote: they are never rewritten (a test that changed them would prove nothing).
// Usage: node scripts/share-corpus.mjs
import { spawnSync } from "node:child_process";

const run = spawnSync("npx", ["vitest", "run", "web/src/share/corpus.test.ts"], {
  stdio: "inherit",
  env: { ...process.env, BUMPLAB_WRITE_CORPUS: "1" },
});
process.exit(run.status ?? 1);
