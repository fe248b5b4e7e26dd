import { describe, expect, it } from "vitest";
import { queryParam } from "../app/router";
import { breadcrumbs, entryName, podPath, prefixOf, prefixQuery } from "./bucketPaths";

describe("breadcrumbs", () => {
  it.each([
    ["", []],
    ["models/", [{ name: "models", prefix: "models/" }]],
    [
      "checkpoints/job-1/step 10/",
      [
        { name: "checkpoints", prefix: "checkpoints/" },
        { name: "job-1", prefix: "checkpoints/job-1/" },
        { name: "step 10", prefix: "checkpoints/job-1/step 10/" },
      ],
    ],
  ])("%j", (prefix, want) => {
    expect(breadcrumbs(prefix)).toEqual(want);
  });
});

describe("entryName", () => {
  it.each([
    ["models/llama/", "models/", "llama/"],
    ["models/llama/config.json", "models/llama/", "config.json"],
    ["README.md", "", "README.md"],
    ["other/x", "models/", "other/x"],
  ])("%s in %j is %s", (key, prefix, want) => {
    expect(entryName(key, prefix)).toBe(want);
  });
});

describe("podPath", () => {
  it.each([
    ["/s3", "datasets/train.jsonl", "/s3/datasets/train.jsonl"],
    ["/s3/", "models/llama/", "/s3/models/llama/"],
  ])("%s + %s", (mount, key, want) => {
    expect(podPath(mount, key)).toBe(want);
  });
});

describe("prefixOf", () => {
  it.each([
    [null, ""],
    ["", ""],
    ["models/", "models/"],
    ["models", "models/"],
    ["/models/llama", "models/llama/"],
  ])("%j lists %j", (param, want) => {
    expect(prefixOf(param)).toBe(want);
  });
});

describe("prefixQuery", () => {
  it.each([
    ["", ""],
    ["models/llama/", "?prefix=models/llama/"],
    ["data sets/a&b=c/", "?prefix=data%20sets/a%26b%3Dc/"],
  ])("%j is %j", (prefix, want) => {
    expect(prefixQuery(prefix)).toBe(want);
  });

  it.each(["", "models/", "data sets/a&b=c/ü/"])("reads back %j", (prefix) => {
    expect(prefixOf(queryParam(`/clusters/c1/storage${prefixQuery(prefix)}`, "prefix"))).toBe(prefix);
  });
});
