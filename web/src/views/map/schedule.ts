// When a progressive map draws what it left out: after the frame that shows
// what it drew, in a task of its own.

import type { Mount } from "./mount";

/** Runs `fn` in a task of its own after the next frame is drawn. */
function afterFrame(fn: () => void): void {
  requestAnimationFrame(() => setTimeout(fn, 0));
}

/**
 * Draws `m` again (`redraw`) once the frame showing a partial draw is on
 * screen, from the latest data: once, however many partial draws ask
 * before it runs.
 */
export function catchUpAfterFrame(m: Mount, redraw: () => void): void {
  // Blocks a progressive draw left out enter after this frame, drawn from the
  // latest data: in a task of their own, not in the next frame's callbacks,
  // where the next step's render (whose own draw brings blocks in too) would
  // follow them in the same long task.
  if (m.catchUp) return;
  m.catchUp = true;
  afterFrame(() => {
    m.catchUp = false;
    redraw();
    // Styled and laid out here, in this task: left to the next frame, the new rows' style and text layout join its render.
    void m.root.offsetHeight;
  });
}
