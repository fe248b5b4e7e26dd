// End-to-end test of training jobs in the web UI, in Chromium against the
// real binary on the simulator. What the UI is not the point of is set up
// through the API: a cluster with an ACTIVE GPU instance group, the
// training operator on, the shared bucket AVAILABLE, a model downloaded
// and a dataset object in the bucket. Then, from the UI: turn MLflow
// tracking on, submit a
// LLaMA-Factory job from the form (its errors at their fields first),
// follow it to its page, watch its log and its metrics stream in, inject a hang and see
// the recovery budget move and the HANG restart in the timeline.
// Run with: npm run e2e (needs Go and /usr/bin/chromium).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { adminGraphQL, adminToken, launchBrowser, operationFields, screenshot, signIn, startServer } from "./harness.mjs";

const bucket = "ui-train-data";
const datasetKey = "datasets/alpaca/train.json";
const jobName = "ui-sft";

describe("training jobs in the web UI", () => {
  let server, browser, context, blocked, page, clusterId, gql, succeeds;




  before(async () => {
    server = await startServer();
    ({ gql, succeeds } = adminGraphQL(server));
    ({ browser, context, blocked } = await launchBrowser(server.base));
    page = await context.newPage();

    const { createCluster } = await gql(`mutation($in: CreateClusterInput!) { createCluster(input: $in) { ${operationFields} } }`, {
      in: {
        name: "ui-train",
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
    // The simulator's S3 holds the dataset, as aws s3 cp would put it there.
    await server.api(`/sim/objects/${bucket}/${datasetKey}`, {
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

  test("turns MLflow tracking on from the Features tab, its name checked at its field", async () => {
    await page.goto(`${server.base}/clusters/${clusterId}/features`);
    const row = page.locator('tr[data-feature="MLFLOW"]');
    await row.locator(".badge", { hasText: "DISABLED" }).waitFor();
    await page.getByRole("switch", { name: "MLflow tracking (SageMaker managed MLflow)" }).click();
    const dialog = page.locator("dialog[open]");
    const enable = dialog.getByRole("button", { name: "Enable MLflow tracking (SageMaker managed MLflow)" });
    await dialog.locator("#f-input-mlflow-trackingServerName").fill("bad_name");
    await enable.click();
    await dialog.locator("#f-input-mlflow-trackingServerName-error", { hasText: "not a tracking server name" }).waitFor();
    await dialog.locator("#f-input-mlflow-trackingServerName").fill("");
    await dialog.locator("#f-input-mlflow-trackingServerSize").selectOption("MEDIUM");
    await enable.click();
    const deadline = Date.now() + 120_000;
    while (!(await row.innerText()).includes("Jobs report to arn:aws:sagemaker:us-west-2:")) {
      if (Date.now() > deadline) throw new Error(`MLFLOW did not reach ENABLED: ${await row.innerText()}`);
      await page.waitForTimeout(100); // sampling the page while it updates itself
    }
    await row.locator(".badge", { hasText: "ENABLED" }).waitFor();
    await row.getByText(`s3://${bucket}/mlflow/`).waitFor();
    await screenshot(page, "features-mlflow");
  });

  test("submits a LLaMA-Factory job from the form, with its errors at their fields, and goes to its page", async () => {
    await page.goto(`${server.base}/clusters/${clusterId}/jobs`);
    await page.getByRole("region", { name: "Jobs of the cluster" }).getByText("No jobs yet.").waitFor();
    await page.getByRole("link", { name: "Submit a job" }).click();
    await page.waitForURL(/\/jobs\/new$/);

    // The recipes show their pinned image and version.
    const recipe = page.locator("#f-input-recipe");
    await recipe.locator("option", { hasText: "LLaMA-Factory 0.9.3" }).waitFor({ state: "attached" });
    assert.match(await recipe.locator('option[value="LLAMA_FACTORY"]').innerText(), /hiyouga\/llamafactory:0\.9\.3/);
    await recipe.selectOption("LLAMA_FACTORY");
    await page.locator("#f-input-recipe-hint").getByText("hiyouga/llamafactory:0.9.3").waitFor();

    // The recipe's settings are there, at their defaults; the model is asked, the script is not.
    const settings = page.getByRole("region", { name: "Recipe settings" });
    await settings.locator("select, input").first().waitFor();
    assert.equal(await page.locator("#f-input-script").count(), 0);
    await page.locator("#f-input-model").selectOption("qwen2.5-0.5b-instruct");
    // Long enough to watch it run, hang and restart.
    await page.locator("#f-input-settings-max-steps").fill("100000");

    // The group shows its instance type and GPUs.
    const group = page.locator("#f-input-instanceGroup");
    await group.locator("option", { hasText: /gpus — ml\.g5\.12xlarge, 4 × / }).waitFor({ state: "attached" });
    await group.selectOption("gpus");
    await page.locator("#f-input-nodes").fill("2");
    await page.locator("#f-input-name").fill(jobName);

    // A dataset outside datasets/ is refused before anything is sent.
    const dataset = page.locator("#f-input-datasetPath");
    const datasetError = page.locator("#f-input-datasetPath-error");
    await dataset.fill("data/alpaca/");
    await page.getByRole("button", { name: "Submit job" }).click();
    await datasetError.getByText(/under datasets\//).waitFor();
    assert.equal(await dataset.getAttribute("aria-invalid"), "true");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "f-input-datasetPath");

    // The server's PRECONDITION shows at the field it names: nothing is there.
    await dataset.fill("datasets/missing/");
    await page.getByRole("button", { name: "Submit job" }).click();
    await datasetError.getByText(/has nothing at datasets\/missing\//).waitFor({ timeout: 30_000 });
    assert.equal(await dataset.getAttribute("aria-invalid"), "true");

    // More GPUs than a node has are refused at their field.
    await dataset.fill("datasets/alpaca/");
    await page.locator("#f-input-gpusPerNode").fill("8");
    await page.getByRole("button", { name: "Submit job" }).click();
    await page.locator("#f-input-gpusPerNode-error").getByText(/1 to 4 GPUs/).waitFor();
    await page.locator("#f-input-gpusPerNode").fill("");

    // Recovery is collapsed until opened.
    const advanced = page.locator("details.advanced");
    assert.equal(await advanced.getAttribute("open"), null);
    await screenshot(page, "submit-job");

    await page.getByRole("button", { name: "Submit job" }).click();
    // The submission's progress shows while it runs (for moments on the simulator), then its page opens.
    await page.waitForURL(/\/clusters\/[^/]+\/jobs\/(?!new$)[^/]+$/, { timeout: 90_000 });
    await page.getByRole("heading", { name: jobName, level: 1 }).waitFor();
  });

  test("streams the job's log, and a hang spends a restart and shows in the timeline", async () => {
    await page.evaluate(() => (window.__noReload = true));
    const log = page.getByRole("log", { name: "Log lines" });
    await log.locator(".log-line", { hasText: "step=" }).first().waitFor({ timeout: 120_000 });
    await page.locator(".head-status .badge", { hasText: "RUNNING" }).waitFor({ timeout: 60_000 });

    // The search keeps the matching lines and marks what it found.
    await page.getByLabel("Search").fill("step=");
    await log.locator("mark", { hasText: "step=" }).first().waitFor();
    await page.getByLabel("Search").fill("");

    // The loss and throughput charts follow the MLflow run: the newest step moves on.
    const loss = page.getByRole("img", { name: /^Loss: \d+ points from step/ });
    await loss.waitFor({ timeout: 60_000 });
    await page.getByRole("img", { name: /^Throughput: \d+ points/ }).waitFor();
    const firstLabel = await loss.getAttribute("aria-label");
    await page.waitForFunction((was) => {
      const now = document.querySelector('svg[aria-label^="Loss:"]')?.getAttribute("aria-label");
      return now != null && now !== was;
    }, firstLabel, { timeout: 60_000 });

    const restarts = page.getByRole("meter", { name: "Restarts", exact: true });
    assert.equal(await restarts.getAttribute("aria-valuenow"), "0");
    assert.match(await restarts.getAttribute("aria-valuetext"), /^0\/\d+/);
    await page.getByRole("region", { name: "Restarts" }).getByText("No restarts").waitFor();
    await screenshot(page, "job-running");

    await server.api("/sim/faults", { method: "POST", body: JSON.stringify({ Kind: "hang", Job: jobName }) });

    // The budget gauge and the timeline follow the job live, with no reload.
    await page.waitForFunction(() => document.querySelector('[role="meter"][aria-label="Restarts"]')?.getAttribute("aria-valuenow") === "1", null, { timeout: 120_000 });
    assert.match(await restarts.getAttribute("aria-valuetext"), /^1\/\d+/);
    const hang = page.getByRole("region", { name: "Restarts" }).locator('li[data-reason="HANG"]');
    await hang.waitFor({ timeout: 60_000 });
    assert.match(await hang.innerText(), /hung/i);
    // The log goes on after the restart: new step= lines arrive.
    const before = await log.locator(".log-line", { hasText: "step=" }).count();
    await page.waitForFunction(
      (n) => [...document.querySelectorAll('[role="log"] .log-line')].filter((l) => l.textContent?.includes("step=")).length > n,
      before,
      { timeout: 120_000 },
    );
    assert.equal(await page.evaluate(() => window.__noReload), true, "the page was reloaded");
    await screenshot(page, "job-restarted");
    await server.api("/sim/faults", { method: "DELETE" });
  });

  test("lists the job on the Jobs tab with its restarts", async () => {
    await page.getByRole("link", { name: "Jobs", exact: true }).click();
    await page.waitForURL(/\/jobs$/);
    const row = page.locator(`tr[data-job="${jobName}"]`);
    await row.waitFor();
    await row.getByText(/^1\/\d+$/).waitFor();
    await row.getByText("LLaMA-Factory").waitFor();
    await row.getByText("2 × 4 GPUs").waitFor();
    await screenshot(page, "jobs");
  });

  test("made no request outside the server", () => {
    assert.deepEqual(blocked, []);
  });
});
