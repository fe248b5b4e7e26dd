// Loading, error and empty states, alike on every page.
import type { ReactNode } from "react";
import type { CombinedError } from "@urql/core";

/** The messages of a failed request, as a person should read them. */
export function errorMessages(error: CombinedError): string[] {
  if (error.networkError) {
    return [`The server could not be reached (${error.networkError.message}). Check that InstantStart is running and the port-forward is up.`];
  }
  return error.graphQLErrors.map((e) => e.message);
}

export function Loading({ what }: { what: string }) {
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      Loading {what}…
    </div>
  );
}

export function ErrorBanner({ title, messages, children }: { title: string; messages: string[]; children?: ReactNode }) {
  return (
    <div className="banner banner-error" role="alert">
      <strong>{title}</strong>
      {messages.length === 1 ? (
        <p>{messages[0]}</p>
      ) : (
        <ul>
          {messages.map((m, i) => (
            <li key={i}>{m}</li>
          ))}
        </ul>
      )}
      {children}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <h2>{title}</h2>
      {children}
    </div>
  );
}
