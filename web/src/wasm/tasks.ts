// Task scheduling shared by the run slicer, the sweep and the drag's staged frames; no imports, so any bundle can take it.

/**
 * Resolves on a later macrotask: a MessageChannel message, not clamped like
 * nested setTimeout (4 ms each after a few), so a million ops in ~80 slices
 * loses no time between them. Where there is no MessageChannel, setTimeout.
 */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof MessageChannel === "undefined") {
      setTimeout(resolve, 0);
      return;
    }
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      // Closed so an open port does not keep Node's event loop alive.
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
    channel.port2.close();
  });
}
