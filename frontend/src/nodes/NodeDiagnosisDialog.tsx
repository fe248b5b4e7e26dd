import type { ReactNode } from "react";
import { useQuery } from "urql";
import type { NodeNextStep } from "../gql/graphql";
import { Dialog } from "../ui/Dialog";
import { ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import type { Tone } from "../ui/status";
import { StatusBadge } from "../ui/StatusBadge";
import { formatTime } from "../ui/time";
import { NodeDiagnosisQuery } from "./documents";

const nextStepWords: Record<NodeNextStep, string> = {
  NONE: "Nothing to do",
  INSPECT: "Wait and look again",
  REBOOT: "Reboot the node",
  REPLACE: "Replace the node",
};

// The escalation in the status tones: nothing, wait, a soft fault, a hard one.
const nextStepTone: Record<NodeNextStep, Tone> = {
  NONE: "ok",
  INSPECT: "neutral",
  REBOOT: "warn",
  REPLACE: "bad",
};

/** The evidence about one node and the next step it calls for. Reading it changes nothing. */
export function NodeDiagnosisDialog({ nodeId, onClose }: { nodeId: string; onClose: () => void }) {
  const [{ data, error, fetching }, rerun] = useQuery({ query: NodeDiagnosisQuery, variables: { id: nodeId }, requestPolicy: "network-only" });
  const d = data?.nodeDiagnosis;
  return (
    <Dialog title={`Diagnose ${nodeId}`} onClose={onClose} wide>
      {error && !d ? (
        <ErrorBanner title="The node could not be diagnosed" messages={errorMessages(error)} />
      ) : !d ? (
        <Loading what="the diagnosis" />
      ) : (
        <div className="diagnosis" aria-busy={fetching}>
          <div className={`next-step tone-${nextStepTone[d.nextStep]}`}>
            <p className="strong">Next step: {nextStepWords[d.nextStep]}</p>
            <p>{d.reason}</p>
          </div>
          <dl className="meta">
            <Item label="Status">
              <StatusBadge status={d.node.status} kind="node" />
              {d.node.statusMessage && <div className="cell-note">{d.node.statusMessage}</div>}
            </Item>
            <Item label="Health">
              <StatusBadge status={d.node.health} />
            </Item>
            <Item label="Deep health check">
              <StatusBadge status={d.node.deepHealthCheck} />
              {d.failedChecks.length > 0 && <div className="cell-note cell-error">Failed: {d.failedChecks.join(", ")}</div>}
            </Item>
            <Item label="Automatic node recovery">{d.autoRecovery ? "On: HyperPod reboots or replaces faulty nodes itself" : "Off"}</Item>
            <Item label="Group">{d.node.instanceGroupName}</Item>
            <Item label="Kubernetes node">{d.node.kubernetesNodeName ? <code>{d.node.kubernetesNodeName}</code> : "not joined"}</Item>
          </dl>
          <h3>Findings</h3>
          {d.findings.length === 0 ? (
            <p className="muted">None.</p>
          ) : (
            <ul>
              {d.findings.map((f, i) => (
                <li key={i}>{f}</li>
              ))}
            </ul>
          )}
          <h3>Recent cluster events about the node</h3>
          {d.recentEvents.length === 0 ? (
            <p className="muted">None in the last day.</p>
          ) : (
            <div className="table-wrap dialog-list">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Level</th>
                    <th scope="col">What happened</th>
                  </tr>
                </thead>
                <tbody>
                  {d.recentEvents.map((e, i) => (
                    <tr key={i}>
                      <td>{formatTime(e.time)}</td>
                      <td className={e.level === "Error" ? "cell-error" : undefined}>{e.level}</td>
                      <td>{e.description}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <p className="hint">
            The diagnosis only reads. To act on it, select the node and use Reboot or Replace; escalate in that order.
          </p>
        </div>
      )}
      <div className="form-actions">
        <button type="button" className="button" disabled={fetching} onClick={() => rerun({ requestPolicy: "network-only" })}>
          {fetching ? "Looking…" : "Look again"}
        </button>
        <button type="button" className="button button-quiet" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
