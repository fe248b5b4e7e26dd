import { describe, expect, it } from "vitest";
import { appendChunk, emptyLogBuffer, highlight, searchLines, type LogLine } from "./logBuffer";

const lines = (from: number, n: number, pod = "p-0"): LogLine[] =>
  Array.from({ length: n }, (_, i) => ({ pod, time: "2026-01-01T00:00:00Z", text: `line ${from + i}` }));

describe("appendChunk", () => {
  it("holds the lines in order and the cursor of the last chunk", () => {
    let b = appendChunk(emptyLogBuffer(), { lines: lines(0, 3), cursor: "c1" });
    b = appendChunk(b, { lines: lines(3, 2), cursor: "c2" });
    expect(b.lines.map((l) => l.text)).toEqual(["line 0", "line 1", "line 2", "line 3", "line 4"]);
    expect(b.lines.map((l) => l.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(b.cursor).toBe("c2");
    expect(b.dropped).toBe(0);
  });

  it("keeps only the newest max lines, counting those let go", () => {
    let b = appendChunk(emptyLogBuffer(), { lines: lines(0, 4), cursor: "c1" }, 5);
    b = appendChunk(b, { lines: lines(4, 3), cursor: "c2" }, 5);
    expect(b.lines.map((l) => l.text)).toEqual(["line 2", "line 3", "line 4", "line 5", "line 6"]);
    expect(b.dropped).toBe(2);
    expect(b.cursor).toBe("c2");
  });

  it("takes a chunk larger than the bound by its newest lines, and their numbers stay theirs", () => {
    const b = appendChunk(appendChunk(emptyLogBuffer(), { lines: lines(0, 2), cursor: "c1" }, 3), { lines: lines(2, 6), cursor: "c2" }, 3);
    expect(b.lines.map((l) => l.text)).toEqual(["line 5", "line 6", "line 7"]);
    expect(b.lines.map((l) => l.seq)).toEqual([5, 6, 7]);
    expect(b.dropped).toBe(5);
    expect(b.next).toBe(8);
  });

  it("moves the cursor on a chunk with no lines, and changes nothing on the same cursor", () => {
    const b = appendChunk(emptyLogBuffer(), { lines: lines(0, 1), cursor: "c1" });
    expect(appendChunk(b, { lines: [], cursor: "c1" })).toBe(b);
    const moved = appendChunk(b, { lines: [], cursor: "c9" });
    expect(moved.cursor).toBe("c9");
    expect(moved.lines).toBe(b.lines);
  });

  it("stays within the default bound of 5000", () => {
    let b = emptyLogBuffer();
    for (let i = 0; i < 7; i++) b = appendChunk(b, { lines: lines(i * 1000, 1000), cursor: `c${i}` });
    expect(b.lines).toHaveLength(5000);
    expect(b.lines[0]!.text).toBe("line 2000");
    expect(b.lines.at(-1)!.text).toBe("line 6999");
    expect(b.cursor).toBe("c6");
  });
});

describe("searchLines", () => {
  const held = [
    { pod: "a", time: "", text: "step=10 loss=1.2" },
    { pod: "b", time: "", text: "NCCL WARN timeout" },
    { pod: "a", time: "", text: "step=20 loss=0.9" },
  ];
  it("keeps every line for an empty search", () => {
    expect(searchLines(held, "")).toBe(held);
  });
  it("keeps the lines containing the text, whatever its case", () => {
    expect(searchLines(held, "STEP=").map((l) => l.text)).toEqual(["step=10 loss=1.2", "step=20 loss=0.9"]);
    expect(searchLines(held, "nccl warn")).toHaveLength(1);
  });
});

describe("highlight", () => {
  it.each([
    ["step=10 loss=1.2 step=11", "step", [["step", true], ["=10 loss=1.2 ", false], ["step", true], ["=11", false]]],
    ["Loss went down", "loss", [["Loss", true], [" went down", false]]],
    ["nothing here", "x", [["nothing here", false]]],
    ["aaa", "aa", [["aa", true], ["a", false]]],
    ["text", "", [["text", false]]],
  ] as const)("marks %j in %j", (text, query, want) => {
    expect(highlight(text, query).map((s) => [s.text, s.match])).toEqual(want);
  });
});
