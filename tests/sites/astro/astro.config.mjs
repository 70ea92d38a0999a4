// The one-page site tests/e2e/fences.spec.ts builds: the bumplab remark
// plugin (BUMPLAB_PLUGIN_DIR: the package's folder, the repository's
// web/cli/ in the test), Bump Lab served under /bump-lab/.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const { default: bumplab } = await import(pathToFileURL(join(process.env.BUMPLAB_PLUGIN_DIR, "remark.mjs")).href);

export default {
  markdown: { remarkPlugins: [[bumplab, { base: "/bump-lab/" }]] },
};
