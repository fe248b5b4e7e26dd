import { useId, useState, type FormEvent } from "react";
import { signIn, SignInError } from "./session";

/** Exchanges a token for a browser session. */
export function SignInPage({ onSignedIn, notice }: { onSignedIn: () => Promise<void>; notice?: string | undefined }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const tokenId = useId();
  const hintId = useId();
  const errorId = useId();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!token.trim()) {
      setError("Paste a token to sign in.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await signIn(token);
      setToken("");
      await onSignedIn();
    } catch (err) {
      setError(err instanceof SignInError ? err.message : `The server could not be reached: ${String(err)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="signin">
      <form className="card signin-card" onSubmit={submit} noValidate>
        <h1>
          <span className="brand-mark" aria-hidden="true" /> InstantStart
        </h1>
        <p className="muted">Sign in to manage SageMaker HyperPod clusters.</p>
        {notice && <p className="banner banner-info">{notice}</p>}
        <div className="field">
          <label htmlFor={tokenId}>API token</label>
          <input
            id={tokenId}
            type="password"
            autoComplete="current-password"
            autoFocus
            value={token}
            onChange={(e) => setToken(e.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={`${hintId}${error ? ` ${errorId}` : ""}`}
          />
          <p id={hintId} className="hint">
            The first admin token is in <code>&lt;data-dir&gt;/admin-token</code> on the server. Admins create more with the{" "}
            <code>createToken</code> mutation.
          </p>
          {error && (
            <p id={errorId} className="field-error" role="alert">
              {error}
            </p>
          )}
        </div>
        <button className="button button-primary" type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
