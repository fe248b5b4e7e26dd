// A GraphiQL sidebar panel listing the saved example operations; choosing
// one opens it in a new tab, so the examples stay at hand after the first
// visit (GraphiQL's own tabs are kept in localStorage).
import { pick, useGraphiQL, useGraphiQLActions, type GraphiQLPlugin } from "@graphiql/react";
import { examples, type Example } from "./examples";

function ExamplesIcon() {
  return (
    <svg viewBox="0 0 24 24" width="1em" height="1em" fill="none" stroke="currentColor" strokeWidth="1.5" aria-hidden="true">
      <path d="M4 5.5A1.5 1.5 0 0 1 5.5 4H10l2 2h6.5A1.5 1.5 0 0 1 20 7.5v11a1.5 1.5 0 0 1-1.5 1.5h-13A1.5 1.5 0 0 1 4 18.5z" />
      <path d="M8 11h8M8 15h5" />
    </svg>
  );
}

function ExamplesContent() {
  const { addTab } = useGraphiQLActions();
  const { queryEditor, variableEditor } = useGraphiQL(pick("queryEditor", "variableEditor"));

  const open = (example: Example) => {
    addTab();
    // addTab has emptied the editors; filling them updates the new tab.
    queryEditor?.setValue(example.query);
    variableEditor?.setValue(example.variables ?? "");
  };

  return (
    <section className="pg-examples" aria-labelledby="pg-examples-title">
      <h2 id="pg-examples-title" className="graphiql-doc-explorer-title">
        Examples
      </h2>
      <p className="pg-examples-hint">Each opens in a new tab. Subscriptions run over the WebSocket.</p>
      <ul>
        {examples.map((ex) => (
          <li key={ex.title}>
            <button type="button" onClick={() => open(ex)}>
              <span className="pg-examples-name">{ex.title}</span>
              <span className="pg-examples-description">{ex.description}</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

export const examplesPlugin: GraphiQLPlugin = {
  title: "Examples",
  icon: ExamplesIcon,
  content: ExamplesContent,
};
