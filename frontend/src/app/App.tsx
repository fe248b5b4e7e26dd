import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Provider } from "urql";
import { createApi, type Api } from "../api/client";
import { MeQuery } from "../auth/documents";
import { signOut } from "../auth/session";
import { SignInPage } from "../auth/SignInPage";
import { Loading, ErrorBanner } from "../ui/feedback";
import { navigate, queryParam, safeNext, useLocationPath } from "./router";
import { SessionContext, type Me, type Session } from "./session";
import { Shell } from "./Shell";

type State =
  | { status: "checking" }
  | { status: "signedOut"; notice?: string }
  | { status: "unreachable"; message: string }
  | { status: "signedIn"; me: Me };

/**
 * Finds out who the browser is signed in as, shows the sign-in page when
 * nobody is, and the app otherwise. Any 401 from the server (the session
 * expired or its token was revoked) comes back to the sign-in page, which
 * then returns to where the user was.
 */
export function App() {
  const [state, setState] = useState<State>({ status: "checking" });
  const path = useLocationPath();
  const apiRef = useRef<Api | null>(null);
  const [api, setApi] = useState<Api | null>(null);

  const endSession = useCallback((notice?: string) => {
    apiRef.current?.dispose();
    apiRef.current = null;
    setApi(null);
    setState(notice ? { status: "signedOut", notice } : { status: "signedOut" });
  }, []);

  const load = useCallback(async () => {
    apiRef.current?.dispose();
    let established = false; // a 401 before that is just "not signed in"
    const next = createApi(() => {
      if (established && apiRef.current === next) endSession("Your session ended. Sign in again to continue.");
    });
    apiRef.current = next;
    const result = await next.client.query(MeQuery, {}, { requestPolicy: "network-only" }).toPromise();
    if (apiRef.current !== next) return;
    if (result.data) {
      established = true;
      setApi(next);
      setState({ status: "signedIn", me: result.data.me });
    } else if (result.error?.response?.status === 401 || result.error?.graphQLErrors.some((e) => e.extensions.code === "UNAUTHENTICATED")) {
      endSession();
    } else {
      setState({ status: "unreachable", message: result.error?.message ?? "no answer" });
    }
  }, [endSession]);

  useEffect(() => {
    void load();
    return () => apiRef.current?.dispose();
  }, [load]);

  // The URL says where the user is: /signin?next=... while signed out.
  useEffect(() => {
    if (state.status === "signedOut" && !path.startsWith("/signin")) {
      const back = path === "/" ? "" : `?next=${encodeURIComponent(path)}`;
      navigate(`/signin${back}`, { replace: true });
    }
    if (state.status === "signedIn" && path.startsWith("/signin")) {
      navigate(safeNext(queryParam(path, "next")), { replace: true });
    }
  }, [state.status, path]);

  const session = useMemo<Session | null>(
    () =>
      state.status === "signedIn" && api
        ? {
            me: state.me,
            api,
            signOut: async () => {
              await signOut().catch(() => undefined);
              endSession();
            },
          }
        : null,
    [state, api, endSession],
  );

  switch (state.status) {
    case "checking":
      return <Loading what="InstantStart" />;
    case "unreachable":
      return (
        <main className="signin">
          <ErrorBanner title="InstantStart could not be reached" messages={[state.message]}>
            <button className="button" type="button" onClick={() => void load()}>
              Try again
            </button>
          </ErrorBanner>
        </main>
      );
    case "signedOut":
      return <SignInPage onSignedIn={load} notice={state.notice} />;
    case "signedIn":
      if (!session) return <Loading what="InstantStart" />;
      return (
        <Provider value={session.api.client}>
          <SessionContext.Provider value={session}>
            <Shell path={path} />
          </SessionContext.Provider>
        </Provider>
      );
  }
}
