// End-to-end tests of the web UI in Chromium against the real binary on the
// simulator: sign in, create a cluster from the form and watch it come up
// live, see a validation error at its field, fail on an injected fault and
// retry, scale the system nodes from the cluster page, add an instance
// group and watch its nodes come up live, turn a
// feature on and see a re-apply that changes nothing said plainly, patch the
// cluster's software in a rolling update, give it a shared bucket and browse
// it, download a model into it and browse the model's files, add an FSx for
// Lustre file system linked to it, delete; and
// the bundled GraphiQL playground runs a query and a subscription with every
// host but the server blocked. Run with: npm run e2e
// (needs Go and /usr/bin/chromium).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { adminToken, launchBrowser, screenshot, startServer } from "./harness.mjs";

const statusOf = (page) => page.locator(".head-status .badge").first().innerText();

/** Waits until the operation page shows a terminal status, recording every phase status seen on the way. */
async function followOperation(page, timeout = 90_000) {
  const seen = new Set();
  const deadline = Date.now() + timeout;
  for (;;) {
    for (const s of await page.locator("table.phases .badge").allInnerTexts()) seen.add(s.trim());
    const status = (await statusOf(page)).trim();
    if (["SUCCEEDED", "FAILED", "CANCELLED"].includes(status)) return { status, seen };
    if (Date.now() > deadline) throw new Error(`the operation is still ${status}`);
    await page.waitForTimeout(100); // sampling the page while it updates itself
  }
}

describe("web UI", () => {
  let server, browser, context, blocked, page;

  before(async () => {
    server = await startServer();
    ({ browser, context, blocked } = await launchBrowser(server.base));
    page = await context.newPage();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("signs in with a token", async () => {
    await page.goto(server.base + "/");
    await page.getByLabel("API token").waitFor();
    await screenshot(page, "sign-in");
    await page.getByLabel("API token").fill("isk_" + "B".repeat(42) + "A");
    await page.getByRole("button", { name: /sign in/i }).click();
    await page.getByRole("alert").waitFor();
    await page.getByLabel("API token").fill(adminToken);
    await page.getByRole("button", { name: /sign in/i }).click();
    await page.locator(".whoami-name").filter({ hasText: "admin" }).waitFor();
    assert.equal(await page.locator(".whoami .role").innerText(), "ADMIN");
  });

  test("shows a validation error next to its field", async () => {
    await page.goto(server.base + "/clusters/new");
    await page.locator("#f-input-name").fill("-not-a-name");
    await page.getByRole("button", { name: "Create cluster" }).click();
    const error = page.locator("#f-input-name-error");
    await error.waitFor();
    assert.match(await error.innerText(), /letter/i);
    assert.equal(await page.locator("#f-input-name").getAttribute("aria-invalid"), "true");
  });

  async function fillCreateForm(name, zones, groupZone, instanceType) {
    await page.goto(server.base + "/clusters/new");
    await page.locator("#f-input-name").fill(name);
    await page.locator("#f-input-region").selectOption("us-west-2");
    for (const z of zones) await page.getByRole("checkbox", { name: new RegExp(z) }).check();
    await page.getByRole("button", { name: "Add an instance group" }).click();
    await page.locator("#f-input-instanceGroups-0-zone").selectOption(groupZone);
    await page.locator("#f-input-instanceGroups-0-instanceType").selectOption(instanceType);
    await page.locator("#f-input-instanceGroups-0-count").fill("2");
  }

  test("creates a cluster and shows its phases advancing live", async () => {
    await fillCreateForm("ui-demo", ["us-west-2a", "us-west-2b"], "us-west-2a", "ml.g5.12xlarge");
    await screenshot(page, "create-cluster");
    await page.getByRole("button", { name: "Create cluster" }).click();
    await page.waitForURL(/\/operations\//);
    const url = page.url();
    await page.evaluate(() => (window.__noReload = true));
    const { status, seen } = await followOperation(page);
    assert.equal(status, "SUCCEEDED");
    assert.ok(seen.has("WAITING") || seen.has("RUNNING"), `phases seen: ${[...seen]}`);
    assert.equal(page.url(), url);
    assert.equal(await page.evaluate(() => window.__noReload), true, "the page was reloaded");
    const phases = await page.locator("table.phases .badge").allInnerTexts();
    assert.equal(phases.length, 14); // the last reads the instance groups and nodes
    assert.ok(phases.every((p) => p.trim() === "SUCCEEDED"), `phases: ${phases}`);
    await screenshot(page, "operation");
  });

  test("keeps following an operation across a server restart, with no reload", async () => {
    await fillCreateForm("ui-restart", ["us-west-2a", "us-west-2b"], "us-west-2b", "ml.g5.12xlarge");
    await page.getByRole("button", { name: "Create cluster" }).click();
    await page.waitForURL(/\/operations\//);
    await page.evaluate(() => (window.__noReload = true));
    // Mid-operation: the EKS control plane is being created.
    await page.locator("table.phases tr", { hasText: "eks-cluster" }).locator(".badge", { hasText: "WAITING" }).waitFor({ timeout: 30_000 });
    await server.crashAndRestart();
    const { status } = await followOperation(page);
    assert.equal(status, "SUCCEEDED");
    assert.equal(await page.evaluate(() => window.__noReload), true, "the page was reloaded");
  });

  test("lists the cluster as ACTIVE, live from the list's own cursor", async () => {
    let onSocket;
    const subscribed = new Promise((resolve) => {
      onSocket = (ws) =>
        ws.on("framesent", ({ payload }) => {
          const msg = JSON.parse(String(payload));
          if (msg.type === "subscribe" && /subscription ClusterEvents/.test(msg.payload.query)) resolve(msg.payload.variables);
        });
      page.on("websocket", onSocket);
    });
    const listed = page.waitForResponse((r) => r.url().endsWith("/graphql") && /query Clusters\b/.test(r.request().postData() ?? ""));
    await page.goto(server.base + "/clusters");
    const row = page.locator("tr", { hasText: "ui-demo" });
    await row.locator(".badge", { hasText: "ACTIVE" }).waitFor();
    await row.getByText("2/2").waitFor(); // nodes ready / total, as the refresher read them
    await screenshot(page, "clusters");
    // The stream starts after the list's answer, from its cursor: a replay
    // of older events would show clusters in states they have left.
    const { eventCursor } = JSON.parse(await (await listed).text()).data.clusters;
    const variables = await subscribed;
    page.off("websocket", onSocket);
    assert.equal(variables.since, eventCursor);
  });

  test("shows the system nodes on the cluster page and scales them", async () => {
    await page.goto(server.base + "/clusters");
    await page.getByRole("link", { name: "ui-demo" }).click();
    await page.waitForURL(/\/clusters\/[^/]+$/);
    const clusterUrl = page.url();
    const card = page.getByRole("region", { name: "System nodes" });
    await card.locator("[data-system-nodes='ui-demo-system']").waitFor();
    await card.getByText("2 ready of 2").waitFor();
    assert.match(await card.innerText(), /m5\.large/);
    await card.getByLabel("System node count").fill("11");
    assert.equal(await card.getByRole("button", { name: "Scale system nodes" }).isDisabled(), true);
    await card.getByLabel("System node count").fill("3");
    await card.getByRole("button", { name: "Scale system nodes" }).click();
    await card.getByRole("link", { name: "Follow its progress" }).click();
    await page.waitForURL(/\/operations\//);
    const { status } = await followOperation(page);
    assert.equal(status, "SUCCEEDED");
    await page.goto(clusterUrl);
    await card.getByText("3 ready of 3").waitFor();
    await screenshot(page, "system-nodes");
  });

  test("adds an instance group and shows its nodes coming up live", async () => {
    await page.goto(server.base + "/clusters");
    await page.getByRole("link", { name: "ui-restart" }).click();
    await page.waitForURL(/\/clusters\/[^/]+$/);
    const clusterUrl = page.url();
    const tabs = page.getByRole("navigation", { name: "Cluster" });
    await tabs.getByRole("link", { name: /Instance groups/ }).click();
    await page.waitForURL(/\/instance-groups$/);
    await page.locator("tr", { hasText: "workers" }).locator(".badge", { hasText: "IN_SERVICE" }).waitFor();

    await page.getByRole("link", { name: "Add instance group" }).first().click();
    await page.waitForURL(/\/instance-groups\/new$/);
    await page.locator("#f-input-name").fill("ui-added");
    await page.locator("#f-input-zone").selectOption("us-west-2a");
    await page.locator("#f-input-instanceType").selectOption("ml.g5.12xlarge");
    await page.getByRole("checkbox", { name: "InstanceConnectivity" }).check();
    await page.getByRole("button", { name: "Add a label" }).click();
    await page.getByLabel("Label 1 key").fill("team");
    await page.getByLabel("Label 1 value").fill("ml");
    // More than the quota leaves: the server's error shows at the count.
    await page.locator("#f-input-count").fill("1000");
    await page.getByRole("button", { name: "Add instance group" }).click();
    const countError = page.locator("#f-input-count-error");
    await countError.waitFor();
    assert.match(await countError.innerText(), /quota/i);
    assert.equal(await page.locator("#f-input-count").getAttribute("aria-invalid"), "true");
    await page.locator("#f-input-count").fill("2");
    await screenshot(page, "add-instance-group");
    await page.getByRole("button", { name: "Add instance group" }).click();
    await page.waitForURL(/\/operations\//);

    // Straight to the Nodes tab, while the group is being added.
    await page.goto(clusterUrl + "/nodes");
    await page.evaluate(() => (window.__noReload = true));
    const section = page.locator("section.node-group", { has: page.getByRole("heading", { name: /^ui-added/ }) });
    await section.waitFor({ timeout: 30_000 });
    const seen = [];
    const deadline = Date.now() + 90_000;
    for (;;) {
      const rows = await section.locator("tbody tr").all();
      const states = [];
      for (const row of rows) {
        const cells = row.locator("td");
        states.push(`${(await cells.nth(4).locator(".badge").innerText()).trim()}/${(await cells.nth(5).locator(".badge").innerText()).trim()}`);
      }
      const sample = `${rows.length}:${states.join(",")}`;
      if (seen.at(-1) !== sample) seen.push(sample);
      if (rows.length === 2 && states.every((x) => x === "RUNNING/SCHEDULABLE")) break;
      if (Date.now() > deadline) throw new Error(`the nodes did not come up: ${seen.join(" | ")}`);
      await page.waitForTimeout(100); // sampling the page while it updates itself
    }
    assert.ok(seen.length > 1, `the tab showed the nodes only once they were up: ${seen.join(" | ")}`);
    assert.equal(await page.evaluate(() => window.__noReload), true, "the page was reloaded");
    await section.locator(".health-chips").getByText("2 schedulable").waitFor();
    await screenshot(page, "nodes");

    // The diagnosis of a healthy node reads: nothing to do.
    await section.getByRole("button", { name: /^Diagnose/ }).first().click();
    const dialog = page.locator("dialog[open]");
    await dialog.getByText("Next step: Nothing to do").waitFor();
    await screenshot(page, "node-diagnosis");
    await dialog.getByRole("button", { name: "Close" }).click();

    await tabs.getByRole("link", { name: /Instance groups/ }).click();
    const row = page.locator("tr", { hasText: "ui-added" });
    await row.locator(".badge", { hasText: "IN_SERVICE" }).waitFor();
    await row.getByText("2 / 2").waitFor();
    assert.equal(await page.evaluate(() => window.__noReload), true, "the page was reloaded");
    await screenshot(page, "instance-groups");
  });

  test("turns the training operator on from the Features tab, and says plainly when a re-apply has nothing to do", async () => {
    await page.goto(server.base + "/clusters");
    await page.getByRole("link", { name: "ui-restart" }).click();
    await page.waitForURL(/\/clusters\/[^/]+$/);
    await page.getByRole("navigation", { name: "Cluster" }).getByRole("link", { name: "Features" }).click();
    await page.waitForURL(/\/features$/);
    await page.evaluate(() => (window.__noReload = true));
    const statusOfFeature = (row) => row.locator("td").nth(1).locator(".badge").innerText();

    // Tiered checkpointing asks for a bucket, checked as the server checks it.
    await page.getByRole("switch", { name: "Managed tiered checkpointing" }).click();
    const dialog = page.locator("dialog[open]");
    await dialog.locator("#f-input-tieredCheckpointing-bucket").fill("Bad_Bucket");
    await dialog.getByRole("button", { name: "Enable managed tiered checkpointing" }).click();
    const bucketError = dialog.locator("#f-input-tieredCheckpointing-bucket-error");
    await bucketError.waitFor();
    assert.match(await bucketError.innerText(), /not an S3 bucket name/);
    assert.equal(await dialog.locator("#f-input-tieredCheckpointing-bucket").getAttribute("aria-invalid"), "true");
    await dialog.getByRole("button", { name: "Cancel" }).click();

    const training = page.locator('tr[data-feature="TRAINING_OPERATOR"]');
    await training.locator(".badge", { hasText: "DISABLED" }).waitFor();
    const toggle = page.getByRole("switch", { name: "Training operator" });
    assert.equal(await toggle.getAttribute("aria-checked"), "false");
    await toggle.click();
    await dialog.getByText(/pod identity association/).first().waitFor();
    await dialog.getByRole("button", { name: "Enable training operator" }).click();

    // The operation shows inline with its phases, and the row follows it to
    // ENABLED with no reload: events about the operation read the table again.
    const progress = page.getByRole("region", { name: "Enabling training operator" });
    await progress.waitFor();
    const seen = [];
    const deadline = Date.now() + 90_000;
    for (;;) {
      const sample = `${(await statusOfFeature(training)).trim()}/${(await progress.locator("h2 .badge").innerText()).trim()}`;
      if (seen.at(-1) !== sample) seen.push(sample);
      if (sample === "ENABLED/SUCCEEDED") break;
      if (Date.now() > deadline) throw new Error(`the training operator did not reach ENABLED: ${seen.join(" | ")}`);
      await page.waitForTimeout(100); // sampling the page while it updates itself
    }
    const phases = await progress.locator(".op-phases .badge").allInnerTexts();
    assert.equal(phases.length, 5, `phases: ${phases}`);
    assert.ok(phases.every((p) => p.trim() === "SUCCEEDED"), `phases: ${phases}`);
    assert.equal(await toggle.getAttribute("aria-checked"), "true");
    const resources = training.getByRole("list", { name: "Resources of Training operator" });
    await resources.getByText(/addon\/[^/]+\/amazon-sagemaker-hyperpod-training-operator\//).waitFor();
    for (const kind of ["IAM_ROLE", "POD_IDENTITY_ASSOCIATION", "EKS_ADDON"]) await resources.locator("code", { hasText: kind }).first().waitFor();
    assert.equal(await resources.locator(".tag", { hasText: "shared" }).count(), 2, "the two prerequisite add-ons are marked shared");
    await training.getByRole("link", { name: "UpdateClusterFeatures" }).waitFor();
    assert.equal(await page.evaluate(() => window.__noReload), true, "the page was reloaded");
    await screenshot(page, "features");

    // Node auto-recovery is on (clusters are made with it). The toggle only
    // offers to turn it off; Re-apply sends the same enable again, which the
    // server finds nothing to do for.
    const recovery = page.locator('tr[data-feature="NODE_AUTO_RECOVERY"]');
    assert.equal((await statusOfFeature(recovery)).trim(), "ENABLED");
    assert.equal(await page.getByRole("switch", { name: "Node auto-recovery" }).getAttribute("aria-checked"), "true");
    await page.getByRole("button", { name: "Re-apply Node auto-recovery" }).click();
    const answered = page.waitForResponse((r) => r.url().endsWith("/graphql") && /mutation UpdateClusterFeatures\b/.test(r.request().postData() ?? ""));
    await dialog.getByRole("button", { name: "Re-apply node auto-recovery" }).click();
    const { data } = JSON.parse(await (await answered).text());
    assert.equal(data.updateClusterFeatures.noop, true);
    await page.getByRole("status").filter({ hasText: "Already enabled: nothing to change." }).waitFor();
    assert.equal((await statusOfFeature(recovery)).trim(), "ENABLED");
    await screenshot(page, "features-noop");

    // The S3 CSI driver asks for buckets and, once on, changes them in place.
    const s3 = page.locator('tr[data-feature="S3_CSI_DRIVER"]');
    const reach = async (row, want, note) => {
      const until = Date.now() + 90_000;
      while ((await statusOfFeature(row)).trim() !== want || (note && !(await row.innerText()).includes(note))) {
        if (Date.now() > until) throw new Error(`${await row.getAttribute("data-feature")} did not reach ${want} ${note ?? ""}: ${await row.innerText()}`);
        await page.waitForTimeout(100); // sampling the page while it updates itself
      }
    };
    await page.getByRole("switch", { name: "S3 CSI driver (Mountpoint for Amazon S3)" }).click();
    await dialog.locator("#f-input-s3CsiDriver-buckets").fill("datasets datasets");
    await dialog.getByRole("button", { name: "Enable S3 CSI driver (Mountpoint for Amazon S3)" }).click();
    await dialog.locator("#f-input-s3CsiDriver-buckets-error", { hasText: "named twice" }).waitFor();
    await dialog.locator("#f-input-s3CsiDriver-buckets").fill("datasets");
    await dialog.getByRole("button", { name: "Enable S3 CSI driver (Mountpoint for Amazon S3)" }).click();
    await reach(s3, "ENABLED", "Mounts datasets");
    await page.getByRole("button", { name: "Change S3 CSI driver (Mountpoint for Amazon S3)" }).click();
    assert.equal(await dialog.locator("#f-input-s3CsiDriver-buckets").inputValue(), "datasets");
    await dialog.locator("#f-input-s3CsiDriver-buckets").fill("datasets, models");
    await dialog.getByRole("button", { name: "Change S3 CSI driver (Mountpoint for Amazon S3)" }).click();
    await reach(s3, "ENABLED", "Mounts datasets, models");
    await screenshot(page, "features-s3-csi");
  });

  test("patches a cluster from its page: each group's image, a rolling update, and the new image once it ends", async () => {
    await page.goto(server.base + "/clusters");
    await page.getByRole("link", { name: "ui-restart" }).click();
    await page.waitForURL(/\/clusters\/[^/]+$/);
    const clusterUrl = page.url();
    const software = page.getByRole("region", { name: "Software" });
    const groups = ["workers", "ui-added"];
    const before = {};
    for (const name of groups) {
      const row = software.locator(`tr[data-group="${name}"]`);
      await row.getByText("update available").waitFor();
      before[name] = (await row.locator("code").innerText()).trim();
    }
    await software.getByRole("button", { name: "Update software" }).click();
    const dialog = page.locator("dialog[open]");
    for (const name of groups) assert.equal(await dialog.getByRole("checkbox", { name: `Update ${name}` }).isChecked(), true, name);

    // A percentage out of range is refused at its field before anything is sent.
    const percent = dialog.locator("#f-rollingUpdate-maxUnavailablePercent");
    await percent.fill("0");
    await dialog.getByRole("button", { name: "Start the update" }).click();
    await dialog.locator("#f-rollingUpdate-maxUnavailablePercent-error").waitFor();
    assert.equal(await percent.getAttribute("aria-invalid"), "true");
    await percent.fill("50");
    await dialog.getByRole("row", { name: /ui-added/ }).getByText("2 batches of up to 1").waitFor();
    await screenshot(page, "update-software");
    await dialog.getByRole("button", { name: "Start the update" }).click();
    await software.getByRole("status").getByRole("link", { name: "Follow its progress" }).click();
    await page.waitForURL(/\/operations\//);
    const { status, seen } = await followOperation(page);
    assert.equal(status, "SUCCEEDED", `phases seen: ${[...seen]}`);

    await page.goto(clusterUrl);
    for (const name of groups) {
      const row = software.locator(`tr[data-group="${name}"]`);
      await row.getByText("up to date").waitFor();
      await row.getByText("last update succeeded").waitFor();
      const after = (await row.locator("code").innerText()).trim();
      assert.notEqual(after, before[name], `${name} still runs ${after}`);
    }
    await screenshot(page, "software-updated");
  });

  test("gives a cluster its shared bucket from the Storage tab, and browses it", async () => {
    await page.goto(server.base + "/clusters");
    await page.getByRole("link", { name: "ui-restart" }).click();
    await page.waitForURL(/\/clusters\/[^/]+$/);
    await page.getByRole("navigation", { name: "Cluster" }).getByRole("link", { name: "Storage" }).click();
    await page.waitForURL(/\/storage$/);
    await page.evaluate(() => (window.__noReload = true));
    const form = page.getByRole("region", { name: "Add shared bucket", exact: true });
    const bucket = form.locator("#f-input-s3-bucket");
    const bucketError = form.locator("#f-input-s3-bucket-error");

    // S3's naming rules are checked before anything is sent.
    await bucket.fill("Bad_Bucket");
    await form.getByRole("button", { name: "Add shared bucket" }).click();
    await bucketError.waitFor();
    assert.match(await bucketError.innerText(), /lower-case letters/);
    assert.equal(await bucket.getAttribute("aria-invalid"), "true");

    // The server's error about the bucket shows at its field too.
    await form.getByRole("radio", { name: /Use an existing bucket of this account in us-west-2/ }).check();
    await bucket.fill("ui-no-such-bucket");
    await form.getByRole("button", { name: "Add shared bucket" }).click();
    await bucketError.filter({ hasText: "does not exist" }).waitFor();
    assert.equal(await bucket.getAttribute("aria-invalid"), "true");

    await form.getByRole("radio", { name: "Create a new bucket" }).check();
    await bucket.fill("ui-shared-data");
    await form.getByRole("button", { name: "Add shared bucket" }).click();
    const progress = page.getByRole("region", { name: "Adding the shared bucket ui-shared-data" });
    await progress.waitFor();
    const card = page.getByRole("region", { name: "Shared bucket", exact: true });
    const seen = [];
    const deadline = Date.now() + 90_000;
    for (;;) {
      const status = (await card.locator("h2 .badge").innerText().catch(() => "none")).trim();
      const sample = `${status}/${(await progress.locator("h2 .badge").innerText()).trim()}`;
      if (seen.at(-1) !== sample) seen.push(sample);
      if (sample === "AVAILABLE/SUCCEEDED") break;
      if (sample.startsWith("FAILED") || Date.now() > deadline) throw new Error(`the shared bucket did not become AVAILABLE: ${seen.join(" | ")}`);
      await page.waitForTimeout(100); // sampling the page while it updates itself
    }
    await card.locator("code", { hasText: /^s3-shared$/ }).waitFor();
    await card.getByText("kubectl get pvc -n default s3-shared").waitFor();
    await card.getByText("arn:aws:s3:::ui-shared-data").waitFor();
    await card.locator("code", { hasText: /^\/s3\/checkpoints\/<job>\/$/ }).waitFor();
    const browser = page.getByRole("region", { name: "Bucket browser" });
    await browser.getByText("The bucket is empty.").waitFor();
    assert.equal(await page.evaluate(() => window.__noReload), true, "the page was reloaded");
    await screenshot(page, "storage");

    // Removing says the bucket stays; deleting it asks for its name.
    await card.getByRole("button", { name: "Remove" }).click();
    const dialog = page.locator("dialog[open]");
    await dialog.getByText("The bucket ui-shared-data and every object in it stay in S3").waitFor();
    await dialog.getByRole("button", { name: "Remove, keep the bucket" }).waitFor();
    await dialog.getByRole("checkbox", { name: "Also delete the bucket and every object in it" }).check();
    const remove = dialog.getByRole("button", { name: "Remove and delete the bucket" });
    assert.equal(await remove.isDisabled(), true);
    await dialog.getByLabel(/to delete it with every object in it/).fill("ui-shared-data");
    assert.equal(await remove.isDisabled(), false);
    await screenshot(page, "storage-remove");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    assert.equal(await dialog.count(), 0);
  });

  test("downloads a model into the shared bucket from the Models tab, and browses its files", async () => {
    await page.goto(server.base + "/clusters");
    await page.getByRole("link", { name: "ui-restart" }).click();
    await page.waitForURL(/\/clusters\/[^/]+$/);
    await page.getByRole("navigation", { name: "Cluster" }).getByRole("link", { name: "Models" }).click();
    await page.waitForURL(/\/models$/);
    await page.evaluate(() => (window.__noReload = true));
    const form = page.getByRole("region", { name: "Download a model" });
    const modelId = form.locator("#f-input-modelId");
    const download = form.getByRole("button", { name: "Download" });

    // The model id is checked before anything is sent; the folder the
    // server will name is shown.
    await modelId.fill("Qwen2.5-0.5B-Instruct");
    await download.click();
    await form.locator("#f-input-modelId-error", { hasText: "not org/name" }).waitFor();
    assert.equal(await modelId.getAttribute("aria-invalid"), "true");
    await modelId.fill("Qwen/Qwen2.5-0.5B-Instruct");
    await form.locator("#f-input-name-hint").getByText("models/qwen2.5-0.5b-instruct/").waitFor();
    assert.equal(await form.locator("#f-input-revision").inputValue(), "main");

    // The hub's refusals show at the field they concern: a model it does
    // not have, a gated one without a token. The token is never kept.
    await modelId.fill("Qwen/No-Such-Model");
    await download.click();
    await form.locator("#f-input-modelId-error", { hasText: "has no model" }).waitFor();
    const token = form.locator("#f-input-token");
    assert.equal(await token.getAttribute("type"), "password");
    assert.equal(await token.getAttribute("autocomplete"), "off");
    await modelId.fill("meta-llama/Llama-3.1-8B-Instruct");
    await download.click();
    await form.locator("#f-input-token-error", { hasText: "gated or private" }).waitFor();
    await token.fill("hf_" + "x".repeat(8));
    await download.click();
    await form.locator("#f-input-token-error").waitFor();
    assert.equal(await token.inputValue(), "", "the token stayed in the form");
    assert.ok(!page.url().includes("hf_"), page.url());

    await modelId.fill("Qwen/Qwen2.5-0.5B-Instruct");
    await download.click();
    const progress = page.getByRole("region", { name: "Downloading Qwen/Qwen2.5-0.5B-Instruct to models/qwen2.5-0.5b-instruct/" });
    await progress.waitFor();
    const row = page.locator('tr[data-model="qwen2.5-0.5b-instruct"]');
    const seen = [];
    const deadline = Date.now() + 90_000;
    for (;;) {
      const status = (await row.locator(".badge").innerText().catch(() => "none")).trim();
      const sample = `${status}/${(await progress.locator("h2 .badge").innerText()).trim()}`;
      if (seen.at(-1) !== sample) seen.push(sample);
      if (sample === "READY/SUCCEEDED") break;
      if (sample.startsWith("FAILED") || Date.now() > deadline) throw new Error(`the model did not become READY: ${seen.join(" | ")}`);
      await page.waitForTimeout(100); // sampling the page while it updates itself
    }
    await row.getByText("7 files").waitFor();
    await row.getByText("Hugging Face").waitFor();
    await row.getByText(/^Qwen\/Qwen2\.5-0\.5B-Instruct @ main \([0-9a-f]{7}\)$/).waitFor();
    await row.locator("code", { hasText: /^\/s3\/models\/qwen2\.5-0\.5b-instruct$/ }).waitFor();
    await progress.locator(".op-phases").getByText(/7 of 7 files/).waitFor();
    assert.equal(await progress.getByRole("progressbar").getAttribute("aria-valuenow"), "100");
    assert.equal(await page.evaluate(() => window.__noReload), true, "the page was reloaded");
    await screenshot(page, "models");

    await row.getByRole("link", { name: "Browse qwen2.5-0.5b-instruct" }).click();
    await page.waitForURL(/\/storage\?prefix=models\/qwen2\.5-0\.5b-instruct\/$/);
    const browser = page.getByRole("region", { name: "Bucket browser" });
    for (const key of ["config.json", "model.safetensors", "tokenizer.json"]) {
      await browser.locator(`tr[data-key="models/qwen2.5-0.5b-instruct/${key}"]`).waitFor();
    }
    await screenshot(page, "models-browse");
  });

  test("adds an FSx for Lustre file system from the Storage tab, linked to the shared bucket", async () => {
    await page.goto(server.base + "/clusters");
    await page.getByRole("link", { name: "ui-restart" }).click();
    await page.waitForURL(/\/clusters\/[^/]+$/);
    await page.getByRole("navigation", { name: "Cluster" }).getByRole("link", { name: "Storage" }).click();
    await page.waitForURL(/\/storage$/);
    await page.evaluate(() => (window.__noReload = true));
    await page.getByRole("button", { name: "Add FSx for Lustre" }).click();
    const form = page.getByRole("region", { name: "Add FSx for Lustre" });
    const throughput = form.locator("#f-input-fsxLustre-throughputPerTiB");

    // The throughput offers what the deployment type takes; scratch takes none.
    const options = async () => (await throughput.locator("option").allInnerTexts()).map((o) => o.trim());
    assert.deepEqual(await options(), ["125", "250", "500", "1000"]);
    await form.getByRole("radio", { name: /PERSISTENT_1/ }).check();
    assert.deepEqual(await options(), ["50", "100", "200"]);
    assert.equal(await form.getByRole("checkbox", { name: "Link the shared bucket" }).count(), 0);
    await form.getByRole("radio", { name: /SCRATCH_2/ }).check();
    assert.equal(await throughput.count(), 0);
    await form.getByRole("radio", { name: /PERSISTENT_2/ }).check();
    assert.equal(await throughput.inputValue(), "125");

    // The capacity is checked as FSx checks it.
    await form.locator("#f-input-fsxLustre-name").fill("ui-scratch");
    const capacity = form.locator("#f-input-fsxLustre-storageCapacityGiB");
    await capacity.fill("1300");
    await form.getByRole("button", { name: "Add file system" }).click();
    await form.locator("#f-input-fsxLustre-storageCapacityGiB-error", { hasText: "the nearest are 1200 and 2400" }).waitFor();
    assert.equal(await capacity.getAttribute("aria-invalid"), "true");
    await capacity.fill("1200");
    await form.getByRole("checkbox", { name: "Link the shared bucket" }).check();
    await screenshot(page, "fsx-add");
    await form.getByRole("button", { name: "Add file system" }).click();

    const progress = page.getByRole("region", { name: "Adding the file system ui-scratch" });
    await progress.waitFor();
    const card = page.getByRole("region", { name: "File system ui-scratch", exact: true });
    const seen = [];
    const deadline = Date.now() + 120_000;
    for (;;) {
      const status = (await card.locator("h2 .badge").innerText().catch(() => "none")).trim();
      const sample = `${status}/${(await progress.locator("h2 .badge").innerText()).trim()}`;
      if (seen.at(-1) !== sample) seen.push(sample);
      if (sample === "AVAILABLE/SUCCEEDED") break;
      if (sample.startsWith("FAILED") || Date.now() > deadline) throw new Error(`the file system did not become AVAILABLE: ${seen.join(" | ")}`);
      await page.waitForTimeout(100); // sampling the page while it updates itself
    }
    await card.locator("code", { hasText: /^fsx-ui-scratch$/ }).waitFor();
    await card.locator("code", { hasText: /^\/fsx\/ui-scratch$/ }).waitFor();
    await card.getByText("1,200 GiB").waitFor();
    await card.getByText("125 MB/s per TiB").waitFor();
    await card.locator("code", { hasText: /^fs-/ }).first().waitFor();
    await card.locator("code", { hasText: "s3://ui-shared-data/" }).waitFor();
    assert.equal(await page.evaluate(() => window.__noReload), true, "the page was reloaded");
    await screenshot(page, "fsx");

    // The shared bucket cannot be removed while the file system links it:
    // the server's PRECONDITION shows in the dialog.
    const dialog = page.locator("dialog[open]");
    await page.getByRole("region", { name: "Shared bucket", exact: true }).getByRole("button", { name: "Remove" }).click();
    await dialog.getByRole("button", { name: "Remove, keep the bucket" }).click();
    await dialog.getByRole("alert").filter({ hasText: /file system ui-scratch .* is linked to bucket ui-shared-data; remove it first/ }).waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();

    // Removing the file system says what is deleted and what stays, and asks for its name.
    await card.getByRole("button", { name: "Remove file system ui-scratch" }).click();
    await dialog.getByText(/and every file on it\. This cannot be undone\./).waitFor();
    await dialog.getByText(/The linked bucket's objects stay in s3:\/\/ui-shared-data\//).waitFor();
    const remove = dialog.getByRole("button", { name: "Delete the file system" });
    assert.equal(await remove.isDisabled(), true);
    await dialog.getByLabel(/to delete it with every file on it/).fill("ui-scratch");
    assert.equal(await remove.isDisabled(), false);
    await screenshot(page, "fsx-remove");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    assert.equal(await dialog.count(), 0);
  });

  test("shows the failed phase of an injected fault, and Retry completes it", async () => {
    // The HyperPod cluster fails to be created. (A capacity fault no longer
    // fails it: with Continuous provisioning, nodes wait for capacity.)
    const fault = { kind: "fail", service: "sagemaker", operation: "CreateCluster", count: 1, message: "InsufficientInstanceCapacity: no ml.g5.12xlarge capacity in us-west-2c" };
    await server.api("/sim/faults", { method: "POST", body: JSON.stringify(fault) });
    await fillCreateForm("ui-fault", ["us-west-2b", "us-west-2c"], "us-west-2c", "ml.g5.12xlarge");
    await page.getByRole("button", { name: "Create cluster" }).click();
    await page.waitForURL(/\/operations\//);
    const first = await followOperation(page);
    assert.equal(first.status, "FAILED");
    const failed = page.locator("tr.row-failed");
    await failed.waitFor();
    assert.match(await failed.innerText(), /us-west-2c/);
    await screenshot(page, "operation-failed");
    await server.api("/sim/faults", { method: "DELETE" });
    await page.getByRole("button", { name: "Retry" }).click();
    await page.locator(".head-status .badge", { hasText: /RUNNING|QUEUED/ }).waitFor();
    const second = await followOperation(page);
    assert.equal(second.status, "SUCCEEDED");
  });

  test("deletes a cluster", async () => {
    await page.goto(server.base + "/clusters");
    await page.getByRole("link", { name: "ui-demo" }).click();
    await page.waitForURL(/\/clusters\/[^/]+$/);
    await screenshot(page, "cluster-detail");
    await page.getByRole("button", { name: "Delete cluster" }).click();
    const dialog = page.locator("dialog[open]");
    await dialog.getByRole("textbox").fill("ui-demo");
    // Whatever the cluster still holds goes with it; the bucket stays.
    await dialog.getByRole("checkbox", { name: /Also delete its endpoints/ }).check();
    await dialog.getByRole("checkbox", { name: /Also empty and delete the shared bucket/ }).waitFor();
    await dialog.getByRole("button", { name: "Delete cluster" }).click();
    await page.waitForURL(/\/operations\//);
    const { status } = await followOperation(page);
    assert.equal(status, "SUCCEEDED");
    await page.goto(server.base + "/clusters");
    await page.locator("tr", { hasText: "ui-fault" }).waitFor();
    await page.locator("tr", { hasText: "ui-restart" }).waitFor();
    const leftover = page.locator("tr", { hasText: "ui-demo" });
    assert.equal(await leftover.count(), 0, (await leftover.allInnerTexts()).join(" | "));
  });

  test("the playground runs a query and a subscription with no internet", async () => {
    await page.goto(server.base + "/playground");
    await page.locator(".graphiql-container").waitFor();
    const tabs = page.locator(".graphiql-tab");
    await tabs.first().click(); // List clusters
    // The editors load after the page; executing before the query is in
    // the editor would run nothing.
    await page.locator(".graphiql-query-editor").getByText("clusters").first().waitFor();
    await page.locator(".graphiql-execute-button").click();
    await page.locator(".graphiql-response").getByText('"clusters"').waitFor({ timeout: 30_000 });
    await tabs.nth(3).click(); // Events from a cursor: a subscription over WebSocket
    await page.locator(".graphiql-query-editor").getByText("subscription").first().waitFor();
    await page.locator(".graphiql-execute-button").click();
    try {
      await page.locator(".graphiql-response").getByText('"cursor"').first().waitFor({ timeout: 30_000 });
    } catch (err) {
      await screenshot(page, "playground-failed");
      console.log("playground response:", await page.locator(".graphiql-response").innerText());
      throw err;
    }
    await screenshot(page, "playground");
  });

  test("made no request outside the server", () => {
    assert.deepEqual(blocked, []);
  });
});
