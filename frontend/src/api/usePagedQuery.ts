// A cluster's list query read a page at a time: on from a page by its end
// cursor, or back to the first page.
import { useCallback, useState } from "react";
import { useQuery, type UseQueryExecute, type UseQueryState } from "urql";
import type { TypedDocumentNode } from "@urql/core";

/** How many records a page lists. */
const pageSize = 50;

/** The paging a page of a list offers. */
export interface Paging {
  /** Which page this is, from 1. */
  page: number;
  /** Whether a page follows this one. */
  hasNextPage: boolean;
  nextPage: () => void;
  firstPage: () => void;
}

export interface PagedQuery<Q> extends Paging {
  list: UseQueryState<Q>;
  reexecute: UseQueryExecute;
  /** Reads the page again now. */
  reload: () => void;
}

/**
 * Reads query (it takes $clusterId, $first and $after) for cluster
 * clusterId, not while pause is true. pageInfo finds the page's paging in
 * the answer.
 */
export function usePagedQuery<Q>(
  query: TypedDocumentNode<Q, { clusterId: string; first: number; after?: string | null }>,
  clusterId: string,
  pause: boolean,
  pageInfo: (data: Q) => { hasNextPage: boolean; endCursor: string | null },
): PagedQuery<Q> {
  const [start, setStart] = useState<{ after: string | null; page: number }>({ after: null, page: 1 });
  const [list, reexecute] = useQuery({
    query,
    variables: { clusterId, first: pageSize, after: start.after },
    pause,
    requestPolicy: "cache-and-network",
  });
  const info = list.data ? pageInfo(list.data) : undefined;
  const nextPage = useCallback(() => {
    if (info?.hasNextPage && info.endCursor) setStart((s) => ({ after: info.endCursor!, page: s.page + 1 }));
  }, [info]);
  const firstPage = useCallback(() => setStart({ after: null, page: 1 }), []);
  const reload = useCallback(() => reexecute({ requestPolicy: "network-only" }), [reexecute]);
  return { list, reexecute, reload, page: start.page, hasNextPage: info?.hasNextPage ?? false, nextPage, firstPage };
}
