import { describe, expect, it } from "vitest";
import { matchPath, queryParam, safeNext } from "./router";

describe("matchPath", () => {
  it.each([
    ["/clusters", "/clusters", {}],
    ["/clusters/:id", "/clusters/01ABC", { id: "01ABC" }],
    ["/clusters/:id", "/clusters/a%20b?x=1", { id: "a b" }],
    ["/operations/:id", "/operations/01XYZ/", { id: "01XYZ" }],
    ["/clusters/new", "/clusters/01ABC", null],
    ["/clusters/:id", "/clusters", null],
    ["/clusters/:id", "/clusters/a/b", null],
    ["/", "/", {}],
    ["/", "/?next=/x", {}],
  ])("%s against %s", (pattern, path, want) => {
    expect(matchPath(pattern, path)).toEqual(want);
  });
});

describe("queryParam", () => {
  it("reads one parameter", () => {
    expect(queryParam("/signin?next=%2Fclusters%2F1", "next")).toBe("/clusters/1");
    expect(queryParam("/signin", "next")).toBeNull();
  });
});

describe("safeNext", () => {
  it.each([
    ["/operations/01ABC", "/operations/01ABC"],
    ["/operations?status=FAILED", "/operations?status=FAILED"],
    [null, "/clusters"],
    ["", "/clusters"],
    ["https://evil.example/", "/clusters"],
    ["//evil.example/", "/clusters"],
    ["/\\evil.example/", "/clusters"],
    ["/signin?next=/x", "/clusters"],
  ])("after sign-in, %j goes to %s", (next, want) => {
    expect(safeNext(next)).toBe(want);
  });
});
