// Loading every node of a cluster, a page of the nodes query at a time,
// so that the Nodes tab's sections and health counts cover them all.
//
// The query's cursor is a position in the list's order (group, launch
// time), not a node: a node deleted between two pages (a replace deletes
// it) does not lose the place, and the next page starts past it. A node
// whose position moved between pages may come twice; the copies are merged
// by id. Nodes that change while the pages load are not missed: the events
// stream starts at the first page's event cursor, before every page.
import { isNewer, type Versioned } from "../api/liveRecords";

/** How many nodes one request asks for: the most the nodes query returns. */
export const nodesPageSize = 200;

/** The most nodes the tab lists: 25 pages, beyond which a browser table stops being a glance. */
export const maxListedNodes = 5000;

/** One answer of the nodes query. */
export interface NodesPage<N> {
  eventCursor: string;
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor?: string | null };
  edges: readonly { node: N }[];
}

/** Why paging stopped: every node is loaded, or maxListedNodes are. */
export type PagingEnd = "complete" | "capped";

export interface NodePaging<N> {
  /** The nodes loaded, in the server's order, each once. */
  nodes: N[];
  /** The event cursor of the first page: events after it cover every page. null until it arrives. */
  eventCursor: string | null;
  /** How many nodes the cluster has, as the latest page said; null until the first. */
  totalCount: number | null;
  /** Where the next page starts: null for the first page. */
  after: string | null;
  /** How many requests were answered; the number of the next one. */
  requests: number;
  /** Why paging stopped; null while pages are still to come. */
  end: PagingEnd | null;
}

/** The next request to make. seq tells requests apart. */
export interface PageRequest {
  seq: number;
  first: number;
  after: string | null;
}

/** The state before the first page. */
export function startPaging<N>(): NodePaging<N> {
  return { nodes: [], eventCursor: null, totalCount: null, after: null, requests: 0, end: null };
}

/** The page to ask for next, or null when paging has stopped. */
export function nextPage(p: NodePaging<Versioned>): PageRequest | null {
  return p.end ? null : { seq: p.requests, first: nodesPageSize, after: p.after };
}

/** Takes in the answer to nextPage(p). */
export function addPage<N extends Versioned>(p: NodePaging<N>, page: NodesPage<N>): NodePaging<N> {
  const nodes = mergeById(p.nodes, page.edges.map((e) => e.node));
  let end: PagingEnd | null = null;
  if (!page.pageInfo.hasNextPage) end = "complete";
  else if (nodes.length >= maxListedNodes) end = "capped";
  return {
    nodes,
    eventCursor: p.eventCursor ?? page.eventCursor,
    totalCount: page.totalCount,
    after: page.pageInfo.endCursor ?? p.after,
    requests: p.requests + 1,
    end,
  };
}

/** list with each of more put in: a node it has is replaced by a state at least as new; a new one is appended. */
function mergeById<N extends Versioned>(list: readonly N[], more: readonly N[]): N[] {
  const out = [...list];
  const index = new Map(out.map((n, i) => [n.id, i]));
  for (const n of more) {
    const i = index.get(n.id);
    if (i === undefined) {
      index.set(n.id, out.length);
      out.push(n);
    } else if (isNewer(n, out[i]!)) {
      out[i] = n;
    }
  }
  return out;
}

/** What the tab says about paging: how far it got, and whether to try again. */
export interface PagingNote {
  text: string;
  /** Paging is still going. */
  loading: boolean;
}

/**
 * The note for paging p while the tab shows listed nodes (the loaded ones
 * kept current by events), or null when every node is listed.
 */
export function pagingNote(p: NodePaging<unknown>, listed: number): PagingNote | null {
  const total = p.totalCount;
  if (total === null) return null;
  switch (p.end) {
    case null:
      return { text: `Loading the nodes: ${count(p.nodes.length)} of ${count(total)}…`, loading: true };
    case "complete":
      return null;
    case "capped":
      return {
        text: `The cluster has more nodes than the tab lists: this lists ${listedOf(listed, total)}, and the health counts cover only those.`,
        loading: false,
      };
  }
}

/** "200 of 2,000 nodes", or "200 nodes" when the total is not known. */
export function listedOf(listed: number, total: number | null): string {
  return total === null ? `${count(listed)} ${listed === 1 ? "node" : "nodes"}` : `${count(listed)} of ${count(total)} nodes`;
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}
