// Kubernetes labels and taints of an instance group as the forms edit them:
// rows of text, checked as the server checks them (engine/compute's
// labelKeyPattern and labelValuePattern), and compared as sets, as the
// server compares them, so that reordering rows changes nothing.
import type { KubernetesLabelInput, TaintEffect, TaintInput } from "../gql/graphql";

export interface LabelRow {
  /** A stable key for React; not sent. */
  row: string;
  key: string;
  value: string;
}

export interface TaintRow {
  row: string;
  key: string;
  value: string;
  effect: TaintEffect;
}

export const taintEffects: readonly TaintEffect[] = ["NO_SCHEDULE", "PREFER_NO_SCHEDULE", "NO_EXECUTE"];

export const taintEffectWords: Record<TaintEffect, string> = {
  NO_SCHEDULE: "NoSchedule",
  PREFER_NO_SCHEDULE: "PreferNoSchedule",
  NO_EXECUTE: "NoExecute",
};

// An optional DNS prefix and a name of up to 63 characters.
const keyPattern = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const valuePattern = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
const reservedPrefix = "sagemaker.amazonaws.com/";

let rows = 0;

/** A fresh row key. */
export function rowKey(): string {
  return `r${++rows}`;
}

function blank(r: { key: string; value: string }): boolean {
  return r.key.trim() === "" && r.value.trim() === "";
}

/** The problems of the label rows; blank rows are ignored. */
export function checkLabels(labels: readonly LabelRow[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const l of labels) {
    if (blank(l)) continue;
    const key = l.key.trim();
    const value = l.value.trim();
    if (key === "") out.push(`The label with value ${value} has no key: give it one, or clear the row.`);
    else if (!keyPattern.test(key)) out.push(`Label key ${key} is not valid: use [prefix/]name, up to 63 letters, digits, '-', '_' or '.' in the name.`);
    else if (key.startsWith(reservedPrefix)) out.push(`Label key ${key} uses the ${reservedPrefix} prefix, which is HyperPod's own.`);
    if (!valuePattern.test(value)) out.push(`The value of label ${key} is not valid: up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit.`);
    if (key !== "" && seen.has(key)) out.push(`Label ${key} is given twice: give each key once.`);
    seen.add(key);
  }
  return out;
}

/** The problems of the taint rows; blank rows are ignored. */
export function checkTaints(taints: readonly TaintRow[]): string[] {
  const out: string[] = [];
  for (const t of taints) {
    if (blank(t)) continue;
    const key = t.key.trim();
    if (key === "") out.push(`The taint with value ${t.value.trim()} has no key: give it one, or clear the row.`);
    else if (!keyPattern.test(key)) out.push(`Taint key ${key} is not valid: use [prefix/]name, up to 63 letters, digits, '-', '_' or '.' in the name.`);
    if (!valuePattern.test(t.value.trim())) out.push(`The value of taint ${key} is not valid: up to 63 letters, digits, '-', '_' or '.'.`);
  }
  return out;
}

/** The labels to send: trimmed, blank rows left out. */
export function labelInputs(labels: readonly LabelRow[]): KubernetesLabelInput[] {
  return labels.filter((l) => !blank(l)).map((l) => ({ key: l.key.trim(), value: l.value.trim() }));
}

/** The taints to send: trimmed, blank rows left out, an empty value absent. */
export function taintInputs(taints: readonly TaintRow[]): TaintInput[] {
  return taints
    .filter((t) => !blank(t))
    .map((t) => {
      const value = t.value.trim();
      return value === "" ? { key: t.key.trim(), effect: t.effect } : { key: t.key.trim(), value, effect: t.effect };
    });
}

/** Rows of the labels a group has. */
export function labelRows(labels: readonly { key: string; value: string }[]): LabelRow[] {
  return labels.map((l) => ({ row: rowKey(), key: l.key, value: l.value }));
}

/** Rows of the taints a group has. */
export function taintRows(taints: readonly { key: string; value: string | null; effect: TaintEffect }[]): TaintRow[] {
  return taints.map((t) => ({ row: rowKey(), key: t.key, value: t.value ?? "", effect: t.effect }));
}

/** Whether two label sets are the same, whatever their order. */
export function sameLabels(a: readonly { key: string; value: string }[], b: readonly { key: string; value: string }[]): boolean {
  return sameStrings(
    a.map((l) => `${l.key}=${l.value}`),
    b.map((l) => `${l.key}=${l.value}`),
  );
}

/** Whether two taint sets are the same, whatever their order; no value and an empty one are the same. */
export function sameTaints(
  a: readonly { key: string; value?: string | null; effect: TaintEffect }[],
  b: readonly { key: string; value?: string | null; effect: TaintEffect }[],
): boolean {
  const text = (t: { key: string; value?: string | null; effect: TaintEffect }) => `${t.key}=${t.value ?? ""}:${t.effect}`;
  return sameStrings(a.map(text), b.map(text));
}

/** Whether two lists hold the same strings as many times each, whatever their order. */
export function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const x = [...a].sort();
  const y = [...b].sort();
  return x.every((v, i) => v === y[i]);
}
