// A small history router: the UI has a handful of pages, so it keeps the
// location in the URL and matches it against patterns like /clusters/:id.
import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from "react";

const changeEvent = "instantstart:navigate";

function subscribe(onChange: () => void): () => void {
  window.addEventListener("popstate", onChange);
  window.addEventListener(changeEvent, onChange);
  return () => {
    window.removeEventListener("popstate", onChange);
    window.removeEventListener(changeEvent, onChange);
  };
}

function currentPath(): string {
  return window.location.pathname + window.location.search;
}

/** The path and query of the current page, re-rendering on navigation. */
export function useLocationPath(): string {
  return useSyncExternalStore(subscribe, currentPath);
}

/** Goes to path (which may carry a query) without reloading the page. */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (path === currentPath()) return;
  if (options.replace) window.history.replaceState(null, "", path);
  else window.history.pushState(null, "", path);
  window.dispatchEvent(new Event(changeEvent));
  window.scrollTo(0, 0);
}

/**
 * Matches a path against a pattern whose :name segments capture one
 * segment each. It returns the decoded captures, or null.
 */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const pathname = path.split(/[?#]/, 1)[0] ?? "";
  const want = pattern.split("/").filter(Boolean);
  const got = pathname.split("/").filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith(":")) params[w.slice(1)] = decodeURIComponent(g);
    else if (w !== g) return null;
  }
  return params;
}

/** Reads one parameter of a path's query string. */
export function queryParam(path: string, name: string): string | null {
  const i = path.indexOf("?");
  return i < 0 ? null : new URLSearchParams(path.slice(i + 1)).get(name);
}

/** Where to go after signing in: a path of this app, never another site. */
export function safeNext(next: string | null): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\") || next.startsWith("/signin")) return "/clusters";
  return next;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string };

/** An anchor that navigates in place on a plain click and as a link otherwise. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  const click = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={click} {...rest} />;
}
