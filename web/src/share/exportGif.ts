// An animated GIF of a range of steps, for hosts that take neither SVG nor
// iframes (Medium, Substack): each step's figure (the same composition as
// the SVG export's, one step a frame) rasterised by the browser and encoded
// with gifenc, one palette for every frame (from a sample of all of them)
// so a block keeps its colour from frame to frame.

import { applyPalette, GIFEncoder, quantize } from "gifenc";

/** The most steps a GIF holds (as many as an animated SVG), and the most bytes its file may weigh. */
export const GIF_MAX_STEPS = 200;
export const GIF_MAX_BYTES = 8 * 1024 * 1024;

/** One frame: a figure's SVG text and its size. */
export interface GifFrame {
  svg: string;
  width: number;
  height: number;
}

/** The SVG drawn into a canvas of `width` × `height` on `background`: its pixels. */
async function raster(frame: GifFrame, width: number, height: number, background: string): Promise<Uint8ClampedArray> {
  const image = new Image();
  image.decoding = "async";
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(frame.svg)}`;
  await image.decode();
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  if (!ctx) throw new Error("this browser gives no 2D canvas");
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, width, height);
  ctx.drawImage(image, 0, 0, frame.width, frame.height);
  return ctx.getImageData(0, 0, width, height).data;
}

/**
 * The frames as one looping GIF, each shown `delayMs`, all at the largest
 * frame's size (a frame whose caption wraps to fewer lines is padded below
 * with `background`). `progress` hears of each frame encoded.
 */
export async function encodeGif(frames: readonly GifFrame[], delayMs: number, background: string, progress: (done: number) => void = () => undefined): Promise<{ bytes: Uint8Array; width: number; height: number }> {
  const width = Math.max(1, ...frames.map((f) => Math.ceil(f.width)));
  const height = Math.max(1, ...frames.map((f) => Math.ceil(f.height)));
  // The palette: every frame's pixels sampled (at most about a million in all), since a later step adds blocks of new colours.
  const pixelsPerFrame = width * height;
  const stride = Math.max(1, Math.ceil((pixelsPerFrame * frames.length) / 1_000_000));
  const samples: number[] = [];
  for (const frame of frames) {
    const pixels = await raster(frame, width, height, background);
    for (let p = 0; p < pixelsPerFrame; p += stride) samples.push(pixels[4 * p] ?? 0, pixels[4 * p + 1] ?? 0, pixels[4 * p + 2] ?? 0, 255);
  }
  const palette = quantize(Uint8Array.from(samples), 256);
  const gif = GIFEncoder();
  for (const [k, frame] of frames.entries()) {
    const pixels = await raster(frame, width, height, background);
    gif.writeFrame(applyPalette(pixels, palette), width, height, { palette, delay: delayMs, ...(k === 0 ? { repeat: 0 } : {}) });
    progress(k + 1);
  }
  gif.finish();
  return { bytes: gif.bytes(), width, height };
}
