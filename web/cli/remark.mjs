// A remark plugin (Astro, and unified pipelines that keep raw HTML): each
// ```bumplab fence becomes a live Bump Lab figure, the <bump-lab> element
// with its fallback link and reserved height (fence.mjs), as an `html` node.
//
//   // astro.config.mjs
//   import bumplab from "bumplab/remark";
//   export default { markdown: { remarkPlugins: [[bumplab, { base: "/bump-lab/" }]] } };
//
// Options as the markdown-it plugin's (markdown-it.mjs): `base`, `script`
// (the page's first fence writes the <script> that loads bump-lab.js), and
// `onError`; each bad fence is also a message on the file (vfile), which the
// host reports with its position.
import { errorLine, isBumplab, renderFence, siteBase } from "./fence.mjs";

/** Calls `f(node, index, parent)` on every node under `tree` that passes `test`, depth first. */
function visit(tree, test, f) {
  const walk = (node) => {
    const children = node.children;
    if (!Array.isArray(children)) return;
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (test(child)) f(child, i, node);
      else walk(child);
    }
  };
  walk(tree);
}

export default function remarkBumplab(options = {}) {
  const base = siteBase(options.base);
  const script = options.script ?? true;
  const onError = options.onError ?? ((message) => console.warn(`bumplab: ${message}`));
  return (tree, file) => {
    let withScript = script;
    visit(
      tree,
      (node) => node.type === "code" && isBumplab(`${node.lang ?? ""}`),
      (node, index, parent) => {
        const info = [node.lang, node.meta].filter(Boolean).join(" ");
        const r = renderFence(info, node.value ?? "", { base, script: withScript });
        if (r.error) {
          const line = node.position?.start.line ?? 1;
          const column = (node.position?.start.column ?? 1) + 3;
          const message = errorLine(file?.path ?? "<markdown>", line, column, r.error);
          onError(message);
          file?.message?.(r.error.message, node);
        } else {
          withScript = false;
        }
        parent.children[index] = { type: "html", value: r.html.trimEnd(), position: node.position };
      },
    );
  };
}
