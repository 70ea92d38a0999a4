/**
 * Where the split listing is, relative to web/src/wasm/listing.ts's module:
 * a constant vite.config.ts defines (the dev server's web/pkg-cost/listing/,
 * or the build's hashed assets folder).
 */
declare const LISTING_DIR: string;
