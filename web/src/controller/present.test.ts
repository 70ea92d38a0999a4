import { describe, expect, it } from "vitest";
import { presentAnnouncement, presentFromSearch, withPresent } from "./present";

describe("presentation mode in the URL", () => {
  it("reads ?present=1 and its spellings, and nothing else, as on", () => {
    expect(presentFromSearch("?present=1")).toBe(true);
    expect(presentFromSearch("?theme=dark&present=yes")).toBe(true);
    expect(presentFromSearch("?present=0")).toBe(false);
    expect(presentFromSearch("?present=off")).toBe(false);
    expect(presentFromSearch("")).toBe(false);
    expect(presentFromSearch("?presenter=1")).toBe(false);
  });

  it("sets and removes present=1 keeping the path, other parameters and the share link's hash", () => {
    expect(withPresent("/index.html#v2&src=abc", true)).toBe("/index.html?present=1#v2&src=abc");
    expect(withPresent("/?x=2&present=1#h", false)).toBe("/?x=2#h");
    expect(withPresent("/sub/?present=1", false)).toBe("/sub/");
  });

  it("announces how to step and how to leave", () => {
    expect(presentAnnouncement(true)).toBe("Presentation mode: ← and → step (→ reveals a question's answer first), Space plays, Page Up and Page Down scroll the narration, P or Escape leaves.");
    expect(presentAnnouncement(false)).toBe("Presentation mode off.");
  });
});
