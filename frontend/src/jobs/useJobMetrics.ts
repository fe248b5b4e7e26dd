// A job's metrics from its MLflow run, read again while the job runs: on
// an interval that backs off while nothing changes (metricsPolling.ts),
// and at once when the job changes (its record's updatedAt moves).
import { useEffect, useRef, useState } from "react";
import { useClient } from "urql";
import type { JobMetricsQuery as MetricsData } from "../gql/graphql";
import { errorMessages } from "../ui/feedback";
import { JobMetricsQuery } from "./documents";
import { firstDelayMs, isFinalError, metricsMark, nextDelayMs, type ReadOutcome } from "./metricsPolling";

export const metricNames = ["loss", "tokens_per_sec", "learning_rate"];

export interface JobMetrics {
  metrics: MetricsData["jobMetrics"] | null;
  error: string[] | null;
  /** Polling stopped on an error that another read would meet again. */
  stopped: boolean;
}

/**
 * Reads jobId's metrics while enabled (the job reports to MLflow), again
 * and again while running is true, and once more whenever changed moves.
 */
export function useJobMetrics(jobId: string, enabled: boolean, running: boolean, changed: string): JobMetrics {
  const client = useClient();
  const [state, setState] = useState<JobMetrics>({ metrics: null, error: null, stopped: false });
  const mark = useRef("");
  const delay = useRef(firstDelayMs);
  const stopped = state.stopped;

  useEffect(() => {
    if (!enabled || stopped) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const read = async () => {
      const r = await client.query(JobMetricsQuery, { jobId, names: metricNames }, { requestPolicy: "network-only" }).toPromise();
      if (!live) return;
      let outcome: ReadOutcome;
      if (r.data) {
        const m = metricsMark(r.data.jobMetrics.series);
        outcome = m === mark.current ? "same" : "new";
        mark.current = m;
        setState({ metrics: r.data.jobMetrics, error: null, stopped: false });
      } else {
        outcome = "failed";
        const final = r.error ? isFinalError(r.error.graphQLErrors) : false;
        setState((s) => ({ ...s, error: r.error ? errorMessages(r.error) : ["No answer."], stopped: final }));
        if (final) return;
      }
      delay.current = nextDelayMs(delay.current, outcome);
      if (running) timer = setTimeout(() => void read(), delay.current);
    };
    // A change of the job is news: start again from the shortest wait.
    delay.current = firstDelayMs;
    void read();
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [client, jobId, enabled, running, changed, stopped]);
  return state;
}
