// A markdown-it plugin (VitePress, Eleventy, anything built on markdown-it):
// each ```bumplab fence becomes a live Bump Lab figure, the <bump-lab>
// element with its fallback link and reserved height (fence.mjs).
//
//   import bumplab from "bumplab/markdown-it";
//   md.use(bumplab, { base: "/bump-lab/" });
//
// Options: `base`, the URL where the site serves Bump Lab's dist/ folder
// (default "/bump-lab/"); `script` (default true), whether the first fence
// of each page writes the <script type="module"> that loads bump-lab.js (a
// host that puts scripts in the page's head itself, as VitePress must, says
// false); `onError(message)`, told of each bad fence as
// `FILE:LINE:COLUMN: message` (default: console.warn). A bad fence is shown
// with its error above its program; any other fence is left to markdown-it.
import { errorLine, isBumplab, renderFence, siteBase } from "./fence.mjs";

const SCRIPT_WRITTEN = Symbol("bumplab script written");

export default function bumplab(md, options = {}) {
  const base = siteBase(options.base);
  const script = options.script ?? true;
  const onError = options.onError ?? ((message) => console.warn(`bumplab: ${message}`));
  const fallback = md.renderer.rules.fence ?? ((tokens, idx, opts, env, self) => self.renderToken(tokens, idx, opts));
  md.renderer.rules.fence = (tokens, idx, opts, env, self) => {
    const token = tokens[idx];
    if (!isBumplab(token.info)) return fallback(tokens, idx, opts, env, self);
    // Once per page when markdown-it is given an env object (VitePress and Eleventy give one); else with each fence, which loads the module once all the same.
    const page = typeof env === "object" && env !== null ? env : null;
    const withScript = script && !(page && page[SCRIPT_WRITTEN]);
    const r = renderFence(token.info, token.content, { base, script: withScript });
    if (r.error) {
      const file = page?.relativePath ?? page?.path ?? page?.page?.inputPath ?? "<markdown>";
      onError(errorLine(file, (token.map?.[0] ?? 0) + 1, token.markup.length + 1, r.error));
    } else if (withScript && page) {
      page[SCRIPT_WRITTEN] = true;
    }
    return r.html;
  };
}
