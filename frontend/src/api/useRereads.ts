// Reads a query again when events say that what it shows changed. Reads
// never overlap: changes seen during one make one more read after it, and
// nothing is read again before the first answer.
import { useCallback, useEffect, useRef, useState } from "react";
import type { UseQueryExecute } from "urql";

export interface Rereads {
  /** How many changes have been seen so far. */
  changes: number;
  /** Notes a change the query's answer may not show yet. */
  changed: () => void;
}

/** loaded and fetching are the query's; reexecute reads it again. */
export function useRereads(loaded: boolean, fetching: boolean, reexecute: UseQueryExecute): Rereads {
  const [changes, setChanges] = useState(0);
  // How many of the changes the last read covers.
  const asked = useRef(0);
  useEffect(() => {
    if (!loaded || fetching || changes <= asked.current) return;
    asked.current = changes;
    reexecute({ requestPolicy: "network-only" });
  }, [changes, loaded, fetching, reexecute]);
  const changed = useCallback(() => setChanges((n) => n + 1), []);
  return { changes, changed };
}
