// Browser sessions: a token is exchanged once for an HttpOnly session
// cookie, which then authenticates every request and WebSocket.
import type { Role } from "../gql/graphql";

/** Thrown when the server refuses a sign-in; message says why. */
export class SignInError extends Error {}

/** Exchanges a token for a session cookie (POST /auth/login). */
export async function signIn(token: string): Promise<void> {
  const res = await fetch("/auth/login", {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token: token.trim() }),
  });
  if (res.ok) return;
  throw new SignInError(await errorMessage(res));
}

/** Ends the session and clears its cookie (POST /auth/logout). */
export async function signOut(): Promise<void> {
  await fetch("/auth/logout", { method: "POST", credentials: "same-origin" });
}

async function errorMessage(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { errors?: { message?: string }[] };
    const message = body.errors?.[0]?.message;
    if (message) return message;
  } catch {
    // not JSON: fall through
  }
  return res.status === 401 ? "That token is not valid." : `Sign-in failed (HTTP ${res.status}).`;
}

const rank: Record<Role, number> = { VIEWER: 0, OPERATOR: 1, ADMIN: 2 };

/** Whether a caller with role may do what needs the role need. */
export function allows(role: Role, need: Role): boolean {
  return rank[role] >= rank[need];
}

/** Why a control is disabled for role, or undefined when it is allowed. */
export function deniedReason(role: Role, need: Role): string | undefined {
  return allows(role, need) ? undefined : `Needs the ${need} role; you are signed in as ${role}.`;
}
