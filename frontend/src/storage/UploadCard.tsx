import { useRef, useState } from "react";
import { type Client, useClient } from "urql";
import { GuardedButton } from "../ui/GuardedButton";
import {
  CompleteMultipartUploadMutation,
  CreateMultipartUploadMutation,
  CreateUploadUrlsMutation,
  UploadedPartsQuery,
  UploadPartUrlsMutation,
} from "./documents";
import { formatSize } from "./objectSize";
import { type UploadFolder, keyProblem, missingParts, planParts, resumeKey, singlePutLimit, uploadFolders, uploadKey } from "./upload";

interface Props {
  clusterId: string;
  /** Why the user may not upload, or undefined. */
  denied: string | undefined;
  /** Called when a file has arrived, to list the bucket again. */
  onUploaded: () => void;
}

/** One file being uploaded. */
interface Item {
  id: number;
  file: File;
  key: string;
  sent: number;
  state: "waiting" | "uploading" | "done" | "failed";
  message?: string;
  parts?: number;
}

/** How many part URLs are signed at a time: each works 15 minutes. */
const signBatch = 8;

/**
 * Uploads files and folders into datasets/ or code/ of the shared bucket,
 * each with its progress: one signed PUT for a small file, parts for a
 * large one. A large file that fails resumes: the upload's id is kept in
 * the browser, and Retry sends only the parts S3 does not hold.
 */
export function UploadCard({ clusterId, denied, onUploaded }: Props) {
  const client = useClient();
  const [folder, setFolder] = useState<UploadFolder>("datasets/");
  const [subfolder, setSubfolder] = useState("");
  const [items, setItems] = useState<Item[]>([]);
  const [dragging, setDragging] = useState(false);
  const nextId = useRef(1);

  const update = (id: number, change: Partial<Item>) => setItems((all) => all.map((it) => (it.id === id ? { ...it, ...change } : it)));

  const run = async (it: Item) => {
    update(it.id, { state: "uploading", sent: 0, message: undefined });
    try {
      if (it.file.size <= singlePutLimit) {
        await sendWhole(client, clusterId, it, (sent) => update(it.id, { sent }));
      } else {
        await sendByParts(client, clusterId, it, (sent, parts) => update(it.id, { sent, parts }));
      }
      update(it.id, { state: "done", sent: it.file.size });
      onUploaded();
    } catch (e) {
      update(it.id, { state: "failed", message: e instanceof Error ? e.message : String(e) });
    }
  };

  const add = (files: File[]) => {
    const added = files.map((file) => {
      const key = uploadKey(folder, subfolder, file.webkitRelativePath || file.name);
      const problem = keyProblem(key);
      return { id: nextId.current++, file, key, sent: 0, state: problem ? "failed" : "waiting", message: problem } satisfies Item;
    });
    setItems((all) => [...all, ...added]);
    // One file at a time: the browser's bandwidth goes to one, and each
    // shows its own progress.
    void (async () => {
      for (const it of added) if (it.state === "waiting") await run(it);
    })();
  };

  return (
    <section className="card" aria-label="Upload">
      <div className="section-head">
        <h2>Upload</h2>
      </div>
      <p className="muted">
        Files go from this browser straight to the bucket, through URLs the server signs for 15 minutes. Files over {formatSize(singlePutLimit)} go by
        parts: if one fails, Retry sends only the parts the bucket does not have.
      </p>
      <div className="form-row">
        <label>
          Into{" "}
          <select value={folder} onChange={(e) => setFolder(e.target.value as UploadFolder)} aria-label="Upload folder">
            {uploadFolders.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </label>{" "}
        <label>
          Subfolder (optional){" "}
          <input type="text" value={subfolder} onChange={(e) => setSubfolder(e.target.value)} placeholder="alpaca" aria-label="Subfolder" />
        </label>
      </div>
      <div
        className={dragging ? "drop-zone drop-zone-active" : "drop-zone"}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          if (!denied) add(Array.from(e.dataTransfer.files));
        }}
      >
        <span className="muted">Drop files here, or </span>
        <FilePicker label="Choose files" denied={denied} onPick={add} />{" "}
        <FilePicker label="Choose a folder" folder denied={denied} onPick={add} />
      </div>
      {items.length > 0 && (
        <ul className="upload-list" aria-label="Uploads">
          {items.map((it) => (
            <li key={it.id} data-key={it.key} data-state={it.state}>
              <code className="wrap">{it.key}</code> <span className="muted">{formatSize(it.file.size)}</span>{" "}
              <progress max={it.file.size || 1} value={it.state === "done" ? it.file.size || 1 : it.sent} aria-label={`Progress of ${it.key}`} />{" "}
              <span className="upload-state">
                {it.state === "done"
                  ? "Uploaded"
                  : it.state === "failed"
                    ? "Failed"
                    : it.state === "uploading"
                      ? `${Math.floor((100 * it.sent) / (it.file.size || 1))}%${it.parts ? ` of ${it.parts} parts` : ""}`
                      : "Waiting"}
              </span>
              {it.message && <span className="phase-error"> {it.message}</span>}
              {it.state === "failed" && !keyProblem(it.key) && (
                <>
                  {" "}
                  <button type="button" className="button" onClick={() => void run(it)}>
                    Retry
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function FilePicker({ label, folder, denied, onPick }: { label: string; folder?: boolean; denied: string | undefined; onPick: (files: File[]) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const dirProps = folder ? { webkitdirectory: "", directory: "" } : {};
  return (
    <>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        aria-label={label}
        {...dirProps}
        onChange={(e) => {
          const files = Array.from(e.target.files ?? []);
          e.target.value = "";
          if (files.length) onPick(files);
        }}
      />
      <GuardedButton className="button" deniedReason={denied} onClick={() => input.current?.click()}>
        {label}
      </GuardedButton>
    </>
  );
}

/** The message of a GraphQL answer's error, or of its transport. */
function failure(error: { message: string; graphQLErrors?: { message: string }[] } | undefined): Error | undefined {
  if (!error) return undefined;
  return new Error(error.graphQLErrors?.length ? error.graphQLErrors.map((e) => e.message).join("; ") : error.message);
}

/** PUTs body to a signed URL, reporting the bytes sent; resolves with the answer's ETag. */
function put(url: string, body: Blob, onProgress: (sent: number) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve(xhr.getResponseHeader("ETag") ?? "");
      else reject(new Error(`the bucket answered ${xhr.status}: ${/<Message>(.*?)<\/Message>/.exec(xhr.responseText)?.[1] ?? xhr.statusText}`));
    };
    xhr.onerror = () => reject(new Error("the bucket could not be reached (network or CORS)"));
    xhr.send(body);
  });
}

async function sendWhole(client: Client, clusterId: string, it: Item, onProgress: (sent: number) => void) {
  const res = await client.mutation(CreateUploadUrlsMutation, { clusterId, keys: [it.key] }).toPromise();
  const signed = res.data?.createUploadUrls[0];
  if (!signed) throw failure(res.error) ?? new Error("no URL was signed");
  await put(signed.url, it.file, onProgress);
}

async function sendByParts(client: Client, clusterId: string, it: Item, onProgress: (sent: number, parts: number) => void) {
  const { partSize, count } = planParts(it.file.size);
  const remember = resumeKey(clusterId, it.key, it.file);
  let uploadId = localStorage.getItem(remember);
  let done: { partNumber: number; etag: string; size: number }[] = [];
  if (uploadId) {
    const res = await client.query(UploadedPartsQuery, { clusterId, key: it.key, uploadId }, { requestPolicy: "network-only" }).toPromise();
    if (res.data) done = res.data.uploadedParts.map((p) => ({ ...p }));
    else uploadId = null; // completed, aborted or expired: start again
  }
  if (!uploadId) {
    const res = await client.mutation(CreateMultipartUploadMutation, { clusterId, key: it.key }).toPromise();
    uploadId = res.data?.createMultipartUpload.uploadId ?? null;
    if (!uploadId) throw failure(res.error) ?? new Error("the upload could not start");
    localStorage.setItem(remember, uploadId);
  }
  const etags = new Map(done.map((p) => [p.partNumber, p.etag]));
  let sent = done.reduce((n, p) => n + p.size, 0);
  onProgress(sent, count);
  const missing = missingParts(count, done);
  for (let i = 0; i < missing.length; i += signBatch) {
    const batch = missing.slice(i, i + signBatch);
    const res = await client.mutation(UploadPartUrlsMutation, { clusterId, key: it.key, uploadId, partNumbers: batch }).toPromise();
    const urls = res.data?.uploadPartUrls;
    if (!urls) throw failure(res.error) ?? new Error("the parts could not be signed");
    for (const u of urls) {
      const start = (u.partNumber - 1) * partSize;
      const blob = it.file.slice(start, Math.min(start + partSize, it.file.size));
      const etag = await put(u.url, blob, (n) => onProgress(sent + n, count));
      etags.set(u.partNumber, etag);
      sent += blob.size;
      onProgress(sent, count);
    }
  }
  const parts = [...etags.entries()].sort((a, b) => a[0] - b[0]).map(([partNumber, etag]) => ({ partNumber, etag }));
  const res = await client.mutation(CompleteMultipartUploadMutation, { clusterId, key: it.key, uploadId, parts }).toPromise();
  if (!res.data) throw failure(res.error) ?? new Error("the upload could not be completed");
  localStorage.removeItem(remember);
}
