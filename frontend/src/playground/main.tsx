// The playground's own page (playground.html): GraphiQL and the Monaco
// editor with its workers, all bundled from npm into this entry's chunks so
// the page works with no internet access and the main app stays as it was.
import "graphiql/setup-workers/vite";
import "graphiql/style.css";
import "./playground.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { Playground } from "./Playground";

createRoot(document.getElementById("playground")!).render(
  <StrictMode>
    <Playground />
  </StrictMode>,
);
