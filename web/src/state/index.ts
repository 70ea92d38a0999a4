export * from "./reducer";
export * from "./store";
