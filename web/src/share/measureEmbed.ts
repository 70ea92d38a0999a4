// The height the share panel's snippets reserve for a figure: the embed's
// own drawn height, measured by loading it (embed.html, the very page the
// iframe snippet loads) in a frame as wide as a blog's text column. The
// snippets write it into the iframe's height and the element's
// --bumplab-height, so a figure takes its final room before it is drawn and
// the post under it does not jump as the reader arrives. A column of another
// width lays the figure out taller or shorter (the step controls wrap): the
// resize message and the element's own height follow it once drawn.

import { isResizeMessage } from "./theme";

/** The text column the height is measured in, in CSS pixels: a blog's usual measure. */
export const EMBED_COLUMN_PX = 720;

/** How long the measurement may take before the snippets fall back to a default height. */
const MEASURE_TIMEOUT_MS = 15_000;

/**
 * The drawn height of the embed at `src` in a column EMBED_COLUMN_PX wide,
 * in CSS pixels; null if it did not report one in time. The frame is laid
 * out in the viewport (browsers stop drawing frames scrolled out of it) but
 * transparent and under the page, and removed once measured. It is as tall
 * as the resize snippet lets a figure grow (5000 px), so a tall figure gets
 * no scrollbar, which would narrow its column.
 */
export function measureEmbedHeight(src: string, doc: Document = document): Promise<number | null> {
  const view = doc.defaultView;
  if (!view) return Promise.resolve(null);
  return new Promise((resolve) => {
    const frame = doc.createElement("iframe");
    frame.src = src;
    frame.title = "";
    frame.tabIndex = -1;
    frame.setAttribute("aria-hidden", "true");
    frame.style.cssText = `position:fixed;left:0;top:0;width:${EMBED_COLUMN_PX}px;height:5000px;border:0;opacity:0;pointer-events:none;z-index:-1`;
    const done = (height: number | null): void => {
      view.clearTimeout(timer);
      view.removeEventListener("message", listen);
      frame.remove();
      resolve(height);
    };
    // The embed posts its height once drawn (embed.ts): the first post is the figure's.
    const listen = (event: MessageEvent): void => {
      if (event.source === frame.contentWindow && isResizeMessage(event.data)) done(event.data.height);
    };
    const timer = view.setTimeout(() => done(null), MEASURE_TIMEOUT_MS);
    view.addEventListener("message", listen);
    doc.body.append(frame);
  });
}
