import { describe, expect, it } from "vitest";
import { defaultSettings, settingControl, settingPath, settingProblem, settingsToSend, type SettingInfo } from "./recipeSettings";

const setting = (key: string, type: string, def: string, allowed: string[] = []): SettingInfo => ({ key, description: `${key} does this.`, default: def, allowed, type });

const llamaFactory = [
  setting("stage", "STRING", "sft", ["pt", "sft", "rm", "dpo", "kto", "ppo"]),
  setting("finetuning_type", "STRING", "lora", ["lora", "freeze", "full"]),
  setting("num_train_epochs", "INT", "3"),
  setting("learning_rate", "FLOAT", "0.0001"),
  setting("template", "STRING", "qwen"),
];

describe("settingControl", () => {
  it.each([
    [llamaFactory[0]!, { kind: "select", options: ["pt", "sft", "rm", "dpo", "kto", "ppo"] }],
    [llamaFactory[2]!, { kind: "number", step: "1" }],
    [llamaFactory[3]!, { kind: "number", step: "any" }],
    [llamaFactory[4]!, { kind: "text" }],
  ])("asks %s with %j", (info, want) => {
    expect(settingControl(info)).toEqual(want);
  });

  it("offers the default among the choices even when the allowed values leave it out", () => {
    expect(settingControl(setting("mode", "STRING", "auto", ["a", "b"]))).toEqual({ kind: "select", options: ["auto", "a", "b"] });
  });
});

describe("defaultSettings", () => {
  it("starts every setting at its default", () => {
    expect(defaultSettings(llamaFactory)).toEqual({ stage: "sft", finetuning_type: "lora", num_train_epochs: "3", learning_rate: "0.0001", template: "qwen" });
  });
});

describe("settingProblem", () => {
  it.each([
    ["stage", "dpo"],
    ["num_train_epochs", "10"],
    ["num_train_epochs", "-1"],
    ["learning_rate", "2e-5"],
    ["learning_rate", ".5"],
    ["learning_rate", "3"],
    ["template", "llama3"],
  ])("takes %s = %s", (key, value) => {
    expect(settingProblem(llamaFactory.find((s) => s.key === key)!, value)).toBeNull();
  });

  it("takes an empty value where the default is empty (an optional setting)", () => {
    expect(settingProblem(setting("reward_model", "STRING", ""), "")).toBeNull();
  });

  it.each([
    ["stage", "grpo", /one of pt, sft, rm, dpo, kto, ppo/],
    ["num_train_epochs", "2.5", /whole number/],
    ["num_train_epochs", "three", /whole number/],
    ["learning_rate", "1e", /is a number/],
    ["learning_rate", "fast", /is a number/],
    ["template", " ", /Give template a value/],
  ])("refuses %s = %j", (key, value, want) => {
    expect(settingProblem(llamaFactory.find((s) => s.key === key)!, value)).toMatch(want);
  });
});

describe("settingsToSend", () => {
  it("sends nothing when every setting is at its default", () => {
    expect(settingsToSend(llamaFactory, defaultSettings(llamaFactory))).toEqual([]);
  });

  it("sends what changed, trimmed, in the recipe's order", () => {
    const values = { ...defaultSettings(llamaFactory), learning_rate: " 2e-5 ", stage: "dpo" };
    expect(settingsToSend(llamaFactory, values)).toEqual([
      { key: "stage", value: "dpo" },
      { key: "learning_rate", value: "2e-5" },
    ]);
  });

  it("takes a setting missing from the values as its default", () => {
    expect(settingsToSend(llamaFactory, {})).toEqual([]);
  });
});

describe("settingPath", () => {
  it("names the setting's field under input.settings", () => {
    expect(settingPath("learning_rate")).toBe("input.settings.learning_rate");
  });
});
