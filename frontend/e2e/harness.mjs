// The harness of the browser tests: it builds and starts the real
// instantstart binary on the simulator, and launches Debian's Chromium
// through playwright-core (no browser download).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, "..", "..");
export const artifacts = resolve(repoRoot, "test-results", "ui");

/** A token in the form the server issues; the tests give it as the first admin token. */
export const adminToken = "isk_" + "E".repeat(42) + "A";

function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
    srv.on("error", fail);
  });
}

async function waitReady(base, proc, output) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`the server exited:\n${output.join("")}`);
    try {
      const res = await fetch(`${base}/readyz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50)); // polling start-up, with a deadline
  }
  throw new Error(`the server did not become ready:\n${output.join("")}`);
}

/**
 * Builds the binary once per run and starts it on a fresh data directory.
 * With simAWS the simulator's AWS services are served on a port of their
 * own too (--sim-aws-listen), where signed upload URLs point; its host:port
 * is the server's simAWS.
 */
export async function startServer({ speed = 300, simAWS = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "instantstart-ui-"));
  const bin = join(dir, "instantstart");
  execFileSync("go", ["build", "-o", bin, "."], { cwd: repoRoot, stdio: "inherit" });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const simAWSHost = simAWS ? `127.0.0.1:${await freePort()}` : undefined;
  const output = [];
  const launch = async () => {
    const args = ["--listen", `127.0.0.1:${port}`, "--data-dir", join(dir, "data"), "--sim-speed", String(speed), "--region", "us-west-2"];
    if (simAWSHost) args.push("--sim-aws-listen", simAWSHost);
    const p = spawn(bin, args, {
      env: { ...process.env, INSTANTSTART_ADMIN_TOKEN: adminToken },
      stdio: ["ignore", "pipe", "pipe"],
    });
    p.stdout.on("data", (d) => output.push(String(d)));
    p.stderr.on("data", (d) => output.push(String(d)));
    await waitReady(base, p, output);
    return p;
  };
  let proc = await launch();
  return {
    base,
    simAWS: simAWSHost,
    output,
    /** Calls the API as the admin. */
    async api(path, init = {}) {
      const res = await fetch(base + path, { ...init, headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json", ...(init.headers ?? {}) } });
      const text = await res.text();
      if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${res.status} ${text}`);
      return text ? JSON.parse(text) : null;
    },
    /** Kills the server with SIGKILL (no clean shutdown) and starts it again on the same data and port. */
    async crashAndRestart() {
      proc.kill("SIGKILL");
      await new Promise((r) => (proc.exitCode !== null || proc.signalCode !== null ? r() : proc.once("exit", r)));
      proc = await launch();
    },
    async stop() {
      proc.kill("SIGINT");
      await new Promise((r) => (proc.exitCode !== null ? r() : proc.once("exit", r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Launches Chromium headless; every request to a host other than the
 * server's (and the hosts in alsoAllow, host:port) fails, as with no
 * internet.
 */
export async function launchBrowser(base, alsoAllow = []) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const allowed = new URL(base).host;
  const blocked = [];
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.host === allowed || alsoAllow.includes(url.host) || url.protocol === "data:" || url.protocol === "blob:") return route.continue();
    blocked.push(url.href);
    return route.abort("internetdisconnected");
  });
  mkdirSync(artifacts, { recursive: true });
  return { browser, context, blocked };
}

/** Saves a full-page screenshot of page as a test artifact. */
export async function screenshot(page, name) {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}

/** The fields the tests read of an operation. */
export const operationFields = "id status error { code message } target { id }";

/**
 * The admin's GraphQL client of a server started by startServer: gql calls
 * the API (a GraphQL error fails the test), succeeds follows an operation
 * with waitOperation until it ends and requires it to succeed.
 */
export function adminGraphQL(server) {
  async function gql(query, variables = {}) {
    const { data, errors } = await server.api("/graphql", { method: "POST", body: JSON.stringify({ query, variables }) });
    if (errors?.length) throw new Error(`${query.split("(")[0]}: ${errors.map((e) => e.message).join("; ")}`);
    return data;
  }
  async function succeeds(op, what, timeout = 180_000) {
    const deadline = Date.now() + timeout;
    let current = op;
    while (!["SUCCEEDED", "FAILED", "CANCELLED"].includes(current.status)) {
      if (Date.now() > deadline) throw new Error(`${what} is still ${current.status}`);
      ({ waitOperation: current } = await gql(`query($id: ID!) { waitOperation(id: $id, timeoutSeconds: 30) { ${operationFields} } }`, { id: op.id }));
    }
    if (current.status !== "SUCCEEDED") throw new Error(`${what} ended ${current.status}: ${JSON.stringify(current.error)}`);
    return current;
  }
  return { gql, succeeds };
}

/** Signs page in with token on the sign-in page, and waits for the app. */
export async function signIn(page, base, token, name) {
  await page.goto(base + "/");
  await page.getByLabel("API token").fill(token);
  await page.getByRole("button", { name: /sign in/i }).click();
  await page.locator(".whoami-name").filter({ hasText: name }).waitFor();
}
