// End-to-end test of a RAY job (any Ray program) in the web UI, in
// Chromium against the real binary on the simulator. Set up through the
// API: a cluster with a GPU group of two nodes, KubeRay on, the shared
// bucket AVAILABLE with a script and a dataset in it. Then, from the UI:
// submit a RAY job with arguments, a pip package, a variable and a worker
// group (a bad variable refused at its field first), see its Ray program
// on its page, and read the entrypoint's output in the submitter's log.
// Run with: npm run e2e (needs Go and /usr/bin/chromium).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { adminGraphQL, adminToken, launchBrowser, operationFields, screenshot, signIn, startServer } from "./harness.mjs";

const bucket = "ui-ray-data";
const jobName = "ui-ray";

describe("a RAY job in the web UI", () => {
  let server, browser, context, blocked, page, clusterId, gql, succeeds;

  before(async () => {
    server = await startServer();
    ({ gql, succeeds } = adminGraphQL(server));
    ({ browser, context, blocked } = await launchBrowser(server.base));
    page = await context.newPage();
    const { createCluster } = await gql(`mutation($in: CreateClusterInput!) { createCluster(input: $in) { ${operationFields} } }`, {
      in: { name: "ui-ray", region: "us-west-2", zones: ["us-west-2a", "us-west-2b"], instanceGroups: [{ name: "gpus", instanceType: "ml.g5.12xlarge", count: 2, zone: "us-west-2a" }] },
    });
    clusterId = (await succeeds(createCluster, "createCluster")).target.id;
    const { updateClusterFeatures } = await gql(`mutation($id: ID!) { updateClusterFeatures(clusterId: $id, input: { kubeRay: true }) { ${operationFields} } }`, { id: clusterId });
    await succeeds(updateClusterFeatures, "the KUBERAY feature");
    const { addStorage } = await gql(`mutation($in: AddStorageInput!) { addStorage(input: $in) { ${operationFields} } }`, { in: { clusterId, kind: "S3", s3: { bucket, create: true } } });
    await succeeds(addStorage, "the shared bucket");
    for (const [key, body] of [["code/train.py", "import ray\nray.init()\n"], ["datasets/alpaca/train.json", "[]"]]) {
      await server.api(`/sim/objects/${bucket}/${key}`, { method: "PUT", headers: { "content-type": "application/octet-stream" }, body });
    }
    await signIn(page, server.base, adminToken, "admin");
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("submits a RAY job from the form and shows its Ray program and the entrypoint's output", async () => {
    await page.goto(`${server.base}/clusters/${clusterId}/jobs/new`);
    const recipe = page.locator("#f-input-recipe");
    await recipe.locator('option[value="RAY"]').waitFor({ state: "attached" });
    assert.match(await recipe.locator('option[value="RAY"]').innerText(), /rayproject\/ray:2\.41\.0-py311-gpu/);
    await recipe.selectOption("RAY");
    const ray = page.getByRole("region", { name: "Ray program" });
    await ray.waitFor();
    await page.locator("#f-input-name").fill(jobName);
    await page.locator("#f-input-script").fill("code/train.py");
    await page.locator("#f-input-datasetPath").fill("datasets/alpaca/");
    await page.locator("#f-input-instanceGroup").selectOption("gpus");
    await page.locator("#f-input-settings-max-steps").fill("40");
    await page.locator("#f-input-ray-args").fill("--epochs\n1");
    await page.locator("#f-input-ray-pip").fill("datasets==3.2.0");
    await ray.getByRole("button", { name: "Add a worker group" }).click();
    await ray.getByRole("group", { name: "Worker group 1" }).locator("select").selectOption("gpus");

    // A variable the recipe sets is refused at its field before anything is sent.
    const env = page.locator("#f-input-ray-env");
    await env.fill("MAX_STEPS=3");
    await page.getByRole("button", { name: "Submit job" }).click();
    await page.locator("#f-input-ray-env-error").getByText(/set by the recipe/).waitFor();
    assert.equal(await env.getAttribute("aria-invalid"), "true");
    await env.fill("WANDB_MODE=offline");
    await screenshot(page, "submit-ray-job");

    await page.getByRole("button", { name: "Submit job" }).click();
    await page.waitForURL(/\/clusters\/[^/]+\/jobs\/(?!new$)[^/]+$/, { timeout: 90_000 });
    await page.getByRole("heading", { name: jobName, level: 1 }).waitFor();
    await page.getByText("python /s3/code/train.py --epochs 1").waitFor();
    await page.getByText("gpus (ml.g5.12xlarge): 1 × 4 GPUs").waitFor();
    await page.locator(".head-status .badge", { hasText: "SUCCEEDED" }).waitFor({ timeout: 120_000 });
    const log = page.getByRole("log", { name: "Log lines" });
    await log.locator(".log-line", { hasText: "submitted successfully" }).first().waitFor({ timeout: 60_000 });
    await log.locator(".log-line", { hasText: "step=40 " }).first().waitFor({ timeout: 60_000 });
    await screenshot(page, "ray-job");
  });

  test("made no request outside the server", () => {
    assert.deepEqual(blocked, []);
  });
});
