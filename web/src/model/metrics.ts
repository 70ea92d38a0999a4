// The metric registry: each quantity the page counts, named once with its
// label, its unit and what it sums. The stats panel, compare mode's totals
// and the sweep's chart all read their labels from here, so one metric is
// never called two things.

/** Every metric some view shows. */
export type MetricName =
  | "requested"
  | "used"
  | "padding"
  | "leaked"
  | "copied"
  | "unused"
  | "metadata"
  | "chunks"
  | "utilisation"
  | "instructions"
  | "branches"
  | "footprint"
  | "peakFootprint"
  | "failed";

export interface Metric {
  /** The short label ("Padding"): the stats panel's cell. */
  label: string;
  /** Bytes, a count of things, or a ratio (shown as a percentage). */
  unit: "bytes" | "count" | "ratio";
  /** What it sums, in a sentence (the stats cell's tooltip). */
  sums: string;
}

export const METRICS: Readonly<Record<MetricName, Metric>> = {
  requested: { label: "Requested", unit: "bytes", sums: "Bytes requested by live blocks" },
  used: { label: "Used", unit: "bytes", sums: "Bytes between each chunk's bump origin and its bump pointer" },
  padding: { label: "Padding", unit: "bytes", sums: "Alignment padding in the used bytes" },
  leaked: { label: "Leaked", unit: "bytes", sums: "Freed or moved blocks whose bytes are not reclaimed yet" },
  copied: { label: "Copied", unit: "bytes", sums: "Bytes copied by reallocs that moved" },
  unused: { label: "Unused", unit: "bytes", sums: "Usable bytes beyond the bump pointers" },
  metadata: { label: "Metadata", unit: "bytes", sums: "Chunk headers and footers" },
  chunks: { label: "Chunks", unit: "count", sums: "Chunks the allocator holds now" },
  utilisation: { label: "Utilisation", unit: "ratio", sums: "Requested bytes over all the bytes the chunks take (usable and metadata)" },
  instructions: { label: "Wasm instructions", unit: "count", sums: "Wasm instructions the ops ran, as metered" },
  branches: { label: "Wasm branches", unit: "count", sums: "Conditional branches the ops took, as metered" },
  footprint: { label: "Footprint", unit: "bytes", sums: "Bytes held from the base allocator now: usable, header and footer of every chunk" },
  peakFootprint: { label: "Peak footprint", unit: "bytes", sums: "The most bytes held from the base allocator at any step so far" },
  failed: { label: "Failed ops", unit: "count", sums: "Ops that failed (out of memory) so far" },
};

/** The metric named with its unit, as a heading or an axis says it: "Padding bytes", "Chunks". */
export function metricHeading(name: MetricName): string {
  const m = METRICS[name];
  return m.unit === "bytes" ? `${m.label} bytes` : m.label;
}

/** The unit after a figure: "1,234 padding bytes", "3 chunks". */
export function metricUnit(name: MetricName): string {
  return metricHeading(name).toLowerCase();
}
