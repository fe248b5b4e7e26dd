// A recipe's settings as the submit form shows them, read from
// trainingRecipes: a choice where the recipe allows only some values, a
// number where it takes an INT or a FLOAT, text otherwise; each starting at
// the recipe's default. Only the settings changed from their default are
// sent: the server fills in the rest, as the job's settings then show.

/** A setting as trainingRecipes describes it. */
export interface SettingInfo {
  key: string;
  description: string;
  default: string;
  allowed: readonly string[];
  type: string;
}

/** How a setting is asked. */
export type SettingControl =
  | { kind: "select"; options: readonly string[] }
  | { kind: "number"; step: "1" | "any" }
  | { kind: "text" };

/** The control a setting is asked with. */
export function settingControl(info: SettingInfo): SettingControl {
  if (info.allowed.length > 0) {
    // The default is a choice even if the list forgot it.
    const options = info.allowed.includes(info.default) || info.default === "" ? info.allowed : [info.default, ...info.allowed];
    return { kind: "select", options };
  }
  if (info.type === "INT") return { kind: "number", step: "1" };
  if (info.type === "FLOAT") return { kind: "number", step: "any" };
  return { kind: "text" };
}

/** The values of a recipe's settings before anything is changed: the defaults. */
export function defaultSettings(infos: readonly SettingInfo[]): Record<string, string> {
  return Object.fromEntries(infos.map((i) => [i.key, i.default]));
}

/** The field path of a setting, for its input and its errors. */
export function settingPath(key: string): string {
  return `input.settings.${key}`;
}

const intPattern = /^[+-]?\d+$/;
const floatPattern = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** What is wrong with value for the setting, or null when the server takes it. */
export function settingProblem(info: SettingInfo, value: string): string | null {
  const v = value.trim();
  if (v === "") return info.default === "" ? null : `Give ${info.key} a value, or leave its default (${info.default}).`;
  if (info.allowed.length > 0 && !info.allowed.includes(v) && v !== info.default) {
    return `${info.key} takes one of ${info.allowed.join(", ")}.`;
  }
  if (info.type === "INT" && !intPattern.test(v)) return `${info.key} is a whole number, for example ${info.default || "1"}.`;
  if (info.type === "FLOAT" && !floatPattern.test(v)) return `${info.key} is a number, for example ${info.default || "0.0001"}.`;
  return null;
}

/** The settings to send: those changed from their default, in the recipe's order. */
export function settingsToSend(infos: readonly SettingInfo[], values: Readonly<Record<string, string>>): { key: string; value: string }[] {
  const out: { key: string; value: string }[] = [];
  for (const info of infos) {
    const v = (values[info.key] ?? info.default).trim();
    if (v !== info.default) out.push({ key: info.key, value: v });
  }
  return out;
}
