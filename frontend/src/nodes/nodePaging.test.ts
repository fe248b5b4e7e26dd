import { describe, expect, it } from "vitest";
import {
  addPage,
  maxListedNodes,
  nextPage,
  nodesPageSize,
  listedOf,
  pagingNote,
  startPaging,
  type NodePaging,
  type NodesPage,
  type PageRequest,
} from "./nodePaging";

type N = { id: string; updatedAt: string; health: string };
const node = (id: string, updatedAt = "2026-12-02T18:00:00Z", health = "SCHEDULABLE"): N => ({ id, updatedAt, health });
const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `i-${String(from + i).padStart(5, "0")}`);

/**
 * A server holding the nodes, answering as the nodes query does: the
 * cursor is a position in the list ("@" and the node's id, the ids sorting
 * as the list does), and the page starts past it whether or not its node is
 * still there.
 */
function server(nodes: N[], eventCursor = "7") {
  let cursor = Number(eventCursor);
  const srv = {
    nodes,
    /** Where a node sorts, when not at its id (a node relaunched moves to the end of its group). */
    moved: new Map<string, string>(),
    answer(after: string | null, first: number): NodesPage<N> {
      const pos = (n: N) => "@" + (srv.moved.get(n.id) ?? n.id);
      const nodes = [...srv.nodes].sort((a, b) => (pos(a) < pos(b) ? -1 : 1));
      const start = after === null ? 0 : nodes.filter((n) => pos(n) <= after).length;
      const items = nodes.slice(start, start + first);
      const last = items.at(-1);
      return {
        eventCursor: String(cursor++),
        totalCount: nodes.length,
        pageInfo: { hasNextPage: start + first < nodes.length, endCursor: last ? pos(last) : null },
        edges: items.map((node) => ({ node })),
      };
    },
  };
  return srv;
}

/** Pages until paging stops, letting change run before each request is answered; returns the state and the cursors asked for. */
function pageAll(srv: ReturnType<typeof server>, p: NodePaging<N> = startPaging<N>(), change: (req: PageRequest) => void = () => {}) {
  const asked: (string | null)[] = [];
  for (let req = nextPage(p); req; req = nextPage(p)) {
    change(req);
    asked.push(req.after);
    p = addPage(p, srv.answer(req.after, req.first));
  }
  return { p, asked };
}

describe("paging through the nodes", () => {
  it("reads one page for a small cluster", () => {
    const srv = server(ids(0, 3).map((id) => node(id)));
    const { p, asked } = pageAll(srv);
    expect(asked).toEqual([null]);
    expect(p.nodes.map((n) => n.id)).toEqual(ids(0, 3));
    expect(p).toMatchObject({ end: "complete", totalCount: 3, eventCursor: "7" });
  });

  it("is complete with no nodes", () => {
    const { p } = pageAll(server([]));
    expect(p).toMatchObject({ end: "complete", totalCount: 0, nodes: [] });
  });

  it("follows the cursor to the last page, and keeps the first page's event cursor", () => {
    const srv = server(ids(0, 450).map((id) => node(id)), "100");
    const { p, asked } = pageAll(srv);
    expect(asked).toEqual([null, "@i-00199", "@i-00399"]);
    expect(p.nodes).toHaveLength(450);
    expect(p.end).toBe("complete");
    // Events after the first page's cursor cover the later pages too.
    expect(p.eventCursor).toBe("100");
  });

  it("asks for full pages", () => {
    expect(nextPage(startPaging())).toEqual({ seq: 0, first: nodesPageSize, after: null });
  });

  it("stops at maxListedNodes and says how many there are", () => {
    const srv = server(ids(0, maxListedNodes + 300).map((id) => node(id)));
    const { p, asked } = pageAll(srv);
    expect(asked).toHaveLength(maxListedNodes / nodesPageSize);
    expect(p.nodes).toHaveLength(maxListedNodes);
    expect(p.end).toBe("capped");
    expect(pagingNote(p, p.nodes.length)).toEqual({
      text: "The cluster has more nodes than the tab lists: this lists 5,000 of 5,300 nodes, and the health counts cover only those.",
      loading: false,
    });
  });

  it("reads on past the cursor when its node was deleted between pages", () => {
    const srv = server(ids(0, 450).map((id) => node(id)));
    const { p, asked } = pageAll(srv, undefined, ({ seq }) => {
      // A replace deletes the last node of the first page before the second is read.
      if (seq === 1) srv.nodes.splice(199, 1);
    });
    expect(asked).toEqual([null, "@i-00199", "@i-00399"]);
    expect(p.end).toBe("complete");
    // The deleted node stays until its DELETED event removes it; every other node is there once.
    expect(new Set(p.nodes.map((n) => n.id))).toEqual(new Set(ids(0, 450)));
    expect(p.nodes).toHaveLength(450);
  });

  it("is complete when every node past the cursor went away", () => {
    const srv = server(ids(0, 250).map((id) => node(id)));
    const { p, asked } = pageAll(srv, undefined, ({ seq }) => {
      if (seq === 1) srv.nodes.splice(150, 100);
    });
    expect(asked).toEqual([null, "@i-00199"]);
    expect(p.end).toBe("complete");
    expect(p.nodes).toHaveLength(200);
  });

  it("keeps the newer state of a node read twice", () => {
    const srv = server(ids(0, 201).map((id) => node(id)));
    const { p } = pageAll(srv, undefined, ({ seq }) => {
      if (seq !== 1) return;
      // i-00003 moved past the cursor (it was relaunched), changed since the first page.
      srv.nodes[3] = node("i-00003", "2026-12-02T18:05:00Z", "UNSCHEDULABLE");
      srv.moved.set("i-00003", "z");
    });
    expect(p.nodes.filter((n) => n.id === "i-00003")).toEqual([node("i-00003", "2026-12-02T18:05:00Z", "UNSCHEDULABLE")]);
    expect(p.nodes).toHaveLength(201);
  });
});

describe("pagingNote", () => {
  it("says nothing before the first page, and when every node is listed", () => {
    expect(pagingNote(startPaging(), 0)).toBeNull();
    const srv = server([node("i-1")]);
    expect(pagingNote(pageAll(srv).p, 1)).toBeNull();
  });

  it("counts the nodes loaded of all while loading", () => {
    const srv = server(ids(0, 1234).map((id) => node(id)));
    const p = addPage(startPaging<N>(), srv.answer(null, nodesPageSize));
    expect(pagingNote(p, 200)).toEqual({ text: "Loading the nodes: 200 of 1,234…", loading: true });
  });
});

describe("listedOf", () => {
  it.each([
    [1, null, "1 node"],
    [200, null, "200 nodes"],
    [200, 2000, "200 of 2,000 nodes"],
  ])("%i of %s", (listed, total, words) => {
    expect(listedOf(listed, total)).toBe(words);
  });
});
