import { describe, expect, it } from "vitest";
import { CAPACITIES, capacityChoices, capacityLabel } from "./capacitySelect";

describe("the Capacity select's options", () => {
  it("lists the round sizes when the chosen one is among them, or the preset's default", () => {
    expect(capacityChoices(null)).toEqual([...CAPACITIES]);
    expect(capacityChoices(256)).toEqual([...CAPACITIES]);
  });

  it("lists a capacity the round sizes lack in order among them: a 464-byte slab is never blank", () => {
    expect(capacityChoices(464)).toEqual([64, 128, 256, 464, 512, 1024, 2048, 4096, 1024 * 1024]);
    expect(capacityChoices(3 * 1024 * 1024).at(-1)).toBe(3 * 1024 * 1024);
    expect(capacityLabel(464)).toBe("464 bytes");
    expect(capacityLabel(1024 * 1024)).toBe("1 MiB");
  });
});
