// What the memory holds after a given step, derived from the trace alone.
// `step` counts executed ops: 0 is before the first op, trace.length is the end.
//
// Read from the TraceView's columns (model/held.ts), not replayed: the block
// op i placed is held after step k when i < k and gone_at[i] >= k.

// Block is defined in held.ts, which makes blocks; views import it from here.
export type { Block, BlockState } from "./held";
