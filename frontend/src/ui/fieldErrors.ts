// Errors of a form, keyed by the server's field paths (input.name,
// input.instanceGroups[0].count), so that the client's checks and the
// server's errors (extensions.field) land next to the same field.

/** Error messages by field path; generalKey collects those that concern no field. */
export type FieldErrors = Record<string, string[]>;

export const generalKey = "";

/** Adds message to the errors of key. */
export function addError(errors: FieldErrors, key: string, message: string): void {
  (errors[key] ??= []).push(message);
}

/** Whether errors has any message. */
export function hasErrors(errors: FieldErrors): boolean {
  return Object.values(errors).some((m) => m.length > 0);
}

/** Field errors without those of key, as after the user changed that field. */
export function clearField(errors: FieldErrors, key: string): FieldErrors {
  if (!(key in errors)) return errors;
  const rest = { ...errors };
  delete rest[key];
  return rest;
}

/** A GraphQL error as the server sends it. */
export interface ServerError {
  message: string;
  extensions?: { code?: unknown; field?: unknown } | Record<string, unknown>;
}

/**
 * Sorts the server's errors onto a form's fields. formKey says which key
 * of the form a field path belongs to, or generalKey for a field the form
 * does not show; an error there names its field, so it still says where.
 */
export function sortServerErrors(errors: readonly ServerError[], formKey: (field: string) => string): FieldErrors {
  const out: FieldErrors = {};
  for (const e of errors) {
    const field = typeof e.extensions?.field === "string" ? e.extensions.field : "";
    const key = field ? formKey(field) : generalKey;
    addError(out, key, key === generalKey && field ? `${e.message} (${field})` : e.message);
  }
  return out;
}

/** A whole number as typed, or null when it is not one. */
export function parseWhole(text: string): number | null {
  const t = text.trim();
  return /^-?\d+$/.test(t) ? Number(t) : null;
}

/** A fresh key for a request, so that a retried submit starts one operation. */
export function newIdempotencyKey(): string {
  return typeof crypto.randomUUID === "function"
    ? crypto.randomUUID()
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}
