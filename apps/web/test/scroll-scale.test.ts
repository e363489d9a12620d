import { describe, expect, it } from "vitest";
import { MAX_SCROLL_HEIGHT, revealRow, scrollScale, visibleRows } from "../src/app/preview/scroll-scale.js";

describe("the grid's scroll scale", () => {
  it("is one to one while the rows fit under the browsers' height cap", () => {
    const scale = scrollScale(1000 * 28, 500);
    expect(scale.physicalHeight).toBe(28_000);
    expect(scale.virtualTop(1234)).toBe(1234);
    expect(scale.scrollTop(1234)).toBe(1234);
    expect(scale.maxVirtualTop).toBe(27_500);
  });

  it("keeps a million rows under the cap, the top showing row 1 and the bottom the last row", () => {
    const rows = 1_000_000;
    const view = 560;
    const scale = scrollScale(rows * 28, view);
    expect(scale.physicalHeight).toBe(MAX_SCROLL_HEIGHT);
    expect(scale.virtualTop(0)).toBe(0);
    const bottom = scale.virtualTop(MAX_SCROLL_HEIGHT - view);
    expect(bottom).toBe(rows * 28 - view);
    const shown = visibleRows(bottom, 28, view, rows);
    expect(shown.first + shown.count).toBe(rows);
    // There and back: the scroll position for a row's top stands for that row's top; a
    // whole-pixel scroll position lands within the pixels it stands for (under 2).
    const target = 765_432 * 28;
    expect(Math.abs(scale.virtualTop(scale.scrollTop(target)) - target)).toBeLessThan(1e-6);
    expect(Math.abs(scale.virtualTop(Math.round(scale.scrollTop(target))) - target)).toBeLessThan(2);
  });

  it("never goes past either end", () => {
    const scale = scrollScale(28 * 2_000_000, 500);
    expect(scale.virtualTop(-50)).toBe(0);
    expect(scale.virtualTop(MAX_SCROLL_HEIGHT * 2)).toBe(scale.maxVirtualTop);
    expect(scale.scrollTop(Number.MAX_SAFE_INTEGER)).toBe(MAX_SCROLL_HEIGHT - 500);
  });

  it("counts the rows in view, part-rows included, and no more than there are", () => {
    expect(visibleRows(0, 28, 280, 1000)).toEqual({ first: 0, offset: 0, count: 10 });
    expect(visibleRows(14, 28, 280, 1000)).toEqual({ first: 0, offset: 14, count: 11 });
    expect(visibleRows(0, 28, 280, 3)).toEqual({ first: 0, offset: 0, count: 3 });
    expect(visibleRows(0, 28, 0, 1000).count).toBe(0);
  });

  it("moves the least that shows a row wholly", () => {
    expect(revealRow(5, 0, 28, 280)).toBe(0);
    expect(revealRow(10, 0, 28, 280)).toBe(11 * 28 - 280);
    expect(revealRow(2, 200, 28, 280)).toBe(56);
  });
});
