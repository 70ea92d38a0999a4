// What an embed needs to narrate a program's `#>` comments, in a chunk of its
// own: most figures have none, and their first map should not wait for it.

export { narrationAt, parseNarration } from "./model/narration";
export { renderNarration } from "./views/narration";
