// The one-page site tests/e2e/fences.spec.ts builds: the bumplab
// markdown-it plugin (BUMPLAB_PLUGIN_DIR: the package's folder, the
// repository's web/cli/ in the test), Bump Lab served under /bump-lab/.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const { default: bumplab } = await import(pathToFileURL(join(process.env.BUMPLAB_PLUGIN_DIR, "markdown-it.mjs")).href);

export default {
  title: "Bumping down, live",
  // VitePress renders Markdown as Vue templates, which drop <script> tags: the page's head loads bump-lab.js.
  head: [["script", { type: "module", src: "/bump-lab/bump-lab.js" }]],
  markdown: {
    config(md) {
      md.use(bumplab, { base: "/bump-lab/", script: false });
    },
  },
  vue: { template: { compilerOptions: { isCustomElement: (tag) => tag === "bump-lab" } } },
};
