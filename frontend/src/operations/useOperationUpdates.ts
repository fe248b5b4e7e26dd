// Follows one operation live over operationUpdated.
import { useEffect, useState } from "react";
import { useClient } from "urql";
import { isNewer } from "../api/liveRecords";
import type { OperationDetailFragment } from "../gql/graphql";
import { describeStreamError } from "../ui/LiveIndicator";
import { OperationUpdatedSubscription } from "./documents";

type Operation = OperationDetailFragment;

/** The statuses an operation ends in. */
export const terminalStatuses: ReadonlySet<string> = new Set(["SUCCEEDED", "FAILED", "CANCELLED"]);

/**
 * Follows operationUpdated(id) from the moment it is mounted. The server
 * sends the operation's current state first and then each change until it
 * ends, so a reload (or a reconnect after a server restart) just
 * subscribes again. generation starts a new subscription: after a retry,
 * the old one has ended with the operation.
 */
export function useOperationUpdates(id: string, generation: number): { latest: Operation | null; error: string | null } {
  const client = useClient();
  const [latest, setLatest] = useState<Operation | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const sub = client.subscription(OperationUpdatedSubscription, { id }).subscribe((result) => {
      if (result.data) {
        setError(null);
        setLatest(result.data.operationUpdated);
      } else if (result.error) {
        setError(result.error.networkError ? describeStreamError(result.error.networkError) : result.error.graphQLErrors.map((e) => e.message).join("; "));
      }
    });
    return () => sub.unsubscribe();
  }, [client, id, generation]);
  return { latest, error };
}

/** The newest of the states at hand. */
export function newestState(...states: (Operation | null | undefined)[]): Operation | null {
  let out: Operation | null = null;
  for (const s of states) if (s && (!out || isNewer(s, out))) out = s;
  return out;
}
