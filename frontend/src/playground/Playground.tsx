// The playground page: GraphiQL on the session of the web UI. It asks who
// the caller is first; without a session it says to sign in at / instead.
import { useEffect, useState, type ReactNode } from "react";
import { GraphiQL, HISTORY_PLUGIN } from "graphiql";
import { checkSession, createConnection, type Connection, type Me, type SessionCheck } from "./connection";
import { examples } from "./examples";
import { examplesPlugin } from "./ExamplesPlugin";

// The examples are the tabs of a first visit; later visits keep the tabs
// the user left (GraphiQL stores them), and the Examples panel reopens any.
const defaultTabs = examples.map(({ query, variables }) => ({ query, variables: variables ?? null }));

export function Playground() {
  const [check, setCheck] = useState<SessionCheck | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    setCheck(null);
    void checkSession().then((c) => {
      if (live) setCheck(c);
    });
    return () => {
      live = false;
    };
  }, [attempt]);

  if (check === null) {
    return (
      <Notice title="GraphQL playground">
        <p>Checking your session…</p>
      </Notice>
    );
  }
  if (check.kind === "signed-out") {
    return (
      <Notice title="Sign in first">
        <p>
          The playground runs operations as you, with the session of the web UI. <a href="/">Sign in</a> with your
          token, then come back to <a href="/playground">/playground</a>.
        </p>
      </Notice>
    );
  }
  if (check.kind === "error") {
    return (
      <Notice title="The playground cannot start">
        <p>{check.message}</p>
        <p>
          <button type="button" onClick={() => setAttempt((n) => n + 1)}>
            Try again
          </button>
        </p>
      </Notice>
    );
  }
  return <Workbench me={check.me} />;
}

function Workbench({ me }: { me: Me }) {
  const [ended, setEnded] = useState(false);
  const [connection, setConnection] = useState<Connection | null>(null);

  useEffect(() => {
    const c = createConnection(() => setEnded(true));
    setConnection(c);
    return () => c.dispose();
  }, []);

  if (!connection) return null;
  return (
    <div className="pg-page">
      {ended && (
        <div className="pg-banner" role="alert">
          Your session has ended, so operations are refused. <a href="/">Sign in again</a>, then reload this page.
        </div>
      )}
      <div className="pg-graphiql">
        <GraphiQL
          fetcher={connection.fetcher}
          defaultTabs={defaultTabs}
          plugins={[HISTORY_PLUGIN, examplesPlugin]}
          isHeadersEditorEnabled={false}
          defaultEditorToolsVisibility="variables"
        >
          <GraphiQL.Logo>
            <a className="pg-logo" href="/">
              InstantStart
            </a>
          </GraphiQL.Logo>
          <GraphiQL.Footer>
            <div className="pg-footer">
              Signed in as <strong>{me.name}</strong> ({me.role}) with the session cookie
            </div>
          </GraphiQL.Footer>
        </GraphiQL>
      </div>
    </div>
  );
}

function Notice({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="pg-notice">
      <h1>{title}</h1>
      {children}
    </main>
  );
}
