import { describe, expect, it } from "vitest";
import { generalKey } from "../ui/fieldErrors";
import type { SettingInfo } from "./recipeSettings";
import { advancedHasErrors, blankSubmitDraft, jobNameProblem, recoveryGiven, submitServerErrors, submitVariables, validateSubmit, type RecipeChoice, type SubmitDraft } from "./submitForm";

const settings: SettingInfo[] = [
  { key: "stage", description: "", default: "sft", allowed: ["sft", "dpo"], type: "STRING" },
  { key: "learning_rate", description: "", default: "0.0001", allowed: [], type: "FLOAT" },
];
const llamaFactory: RecipeChoice = { recipe: "LLAMA_FACTORY", needsModel: true, settings };
const pytorch: RecipeChoice = { recipe: "PYTORCH", needsModel: false, settings: [] };

const good = (patch: Partial<SubmitDraft> = {}): SubmitDraft => ({
  ...blankSubmitDraft(),
  name: "sft-qwen",
  recipe: "LLAMA_FACTORY",
  model: "qwen2.5-0.5b-instruct",
  datasetPath: "datasets/alpaca/",
  instanceGroup: "workers",
  nodes: "2",
  settings: { stage: "sft", learning_rate: "0.0001" },
  ...patch,
});

describe("jobNameProblem", () => {
  it.each(["a", "sft-qwen", "job-2", "a".repeat(40)])("takes %s", (n) => expect(jobNameProblem(n)).toBeNull());
  it.each([
    ["", /Name the job/],
    ["Sft", /lower-case/],
    ["2job", /starting with a letter/],
    ["job-", /not ending with '-'/],
    ["job_1", /lower-case/],
    ["a".repeat(41), /at most 40/],
  ])("%j: %s", (n, want) => expect(jobNameProblem(n)).toMatch(want));
});

describe("validateSubmit", () => {
  it("takes a whole draft", () => {
    expect(validateSubmit(good(), llamaFactory, 4)).toEqual({});
  });

  it("takes a PYTORCH draft with a script and no model", () => {
    expect(validateSubmit(good({ recipe: "PYTORCH", model: "", script: "code/train.py", settings: {} }), pytorch, 4)).toEqual({});
  });

  it.each([
    [{ model: "" }, "input.model", /Choose the model/],
    [{ datasetPath: "" }, "input.datasetPath", /Give the dataset's path/],
    [{ datasetPath: "s3://bucket/datasets/a" }, "input.datasetPath", /without s3:\/\//],
    [{ datasetPath: "data/alpaca" }, "input.datasetPath", /under datasets\//],
    [{ datasetPath: "datasets/" }, "input.datasetPath", /under datasets\//],
    [{ datasetPath: "datasets/../models/x" }, "input.datasetPath", /'\.\.'/],
    [{ datasetPath: "datasets//x" }, "input.datasetPath", /empty folder/],
    [{ instanceGroup: "" }, "input.instanceGroup", /Choose the instance group/],
    [{ nodes: "0" }, "input.nodes", /1 to 256/],
    [{ nodes: "257" }, "input.nodes", /1 to 256/],
    [{ nodes: "1.5" }, "input.nodes", /1 to 256/],
    [{ gpusPerNode: "8" }, "input.gpusPerNode", /1 to 4 GPUs/],
    [{ gpusPerNode: "0" }, "input.gpusPerNode", /1 to 4 GPUs/],
    [{ settings: { stage: "grpo", learning_rate: "0.0001" } }, "input.settings.stage", /one of sft, dpo/],
    [{ settings: { stage: "sft", learning_rate: "fast" } }, "input.settings.learning_rate", /is a number/],
    [{ recovery: { ...blankSubmitDraft().recovery, maxRestarts: "101" } }, "input.recovery.maxRestarts", /0 to 100 .* empty for 5/],
    [{ recovery: { ...blankSubmitDraft().recovery, windowSeconds: "30" } }, "input.recovery.windowSeconds", /60 to 604800/],
    [{ recovery: { ...blankSubmitDraft().recovery, maxFullJobRestarts: "21" } }, "input.recovery.maxFullJobRestarts", /0 to 20/],
    [{ experiment: "e".repeat(201) }, "input.experiment", /at most 200/],
  ])("%j: at %s", (patch, field, want) => {
    const errors = validateSubmit(good(patch), llamaFactory, 4);
    expect(Object.keys(errors)).toEqual([field]);
    expect(errors[field]![0]).toMatch(want);
  });

  it("asks a PYTORCH job for its script", () => {
    const errors = validateSubmit(good({ recipe: "PYTORCH", model: "", settings: {} }), pytorch, 4);
    expect(Object.keys(errors)).toEqual(["input.script"]);
  });

  it("asks a PYTORCH job for a Python script, and verl for Parquet prompts", () => {
    expect(validateSubmit(good({ recipe: "PYTORCH", model: "", script: "code/train.sh", settings: {} }), pytorch, 4)["input.script"]![0]).toMatch(/\.py file/);
    const verl: RecipeChoice = { recipe: "VERL", needsModel: true, settings: [] };
    expect(validateSubmit(good({ recipe: "VERL", settings: {} }), verl, 4)["input.datasetPath"]![0]).toMatch(/Parquet/);
    expect(validateSubmit(good({ recipe: "VERL", datasetPath: "datasets/gsm8k/train.parquet", settings: {} }), verl, 4)).toEqual({});
  });

  it("asks for a recipe", () => {
    expect(Object.keys(validateSubmit(good({ recipe: "" }), undefined, 4))).toEqual(["input.recipe"]);
  });

  it("takes any GPU count from 1 while the group's GPUs are not known", () => {
    expect(validateSubmit(good({ gpusPerNode: "8" }), llamaFactory, null)).toEqual({});
  });
});

describe("submitVariables", () => {
  it("sends only the decisions: no GPUs, settings, recovery or experiment left at their defaults", () => {
    expect(submitVariables("c1", good({ name: " sft-qwen " }), llamaFactory, "k1")).toEqual({
      input: { clusterId: "c1", name: "sft-qwen", recipe: "LLAMA_FACTORY", model: "qwen2.5-0.5b-instruct", datasetPath: "datasets/alpaca/", instanceGroup: "workers", nodes: 2 },
      idempotencyKey: "k1",
    });
  });

  it("sends the GPUs, the settings changed, the recovery given and the experiment", () => {
    const draft = good({
      gpusPerNode: "2",
      settings: { stage: "dpo", learning_rate: "0.0001" },
      recovery: { maxRestarts: "3", windowSeconds: "", maxFullJobRestarts: "0", restartsBeforeFullJobRestart: "", detectHangs: false },
      experiment: " sweeps ",
    });
    const { input } = submitVariables("c1", draft, llamaFactory, "k1");
    expect(input.gpusPerNode).toBe(2);
    expect(input.settings).toEqual([{ key: "stage", value: "dpo" }]);
    expect(input.recovery).toEqual({ maxRestarts: 3, maxFullJobRestarts: 0, detectHangs: false });
    expect(input.experiment).toBe("sweeps");
  });

  it("sends checkpointing only when it is TIERED: S3 is the server's default", () => {
    expect(submitVariables("c1", good({ checkpointing: "TIERED" }), llamaFactory, "k1").input.checkpointing).toBe("TIERED");
    expect("checkpointing" in submitVariables("c1", good({ checkpointing: "S3" }), llamaFactory, "k1").input).toBe(false);
  });

  it("sends a PYTORCH job's script and never a model", () => {
    const { input } = submitVariables("c1", good({ recipe: "PYTORCH", model: "left-over", script: " code/train.py ", settings: {} }), pytorch, "k1");
    expect(input.script).toBe("code/train.py");
    expect("model" in input).toBe(false);
  });
});

describe("submitServerErrors", () => {
  const error = (code: string, message: string, field?: string) => ({ message, extensions: field ? { code, field } : { code } });

  it.each([
    ["PRECONDITION", "input.model", "the shared bucket has no model qwen"],
    ["PRECONDITION", "input.datasetPath", "the shared bucket has nothing at datasets/x/"],
    ["PRECONDITION", "input.recipe", "cluster c has no HyperPod training operator: turn the TRAINING_OPERATOR feature on"],
    ["PRECONDITION", "input.nodes", "instance group workers holds 2 nodes"],
    ["CONFLICT", "input.name", "cluster c has a job named sft-qwen already"],
    ["VALIDATION", "input.recovery.windowSeconds", "the window is 60-604800 seconds"],
    ["VALIDATION", "input.settings.learning_rate", "learning_rate is not a number"],
  ])("puts a %s error about %s at its field", (code, field, message) => {
    expect(submitServerErrors([error(code, message, field)])).toEqual({ [field]: [message] });
  });

  it("puts an error about the i-th setting sent at that setting's field", () => {
    const sent = [{ key: "stage" }, { key: "learning_rate" }];
    expect(submitServerErrors([error("VALIDATION", "bad value", "input.settings[1].value")], sent)).toEqual({ "input.settings.learning_rate": ["bad value"] });
    expect(submitServerErrors([error("VALIDATION", "too many", "input.settings")], sent)).toEqual({ "input.settings": ["too many"] });
  });

  it("puts errors about what the form does not show at the top, naming the field", () => {
    expect(submitServerErrors([error("PRECONDITION", "cluster c has no shared bucket ready", "input.clusterId"), error("FORBIDDEN", "needs OPERATOR")])).toEqual({
      [generalKey]: ["cluster c has no shared bucket ready (input.clusterId)", "needs OPERATOR"],
    });
  });

  it("says when the advanced section holds an error", () => {
    expect(advancedHasErrors({ "input.recovery.maxRestarts": ["x"] })).toBe(true);
    expect(advancedHasErrors({ "input.experiment": ["x"] })).toBe(true);
    expect(advancedHasErrors({ "input.name": ["x"] })).toBe(false);
  });
});

describe("recoveryGiven", () => {
  it("is false for the defaults and true once anything is given", () => {
    const r = blankSubmitDraft().recovery;
    expect(recoveryGiven(r)).toBe(false);
    expect(recoveryGiven({ ...r, maxRestarts: "2" })).toBe(true);
    expect(recoveryGiven({ ...r, detectHangs: false })).toBe(true);
  });
});
