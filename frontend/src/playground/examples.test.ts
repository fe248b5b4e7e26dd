import { describe, expect, it } from "vitest";
import { buildSchema, parse, validate, type GraphQLSchema } from "graphql";
import { examples, meQuery } from "./examples";

// The API's schema, as the server builds it from ../schema.
const sdl = import.meta.glob<string>("../../../schema/*.graphqls", { query: "?raw", import: "default", eager: true });

function schema(): GraphQLSchema {
  const files = Object.values(sdl);
  expect(files.length).toBeGreaterThan(0);
  return buildSchema(files.join("\n"));
}

describe("the playground's saved operations", () => {
  const s = schema();

  it.each(examples.map((e) => [e.title, e] as const))("%s is valid against the schema", (_title, example) => {
    const errors = validate(s, parse(example.query));
    expect(errors.map((e) => e.message)).toEqual([]);
    if (example.variables !== undefined) expect(() => JSON.parse(example.variables!)).not.toThrow();
  });

  it("the session check is valid against the schema", () => {
    expect(validate(s, parse(meQuery)).map((e) => e.message)).toEqual([]);
  });

  it("has one operation per example, with distinct names (GraphiQL's tab titles)", () => {
    const names = examples.map((e) => {
      const ops = parse(e.query).definitions.filter((d) => d.kind === "OperationDefinition");
      expect(ops).toHaveLength(1);
      return ops[0]!.name?.value;
    });
    expect(new Set(names).size).toBe(examples.length);
    expect(names.every(Boolean)).toBe(true);
  });

  it("covers a query, a mutation and a subscription", () => {
    const kinds = new Set(
      examples.flatMap((e) => parse(e.query).definitions.flatMap((d) => (d.kind === "OperationDefinition" ? [d.operation] : []))),
    );
    expect([...kinds].sort()).toEqual(["mutation", "query", "subscription"]);
  });
});
