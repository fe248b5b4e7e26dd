// A labelled form control with its hint and its errors, the client's or the
// server's, wired for screen readers. Forms key errors by field path.
import { useEffect, useRef, type ReactNode } from "react";
import type { FieldErrors } from "./fieldErrors";

/** The id of the input of a field path, for labels, focus and tests. */
export function inputId(path: string): string {
  return `f-${path.replace(/[^a-zA-Z0-9]+/g, "-")}`;
}

export interface ControlProps {
  id: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string | undefined;
}

interface FieldProps {
  path: string;
  label: string;
  hint?: ReactNode;
  errors: FieldErrors;
  children: (props: ControlProps) => ReactNode;
}

export function Field({ path, label, hint, errors, children }: FieldProps) {
  const id = inputId(path);
  const messages = errors[path];
  const describedBy = [hint ? `${id}-hint` : "", messages ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, "aria-invalid": messages ? true : undefined, "aria-describedby": describedBy })}
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
      <FieldErrorList id={`${id}-error`} messages={messages} />
    </div>
  );
}

/** A Field holding a whole number from min to max, as typed. */
export function WholeNumberField({
  min,
  max,
  value,
  onChange,
  ...field
}: Omit<FieldProps, "children"> & { min: number; max: number; value: string; onChange: (value: string) => void }) {
  return (
    <Field {...field}>
      {(props) => (
        <input {...props} type="number" inputMode="numeric" min={min} max={max} step={1} value={value} onChange={(e) => onChange(e.target.value)} />
      )}
    </Field>
  );
}

export function FieldErrorList({ id, messages }: { id?: string; messages: string[] | undefined }) {
  if (!messages || messages.length === 0) return null;
  return (
    <div id={id} className="field-error" role="alert">
      {messages.map((m, i) => (
        <p key={i}>{m}</p>
      ))}
    </div>
  );
}

/** The banner of errors that concern no one field, at the top of a form. */
export function FormErrors({ title, messages }: { title: string; messages: string[] | undefined }) {
  if (!messages || messages.length === 0) return null;
  return (
    <div className="banner banner-error form-errors" role="alert" tabIndex={-1}>
      <strong>{title}</strong>
      <ul>
        {messages.map((m, i) => (
          <li key={i}>{m}</li>
        ))}
      </ul>
    </div>
  );
}

/**
 * After each failed submit (attempt counts them), takes the keyboard to the
 * first field with an error, or to the banner of general errors.
 */
export function useFocusFirstError(attempt: number) {
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (attempt === 0) return;
    formRef.current?.querySelector<HTMLElement>("[aria-invalid='true'], .form-errors")?.focus();
  }, [attempt]);
  return formRef;
}
