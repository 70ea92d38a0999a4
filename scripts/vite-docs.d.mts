import type { Plugin } from "vite";
export function slug(text: string): string;
export function docPaths(dir?: string): string[];
export function renderDoc(path: string): string;
export function docsPages(): Plugin;
