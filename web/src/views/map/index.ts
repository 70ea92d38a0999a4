// The memory map's public face: what the rest of the app draws with.

export { blockColour, renderMemoryMap, type MemoryMapData } from "./render";
export { renderMapSummary } from "./summary";
