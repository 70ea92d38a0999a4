// Block colours, keyed by the op that placed the block so a block keeps its
// colour as the view steps (the prediction view uses the same ones).

/** Okabe–Ito: distinguishable with the common colour-vision deficiencies. */
const PALETTE = [
  { fill: "#56B4E9", ink: "#0b1f2b" },
  { fill: "#E69F00", ink: "#231600" },
  { fill: "#009E73", ink: "#00130e" },
  { fill: "#F0E442", ink: "#242100" },
  { fill: "#0072B2", ink: "#ffffff" },
  { fill: "#D55E00", ink: "#1e0b00" },
  { fill: "#CC79A7", ink: "#25101c" },
] as const;

export function blockColour(id: number): { fill: string; ink: string } {
  return PALETTE[id % PALETTE.length] ?? PALETTE[0];
}
