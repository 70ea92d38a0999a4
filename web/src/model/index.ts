export * from "./blocks";
export * from "./chunks";
export * from "./describe";
export * from "./format";
