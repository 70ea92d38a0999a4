// The memory map's public face: what the rest of the app draws with.

export type { MemoryMapData } from "./layout";
export { figureFit, type MapFit } from "./fit";
export { blockColour } from "./palette";
export { prepareMemoryMap, renderMemoryMap } from "./render";
export { renderMapSummary } from "./summary";
