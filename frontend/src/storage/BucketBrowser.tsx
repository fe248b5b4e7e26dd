import { useEffect, useRef, useState } from "react";
import { useQuery } from "urql";
import { Link } from "../app/router";
import { CopyButton } from "../ui/CopyButton";
import { ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { formatTime } from "../ui/time";
import { breadcrumbs, entryName, podPath } from "./bucketPaths";
import { S3ObjectsQuery } from "./documents";
import { exactSize, formatSize } from "./objectSize";
import { browseErrorTitle } from "./sharedBucket";

/** How many entries a page lists. */
const pageSize = 100;

interface Props {
  clusterId: string;
  bucket: string;
  mountPath: string;
  /** The folder listed: "" is the top, a folder's prefix ends in "/". */
  prefix: string;
  /** The address of the page that lists a folder. */
  pathOf: (prefix: string) => string;
  /** A count that changes when the bucket did (an upload): it is read again then. */
  refresh?: number;
}

/**
 * The objects and folders right under one folder of the shared bucket, a
 * page at a time, in key order, each with the path pods see it at. It reads
 * S3 when opened and on Refresh: objects written by pods send no event.
 */
export function BucketBrowser({ clusterId, bucket, mountPath, prefix, pathOf, refresh = 0 }: Props) {
  // Where the page starts, for the folder it was asked in: another folder starts at its top.
  const [start, setStart] = useState<{ prefix: string; after: string | null; page: number }>({ prefix, after: null, page: 1 });
  const at = start.prefix === prefix ? start : { prefix, after: null, page: 1 };
  const [{ data, fetching, error }, reexecute] = useQuery({
    query: S3ObjectsQuery,
    variables: { clusterId, prefix, first: pageSize, after: at.after },
    requestPolicy: "cache-and-network",
  });
  const listing = data?.s3Objects;
  const seen = useRef(refresh);
  useEffect(() => {
    if (seen.current !== refresh) {
      seen.current = refresh;
      reexecute({ requestPolicy: "network-only" });
    }
  }, [refresh, reexecute]);
  const crumbs = breadcrumbs(prefix);

  let body;
  if (error && !listing) {
    body = (
      <ErrorBanner title={browseErrorTitle(error.graphQLErrors)} messages={errorMessages(error)}>
        <button className="button" type="button" onClick={() => reexecute({ requestPolicy: "network-only" })}>
          Try again
        </button>
      </ErrorBanner>
    );
  } else if (!listing) {
    body = <Loading what="the bucket" />;
  } else if (listing.edges.length === 0) {
    body = (
      <p className="muted browser-empty">
        {at.after ? "Nothing more in this folder." : prefix === "" ? "The bucket is empty." : "This folder is empty."} Pods write to it under{" "}
        <code>{podPath(mountPath, prefix)}</code>.
      </p>
    );
  } else {
    body = (
      <div className="table-wrap">
        <table className="table bucket-entries">
          <caption className="sr-only">
            Objects and folders in {bucket}/{prefix}
          </caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Size</th>
              <th scope="col">Last modified</th>
              <th scope="col">Storage class</th>
              <th scope="col">Pods see it at</th>
            </tr>
          </thead>
          <tbody>
            {listing.edges.map(({ node: e }) => {
              const name = entryName(e.key, prefix);
              const path = podPath(mountPath, e.key);
              return (
                <tr key={e.key} data-key={e.key}>
                  <td>
                    {e.folder ? (
                      <Link to={pathOf(e.key)} className="strong" aria-label={`Open folder ${name}`}>
                        {name}
                      </Link>
                    ) : (
                      <span className="wrap">{name}</span>
                    )}
                    {e.folder && <span className="tag">folder</span>}
                  </td>
                  <td>{e.folder || e.size == null ? <span className="muted">—</span> : <span title={exactSize(e.size)}>{formatSize(e.size)}</span>}</td>
                  <td>{e.folder ? <span className="muted">—</span> : formatTime(e.lastModified)}</td>
                  <td>{e.storageClass ?? <span className="muted">—</span>}</td>
                  <td>
                    <div className="resource-ref">
                      <code className="wrap">{path}</code>
                      <CopyButton text={path} label={`Copy ${path}`} />
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    );
  }

  return (
    <section className="card" aria-label="Bucket browser">
      <div className="section-head">
        <h2>Browse {bucket}</h2>
        <button type="button" className="button" onClick={() => reexecute({ requestPolicy: "network-only" })} disabled={fetching}>
          {fetching ? "Reading…" : "Refresh"}
        </button>
      </div>
      <nav className="crumbs bucket-crumbs" aria-label="Folder">
        {crumbs.length === 0 ? (
          <span aria-current="location">{bucket}</span>
        ) : (
          <Link to={pathOf("")}>{bucket}</Link>
        )}
        {crumbs.map((c, i) => (
          <span key={c.prefix}>
            {" / "}
            {i === crumbs.length - 1 ? <span aria-current="location">{c.name}</span> : <Link to={pathOf(c.prefix)}>{c.name}</Link>}
          </span>
        ))}
        {" /"}
      </nav>
      {error && listing && <ErrorBanner title="The bucket could not be listed again: this is the last listing" messages={errorMessages(error)} />}
      {body}
      {listing && (listing.pageInfo.hasNextPage || at.after) && (
        <div className="table-foot">
          <span className="muted">Page {at.page}</span>
          {at.after && (
            <button type="button" className="button" onClick={() => setStart({ prefix, after: null, page: 1 })}>
              First page
            </button>
          )}
          {listing.pageInfo.hasNextPage && listing.pageInfo.endCursor && (
            <button type="button" className="button" onClick={() => setStart({ prefix, after: listing.pageInfo.endCursor!, page: at.page + 1 })}>
              Next page
            </button>
          )}
        </div>
      )}
    </section>
  );
}
