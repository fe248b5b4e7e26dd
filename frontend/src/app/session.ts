// The signed-in session that every page reads: who the caller is, the API
// clients of the session, and how to end it.
import { createContext, useContext } from "react";
import type { Api } from "../api/client";
import type { MeQuery } from "../gql/graphql";

export type Me = MeQuery["me"];

export interface Session {
  me: Me;
  api: Api;
  signOut(): Promise<void>;
}

export const SessionContext = createContext<Session | null>(null);

/** The current session; only pages shown when signed in use it. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside a signed-in session");
  return session;
}
