import { describe, expect, it } from "vitest";
import { generalKey } from "../ui/fieldErrors";
import { blankRayDraft, envOf, rayInput, rayPaths, workerPath, type RayDraft } from "./rayForm";
import { blankSubmitDraft, submitServerErrors, submitVariables, validateSubmit, type RecipeChoice, type SubmitDraft } from "./submitForm";

const ray: RecipeChoice = { recipe: "RAY", needsModel: false, settings: [] };

const program = (patch: Partial<RayDraft> = {}): RayDraft => ({
  ...blankRayDraft(),
  args: "--epochs\n3\n",
  pip: "torch==2.5.1\ntransformers[torch]>=4.44,<5",
  env: "WANDB_MODE=offline\nNOTE=a=b",
  workers: [{ instanceGroup: "workers", replicas: "2", gpusPerNode: "" }],
  ...patch,
});

const good = (patch: Partial<RayDraft> = {}, draft: Partial<SubmitDraft> = {}): SubmitDraft => ({
  ...blankSubmitDraft(),
  name: "ray-1",
  recipe: "RAY",
  script: "code/train.py",
  datasetPath: "datasets/alpaca/",
  instanceGroup: "head",
  nodes: "1",
  ray: program(patch),
  ...draft,
});

describe("the RAY recipe's fields", () => {
  it("takes a whole draft and sends only what was given", () => {
    expect(validateSubmit(good(), ray, 4)).toEqual({});
    const v = submitVariables("c1", good(), ray, "k");
    expect(v.input.script).toBe("code/train.py");
    expect(v.input.ray).toEqual({
      args: ["--epochs", "3"],
      pip: ["torch==2.5.1", "transformers[torch]>=4.44,<5"],
      env: [
        { name: "WANDB_MODE", value: "offline" },
        { name: "NOTE", value: "a=b" },
      ],
      workerGroups: [{ instanceGroup: "workers", replicas: 2 }],
    });
    expect(rayInput(blankRayDraft())).toEqual({});
  });

  it("is not sent for another recipe", () => {
    const pytorch: RecipeChoice = { recipe: "PYTORCH", needsModel: false, settings: [] };
    expect(submitVariables("c1", good({}, { recipe: "PYTORCH" }), pytorch, "k").input.ray).toBeUndefined();
  });

  it.each([
    ["more than one head node", good({}, { nodes: "2" }), "input.nodes", /head is one node/],
    ["no script", good({}, { script: "" }), "input.script", /code\/train.py/],
    ["a pip URL", good({ pip: "https://x.example/a.whl" }), rayPaths.pip, /not a requirement/],
    ["a variable without a value", good({ env: "JUSTANAME" }), rayPaths.env, /NAME=value/],
    ["a variable the recipe sets", good({ env: "MAX_STEPS=3" }), rayPaths.env, /set by the recipe/],
    ["a variable twice", good({ env: "A=1\nA=2" }), rayPaths.env, /twice/],
    ["too many arguments", good({ args: Array.from({ length: 65 }, () => "a").join("\n") }), rayPaths.args, /at most 64/],
    ["a worker group without a group", good({ workers: [{ instanceGroup: "", replicas: "1", gpusPerNode: "" }] }), workerPath(0, "instanceGroup"), /Choose/],
    ["a group twice", good({ workers: [{ instanceGroup: "w", replicas: "1", gpusPerNode: "" }, { instanceGroup: "w", replicas: "1", gpusPerNode: "" }] }), workerPath(1, "instanceGroup"), /once/],
    ["no workers", good({ workers: [{ instanceGroup: "w", replicas: "0", gpusPerNode: "" }] }), workerPath(0, "replicas"), /1 to 256/],
    ["too many nodes", good({ workers: [{ instanceGroup: "w", replicas: "256", gpusPerNode: "" }] }), rayPaths.workerGroups, /257 nodes/],
  ])("refuses %s", (_, draft, path, want) => {
    expect(validateSubmit(draft, ray, 4)[path]?.join(" ")).toMatch(want);
  });

  it("puts the server's errors at the Ray fields", () => {
    const errors = submitServerErrors([
      { message: "no group", extensions: { code: "PRECONDITION", field: "input.ray.workerGroups[0].instanceGroup" } },
      { message: "bad pip", extensions: { code: "VALIDATION", field: "input.ray.pip" } },
      { message: "other", extensions: { code: "VALIDATION", field: "input.ray" } },
    ]);
    expect(errors[workerPath(0, "instanceGroup")]).toEqual(["no group"]);
    expect(errors[rayPaths.pip]).toEqual(["bad pip"]);
    expect(errors[rayPaths.workerGroups]).toEqual(["other"]);
    expect(errors[generalKey]).toBeUndefined();
  });

  it("reads NAME=value lines", () => {
    expect(envOf(" A=1 \n\nB= x=y\nC")).toEqual([
      { name: "A", value: "1" },
      { name: "B", value: " x=y" },
      { name: "", value: "C" },
    ]);
  });
});
