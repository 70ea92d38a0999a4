export * from "./blocks";
export * from "./describe";
export * from "./format";
