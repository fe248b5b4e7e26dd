import { useEffect } from "react";
import { useQuery } from "urql";
import type { EndpointMetric } from "../gql/graphql";
import { LineChart } from "../jobs/LineChart";
import { ErrorBanner, errorMessages } from "../ui/feedback";
import { EndpointMetricsQuery } from "./documents";

/** How far back the charts go, and how often they are read again. */
const rangeMinutes = 30;
const refreshMs = 15_000;

const charts: { metric: EndpointMetric; title: string; unit?: string }[] = [
  { metric: "REQUESTS_PER_SECOND", title: "Requests", unit: "req/s" },
  { metric: "LATENCY_P50_SECONDS", title: "Latency p50", unit: "s" },
  { metric: "LATENCY_P99_SECONDS", title: "Latency p99", unit: "s" },
  { metric: "TOKENS_PER_SECOND", title: "Tokens", unit: "tokens/s" },
  { metric: "REPLICAS", title: "Replicas" },
];

/**
 * An endpoint's charts over the last 30 minutes, read from the cluster's
 * OBSERVABILITY workspace (endpointMetrics) and read again every 15
 * seconds. Without OBSERVABILITY it says what turning it on gives.
 */
export function EndpointChartsCard({ endpointId, live }: { endpointId: string; live: boolean }) {
  const [{ data, error, fetching }, reread] = useQuery({ query: EndpointMetricsQuery, variables: { endpointId, rangeMinutes }, requestPolicy: "network-only" });
  useEffect(() => {
    if (!live) return;
    const t = setInterval(() => reread({ requestPolicy: "network-only" }), refreshMs);
    return () => clearInterval(t);
  }, [live, reread]);
  const off = error?.graphQLErrors.some((e) => e.extensions?.["code"] === "PRECONDITION" && e.message.includes("OBSERVABILITY")) ?? false;
  const m = data?.endpointMetrics;
  const start = m ? Date.parse(m.start) : 0;
  const points = (metric: EndpointMetric) =>
    (m?.series.find((s) => s.metric === metric)?.points ?? []).map((p) => ({ step: (Date.parse(p.time) - start) / 60_000, value: p.value }));
  return (
    <section className="card" aria-label="Charts">
      <div className="section-head">
        <h2>Charts</h2>
        {m && (
          <span className="muted">
            The last {rangeMinutes} minutes from workspace <code>{m.workspaceId}</code>, a point every {m.stepSeconds} s
          </span>
        )}
      </div>
      {off ? (
        <p className="muted">
          No charts: the cluster's OBSERVABILITY feature is off. Turned on (Features tab), it writes the model servers' metrics to an Amazon Managed
          Service for Prometheus workspace, and this card charts requests a second, p50 and p99 latency, tokens a second and replicas from it.
        </p>
      ) : (
        <>
          {error && <ErrorBanner title="The charts could not be read" messages={errorMessages(error)} />}
          {!m && fetching && <p className="muted">Reading the workspace…</p>}
          {m && (
            <div className="charts">
              {charts.map((c) => (
                <LineChart key={c.metric} title={c.title} {...(c.unit !== undefined && { unit: c.unit })} points={points(c.metric)} xWord="minute" />
              ))}
            </div>
          )}
        </>
      )}
    </section>
  );
}
