// Places in the shared bucket: a folder is a prefix ending in "/" ("" is the
// top), and every key is seen by pods under the storage's mount path.

/** One step of the breadcrumbs of a prefix: its folder's name and the prefix that lists it. */
export interface Crumb {
  name: string;
  prefix: string;
}

/** The folders from the top down to prefix: "models/llama/" is models, then llama. */
export function breadcrumbs(prefix: string): Crumb[] {
  const out: Crumb[] = [];
  let at = 0;
  for (;;) {
    const end = prefix.indexOf("/", at);
    if (end < 0) return out;
    out.push({ name: prefix.slice(at, end), prefix: prefix.slice(0, end + 1) });
    at = end + 1;
  }
}

/** The name of an entry in the folder prefix: its key past the prefix ("llama/" in "models/"). */
export function entryName(key: string, prefix: string): string {
  return key.startsWith(prefix) ? key.slice(prefix.length) : key;
}

/** Where pods see key: under mountPath, /s3/models/llama/. */
export function podPath(mountPath: string, key: string): string {
  return `${mountPath.replace(/\/+$/, "")}/${key}`;
}

/**
 * The prefix a page's address names (?prefix=models/), as the browser
 * lists it: no leading slash, and a folder's trailing one added, so that
 * models and /models/ both list the models folder.
 */
export function prefixOf(param: string | null): string {
  const p = (param ?? "").replace(/^\/+/, "");
  return p === "" || p.endsWith("/") ? p : `${p}/`;
}

/** The query of an address that lists prefix: "" for the top, ?prefix=models/llama/ below it. */
export function prefixQuery(prefix: string): string {
  return prefix === "" ? "" : `?prefix=${encodeURIComponent(prefix).replace(/%2F/g, "/")}`;
}
