import { describe, expect, it } from "vitest";
import { generalKey } from "../ui/fieldErrors";
import { blankDownloadDraft, defaultModelName, downloadServerErrors, downloadVariables, folderName, modelIdProblem, validateDownload } from "./downloadForm";

const draft = (patch: Partial<ReturnType<typeof blankDownloadDraft>>) => ({ ...blankDownloadDraft(), ...patch });

describe("modelIdProblem", () => {
  it.each(["Qwen/Qwen2.5-0.5B-Instruct", "meta-llama/Llama-3.1-8B-Instruct", "a/b", "org_1/model.v2"])("takes %s", (id) => {
    expect(modelIdProblem(id)).toBeNull();
  });

  it.each([
    ["", /Give the model's id/],
    ["Qwen2.5-0.5B-Instruct", /not org\/name/],
    ["Qwen/Qwen2.5/extra", /not org\/name/],
    ["Qwen/ Qwen", /not org\/name/],
    ["-Qwen/x", /not org\/name/],
    ["Qwen/..", /not org\/name/],
    ["a/b..c", /not org\/name/],
    ["https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct", /without the address: Qwen\/Qwen2.5-0.5B-Instruct\./],
    ["huggingface.co/Qwen/Qwen3-8B/tree/main", /without the address: Qwen\/Qwen3-8B\./],
    [`org/${"m".repeat(100)}`, /at most 96/],
  ])("%j: %s", (id, want) => {
    expect(modelIdProblem(id)).toMatch(want);
  });
});

describe("defaultModelName", () => {
  it.each([
    ["Qwen/Qwen2.5-0.5B-Instruct", "qwen2.5-0.5b-instruct"],
    ["meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b-instruct"],
    ["org/_Model-", "model"],
    ["org/" + "A".repeat(47) + "-xyz", "a".repeat(47)],
    ["no-slash", ""],
  ])("%s is %j", (id, want) => {
    expect(defaultModelName(id)).toBe(want);
  });

  it("is what the folder is when no name is typed", () => {
    expect(folderName(draft({ modelId: " Qwen/Qwen3-8B " }))).toBe("qwen3-8b");
    expect(folderName(draft({ modelId: "Qwen/Qwen3-8B", name: " mine " }))).toBe("mine");
  });
});

describe("validateDownload", () => {
  it("takes a model with the defaults", () => {
    expect(validateDownload(draft({ modelId: "Qwen/Qwen2.5-0.5B-Instruct" }))).toEqual({});
  });

  it("takes a revision, a folder and a token", () => {
    expect(validateDownload(draft({ modelId: "Qwen/Qwen3-8B", revision: "v1.0", name: "qwen3_8b.v1", token: "hf_abcdefghijklmnopqrstuvwxyz0123" }))).toEqual({});
  });

  it.each([
    [{ modelId: "Qwen" }, "input.modelId", /not org\/name/],
    [{ modelId: "Qwen/Qwen3-8B", revision: "my branch" }, "input.revision", /no spaces/],
    [{ modelId: "Qwen/Qwen3-8B", revision: "r".repeat(256) }, "input.revision", /at most 255/],
    [{ modelId: "Qwen/Qwen3-8B", name: "Qwen3" }, "input.name", /lower-case letters/],
    [{ modelId: "Qwen/Qwen3-8B", name: "a".repeat(49) }, "input.name", /1 to 48/],
    [{ modelId: "Qwen/Qwen3-8B", name: "-x" }, "input.name", /starting and ending/],
    [{ modelId: "Qwen/Qwen3-8B", token: "hf_abc def" }, "input.token", /not a Hugging Face access token/],
    [{ modelId: "Qwen/Qwen3-8B", token: "t".repeat(513) }, "input.token", /at most 512/],
  ])("%j: at %s", (patch, field, want) => {
    const errors = validateDownload(draft(patch));
    expect(Object.keys(errors)).toEqual([field]);
    expect(errors[field]![0]).toMatch(want);
  });
});

describe("downloadVariables", () => {
  it("sends the model from Hugging Face at main, and neither a name nor a token when none is given", () => {
    expect(downloadVariables("c1", draft({ modelId: " Qwen/Qwen2.5-0.5B-Instruct ", revision: " " }), "k1")).toEqual({
      input: { clusterId: "c1", source: "HUGGING_FACE", modelId: "Qwen/Qwen2.5-0.5B-Instruct", revision: "main" },
      idempotencyKey: "k1",
    });
  });

  it("sends the name typed and the token as it was typed", () => {
    const v = downloadVariables("c1", draft({ modelId: "meta-llama/Llama-3.1-8B-Instruct", revision: "v2", name: " llama ", token: "hf_secret" }), "k1");
    expect(v.input).toEqual({ clusterId: "c1", source: "HUGGING_FACE", modelId: "meta-llama/Llama-3.1-8B-Instruct", revision: "v2", name: "llama", token: "hf_secret" });
  });

  it("leaves the token out entirely when it is empty", () => {
    expect("token" in downloadVariables("c1", draft({ modelId: "Qwen/Qwen3-8B", token: "" }), "k1").input).toBe(false);
  });
});

describe("downloadServerErrors", () => {
  const error = (code: string, message: string, field?: string) => ({ message, extensions: field ? { code, field } : { code } });

  it.each([
    ["NOT_FOUND", "input.modelId", "Hugging Face has no model Qwen/Nope"],
    ["VALIDATION", "input.modelId", "model id is not org/name"],
    ["NOT_FOUND", "input.revision", "Qwen/Qwen3-8B has no revision v9"],
    ["CONFLICT", "input.name", "models/qwen3-8b/ holds another model already"],
    ["PRECONDITION", "input.token", "meta-llama/Llama-3.1-8B-Instruct is gated or private: send a Hugging Face token"],
    ["VALIDATION", "input.token", "Hugging Face refused the token"],
  ])("puts a %s error about %s at its field", (code, field, message) => {
    expect(downloadServerErrors([error(code, message, field)])).toEqual({ [field]: [message] });
  });

  it("puts errors about what the form does not show at the top, naming the field", () => {
    expect(downloadServerErrors([error("PRECONDITION", "cluster c has no shared bucket ready", "input.clusterId"), error("FORBIDDEN", "needs OPERATOR")])).toEqual({
      [generalKey]: ["cluster c has no shared bucket ready (input.clusterId)", "needs OPERATOR"],
    });
  });
});
