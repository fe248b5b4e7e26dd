// End-to-end test of tiered checkpointing in the web UI, in Chromium
// against the real binary on the simulator. Set up through the API: a
// cluster with a GPU group, the training operator on, the shared bucket, a
// model and a dataset. From the UI: the submit form offers TIERED only once
// the TIERED_CHECKPOINTING feature is on; a TIERED job is submitted, a
// crash is injected, and the restart timeline says it resumed from memory.
// Run with: npm run e2e (needs Go and /usr/bin/chromium).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { adminGraphQL, adminToken, launchBrowser, operationFields, screenshot, signIn, startServer } from "./harness.mjs";

const bucket = "ui-ckpt-data";
const jobName = "ui-tiered";

describe("tiered checkpointing in the web UI", () => {
  let server, browser, context, blocked, page, clusterId, gql, succeeds;




  before(async () => {
    server = await startServer();
    ({ gql, succeeds } = adminGraphQL(server));
    ({ browser, context, blocked } = await launchBrowser(server.base));
    page = await context.newPage();

    const { createCluster } = await gql(`mutation($in: CreateClusterInput!) { createCluster(input: $in) { ${operationFields} } }`, {
      in: {
        name: "ui-ckpt",
        region: "us-west-2",
        zones: ["us-west-2a", "us-west-2b"],
        instanceGroups: [{ name: "gpus", instanceType: "ml.g5.12xlarge", count: 2, zone: "us-west-2a" }],
      },
    });
    clusterId = (await succeeds(createCluster, "createCluster")).target.id;
    const { updateClusterFeatures } = await gql(`mutation($id: ID!) { updateClusterFeatures(clusterId: $id, input: { trainingOperator: true }) { ${operationFields} } }`, { id: clusterId });
    await succeeds(updateClusterFeatures, "the TRAINING_OPERATOR feature");
    const { addStorage } = await gql(`mutation($in: AddStorageInput!) { addStorage(input: $in) { ${operationFields} } }`, {
      in: { clusterId, kind: "S3", s3: { bucket, create: true } },
    });
    await succeeds(addStorage, "the shared bucket");
    const { downloadModel } = await gql(`mutation($in: DownloadModelInput!) { downloadModel(input: $in) { ${operationFields} } }`, {
      in: { clusterId, modelId: "Qwen/Qwen2.5-0.5B-Instruct" },
    });
    await succeeds(downloadModel, "downloadModel");
    await server.api(`/sim/objects/${bucket}/datasets/alpaca/train.json`, {
      method: "PUT",
      headers: { "content-type": "application/octet-stream" },
      body: JSON.stringify([{ instruction: "Say hello.", input: "", output: "Hello." }]),
    });

    await signIn(page, server.base, adminToken, "admin");
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("offers TIERED only with the TIERED_CHECKPOINTING feature on, and says how to turn it on", async () => {
    await page.goto(`${server.base}/clusters/${clusterId}/jobs/new`);
    const tiered = page.locator('#f-input-checkpointing option[value="TIERED"]');
    await tiered.waitFor({ state: "attached" });
    assert.equal(await tiered.isDisabled(), true);
    await page.locator("#f-input-checkpointing-hint").getByRole("link", { name: /turn it on on the Features tab/ }).waitFor();

    const { updateClusterFeatures } = await gql(`mutation($id: ID!, $bucket: String!) { updateClusterFeatures(clusterId: $id, input: { tieredCheckpointing: { enabled: true, bucket: $bucket } }) { ${operationFields} } }`, {
      id: clusterId,
      bucket,
    });
    await succeeds(updateClusterFeatures, "the TIERED_CHECKPOINTING feature");
    await page.reload();
    await page.locator('#f-input-checkpointing option[value="TIERED"]:not([disabled])').waitFor({ state: "attached" });
  });

  test("submits a TIERED job, and a crash resumes it from memory, as the restart timeline and the log say", async () => {
    await page.locator("#f-input-recipe").selectOption("LLAMA_FACTORY");
    await page.locator("#f-input-model option", { hasText: "qwen2.5-0.5b-instruct" }).waitFor({ state: "attached" });
    await page.locator("#f-input-model").selectOption("qwen2.5-0.5b-instruct");
    await page.locator("#f-input-settings-max-steps").fill("100000");
    await page.locator("#f-input-instanceGroup option", { hasText: /^gpus/ }).waitFor({ state: "attached" });
    await page.locator("#f-input-instanceGroup").selectOption("gpus");
    await page.locator("#f-input-nodes").fill("2");
    await page.locator("#f-input-name").fill(jobName);
    await page.locator("#f-input-datasetPath").fill("datasets/alpaca/");
    await page.locator("#f-input-checkpointing").selectOption("TIERED");
    await screenshot(page, "submit-tiered-job");
    await page.getByRole("button", { name: "Submit job" }).click();
    await page.waitForURL(/\/clusters\/[^/]+\/jobs\/(?!new$)[^/]+$/, { timeout: 90_000 });
    await page.getByRole("heading", { name: jobName, level: 1 }).waitFor();
    await page.locator('[data-checkpointing="TIERED"]').waitFor();

    // Past a few in-memory checkpoints (one every 10 steps), a crash.
    const log = page.getByRole("log", { name: "Log lines" });
    await log.locator(".log-line", { hasText: "step=30 " }).first().waitFor({ timeout: 120_000 });
    await server.api("/sim/faults", { method: "POST", body: JSON.stringify({ Kind: "crash", Job: jobName }) });

    const crash = page.getByRole("region", { name: "Restarts" }).locator('li[data-reason="PROCESS_CRASH"]');
    await crash.waitFor({ timeout: 120_000 });
    const resumed = crash.locator('[data-tier="MEMORY"]');
    await resumed.waitFor({ timeout: 120_000 });
    const words = await resumed.innerText();
    const m = words.match(/resumed from memory at step (\d+), \d+ s after the restart/);
    assert.ok(m, `the timeline says ${words}`);
    assert.ok(Number(m[1]) >= 30 && Number(m[1]) % 10 === 0, `resumed at step ${m[1]}: not an in-memory checkpoint past step 30`);
    await log.locator(".log-line", { hasText: `resumed from memory at step ${m[1]}` }).first().waitFor({ timeout: 60_000 });
    await screenshot(page, "job-resumed-from-memory");
    await server.api("/sim/faults", { method: "DELETE" });
  });

  test("made no request outside the server", () => {
    assert.deepEqual(blocked, []);
  });
});
