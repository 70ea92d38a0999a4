import { describe, expect, it } from "vitest";
import { bytes, hex, hexWithDecimal, percent } from "./format";

describe("format", () => {
  it("hex: lowercase with 0x, like the engine", () => {
    expect(hex(0)).toBe("0x0");
    expect(hex(255)).toBe("0xff");
    expect(hex(65784)).toBe("0x100f8");
    expect(hex(0x1_0000_0000)).toBe("0x100000000");
    expect(() => hex(1.5)).toThrow(RangeError);
  });

  it("bytes: singular and plural", () => {
    expect(bytes(1)).toBe("1 byte");
    expect(bytes(0)).toBe("0 bytes");
    expect(bytes(24)).toBe("24 bytes");
    expect(bytes(2)).toBe("2 bytes");
    expect(bytes(1, "1")).toBe("1 byte");
    expect(bytes(1515, "1,515")).toBe("1,515 bytes");
  });

  it("percent: one decimal", () => {
    expect(percent(0.23828125)).toBe("23.8%");
    expect(percent(0)).toBe("0.0%");
    expect(percent(1)).toBe("100.0%");
  });

  it("hexWithDecimal: decimal only for small values that read differently", () => {
    expect(hexWithDecimal(8)).toEqual({ hex: "0x8", decimal: null });
    expect(hexWithDecimal(24)).toEqual({ hex: "0x18", decimal: "24" });
    expect(hexWithDecimal(0x100f8)).toEqual({ hex: "0x100f8", decimal: null });
  });
});
