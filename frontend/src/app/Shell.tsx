import { useEffect, type ReactNode } from "react";
import { ClusterDetailPage, clusterTabs, type ClusterTab } from "../clusters/ClusterDetailPage";
import { ClustersPage } from "../clusters/ClustersPage";
import { CreateClusterPage } from "../clusters/CreateClusterPage";
import { DeployEndpointPage } from "../endpoints/DeployEndpointPage";
import { EndpointPage, EndpointRedirect } from "../endpoints/EndpointPage";
import { AddInstanceGroupPage } from "../instanceGroups/AddInstanceGroupPage";
import { InstanceGroupPage, InstanceGroupRedirect } from "../instanceGroups/InstanceGroupPage";
import { JobPage } from "../jobs/JobPage";
import { SubmitJobPage } from "../jobs/SubmitJobPage";
import { OperationPage } from "../operations/OperationPage";
import { OperationsPage } from "../operations/OperationsPage";
import { EmptyState } from "../ui/feedback";
import { Link, matchPath, navigate } from "./router";
import { useSession } from "./session";

/** The signed-in layout: the header with navigation and the caller, and the page. */
export function Shell({ path }: { path: string }) {
  const { me, signOut } = useSession();
  const section = path.startsWith("/operations") ? "operations" : "clusters";
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/clusters" className="brand">
          <span className="brand-mark" aria-hidden="true" /> InstantStart
        </Link>
        <nav aria-label="Main">
          <Link to="/clusters" aria-current={section === "clusters" ? "page" : undefined}>
            Clusters
          </Link>
          <Link to="/operations" aria-current={section === "operations" ? "page" : undefined}>
            Operations
          </Link>
        </nav>
        <div className="whoami">
          <span className="whoami-name" title={`Signed in by ${me.via === "cookie" ? "a browser session" : "a bearer token"}`}>
            {me.name}
          </span>
          <span className={`role role-${me.role.toLowerCase()}`}>{me.role}</span>
          <button className="button button-quiet" type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" className="page">
        <Page path={path} />
      </main>
    </>
  );
}

function Page({ path }: { path: string }): ReactNode {
  let m: Record<string, string> | null;
  if (matchPath("/", path)) return <Redirect to="/clusters" />;
  if (matchPath("/clusters", path)) return <ClustersPage />;
  if (matchPath("/clusters/new", path)) return <CreateClusterPage />;
  if ((m = matchPath("/clusters/:id", path))) return <ClusterDetailPage key={m.id} id={m.id!} tab="overview" />;
  if ((m = matchPath("/clusters/:id/:tab", path)) && clusterTabs.includes(m.tab as ClusterTab)) {
    return <ClusterDetailPage key={m.id} id={m.id!} tab={m.tab as ClusterTab} />;
  }
  if ((m = matchPath("/clusters/:id/instance-groups/new", path))) return <AddInstanceGroupPage key={m.id} clusterId={m.id!} />;
  if ((m = matchPath("/clusters/:id/instance-groups/:groupId", path))) return <InstanceGroupPage key={m.groupId} clusterId={m.id!} id={m.groupId!} />;
  if ((m = matchPath("/clusters/:id/jobs/new", path))) return <SubmitJobPage key={m.id} clusterId={m.id!} />;
  if ((m = matchPath("/clusters/:id/jobs/:jobId", path))) return <JobPage key={m.jobId} clusterId={m.id!} id={m.jobId!} />;
  if ((m = matchPath("/clusters/:id/endpoints/new", path))) return <DeployEndpointPage key={m.id} clusterId={m.id!} />;
  if ((m = matchPath("/clusters/:id/endpoints/:endpointId", path))) return <EndpointPage key={m.endpointId} clusterId={m.id!} id={m.endpointId!} />;
  if ((m = matchPath("/instance-groups/:id", path))) return <InstanceGroupRedirect key={m.id} id={m.id!} />;
  if ((m = matchPath("/endpoints/:id", path))) return <EndpointRedirect key={m.id} id={m.id!} />;
  if (matchPath("/operations", path)) return <OperationsPage path={path} />;
  if ((m = matchPath("/operations/:id", path))) return <OperationPage key={m.id} id={m.id!} />;
  if (matchPath("/signin", path)) return null; // App sends a signed-in user on
  return (
    <EmptyState title="No such page">
      <p>
        Nothing lives at <code>{path}</code>. Go to the <Link to="/clusters">clusters</Link> or the{" "}
        <Link to="/operations">operations</Link>.
      </p>
    </EmptyState>
  );
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}
