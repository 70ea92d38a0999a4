// The map's toolbar: the zoom level, which of its buttons can act, and the
// note saying how many blocks are drawn as bins of fill.

import { setText } from "../dom";
import { lodSummary } from "./labels";
import type { Mount } from "./mount";

/** The toolbar of `m` for `rows` chunk rows holding `blockCount` blocks, `binned` rows of them as bins. */
export function drawToolbar(m: Mount, rows: number, blockCount: number, binned: number): void {
  const k = m.z.k;
  setText(m.level, `${k < 10 ? Math.round(k * 10) / 10 : Math.round(k)}×`);
  m.zoomIn.disabled = rows === 0 || k >= m.kMax;
  m.zoomOut.disabled = k <= 1;
  m.reset.disabled = k <= 1 && m.z.x === 0;
  const note = lodSummary(blockCount, rows, binned);
  setText(m.note, note);
  m.note.hidden = note === "";
}
