// End-to-end test of inference endpoints in the web UI, in Chromium against
// the real binary on the simulator. What the UI is not the point of is set
// up through the API: a cluster with an ACTIVE GPU instance group, the
// shared bucket AVAILABLE and a model put in it, as aws s3 cp would. Then,
// from the UI: turn the AWS Load Balancer Controller on, deploy a
// self-managed vLLM endpoint behind a ClusterIP Service from the form (its
// errors at their fields first, the image only ever filled in when asked),
// follow it to READY on its page, chat with it (each answer with its token
// counts and latency, the conversation kept and sent again), see the list
// follow a change live, a name taken refused at its field, a VIEWER's chat
// refused with the reason, and delete it.
// Run with: npm run e2e (needs Go and /usr/bin/chromium).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { adminGraphQL, adminToken, launchBrowser, operationFields, screenshot, signIn, startServer } from "./harness.mjs";

const bucket = "ui-infer-data";
const model = "qwen-tiny";
const endpointName = "qwen-chat";
const vllmImage = "vllm/vllm-openai:v0.10.1";

describe("inference endpoints in the web UI", () => {
  let server, browser, context, blocked, page, clusterId, gql, succeeds, endpointUrl;

  before(async () => {
    server = await startServer();
    ({ gql, succeeds } = adminGraphQL(server));
    ({ browser, context, blocked } = await launchBrowser(server.base));
    page = await context.newPage();

    const { createCluster } = await gql(`mutation($in: CreateClusterInput!) { createCluster(input: $in) { ${operationFields} } }`, {
      in: {
        name: "ui-infer",
        region: "us-west-2",
        zones: ["us-west-2a", "us-west-2b"],
        instanceGroups: [{ name: "gpus", instanceType: "ml.g5.12xlarge", count: 1, zone: "us-west-2a" }],
      },
    });
    clusterId = (await succeeds(createCluster, "createCluster")).target.id;
    const { addStorage } = await gql(`mutation($in: AddStorageInput!) { addStorage(input: $in) { ${operationFields} } }`, {
      in: { clusterId, kind: "S3", s3: { bucket, create: true } },
    });
    await succeeds(addStorage, "the shared bucket");
    // The simulator's S3 holds the model, as aws s3 cp would put it there.
    for (const [key, body] of [
      ["config.json", JSON.stringify({ model_type: "qwen2", hidden_size: 896 })],
      ["model.safetensors", "x".repeat(4096)],
    ]) {
      await server.api(`/sim/objects/${bucket}/models/${model}/${key}`, { method: "PUT", headers: { "content-type": "application/octet-stream" }, body });
    }

    await signIn(page, server.base, adminToken, "admin");
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("turns the AWS Load Balancer Controller on from the Features tab, a plain switch", async () => {
    await page.goto(`${server.base}/clusters/${clusterId}/features`);
    const row = page.locator('tr[data-feature="LOAD_BALANCER_CONTROLLER"]');
    await row.locator(".badge", { hasText: "DISABLED" }).waitFor({ timeout: 30_000 });
    await page.getByRole("switch", { name: "AWS Load Balancer Controller" }).click();
    const dialog = page.locator("dialog[open]");
    await dialog.getByText(/Network Load Balancer for each LoadBalancer Service/).waitFor();
    assert.equal(await dialog.locator("input[type=text]").count(), 0, "the controller asks no settings");
    await dialog.getByRole("button", { name: "Enable AWS Load Balancer Controller" }).click();
    await row.locator(".badge", { hasText: "ENABLED" }).waitFor({ timeout: 120_000 });
    await screenshot(page, "features-load-balancer-controller");
  });

  test("deploys a vLLM endpoint from the form, with its errors at their fields, and goes to its page", async () => {
    await page.goto(`${server.base}/clusters/${clusterId}/endpoints`);
    await page.getByRole("region", { name: "Endpoints of the cluster" }).getByText("No endpoints yet.").waitFor();
    await page.getByRole("link", { name: "Deploy an endpoint" }).click();
    await page.waitForURL(/\/endpoints\/new$/);

    await page.locator("#f-input-name").fill(endpointName);
    await page.locator("input[type=radio][value=SELF_MANAGED]").check();
    const modelSelect = page.locator("#f-input-model");
    await modelSelect.locator(`option[value="${model}"]`).waitFor({ state: "attached" });
    await modelSelect.selectOption(model);
    await page.locator("input[type=radio][value=VLLM]").check();

    // The image is suggested, never filled in by itself: it is there once asked for.
    const image = page.locator("#f-input-image");
    assert.equal(await image.inputValue(), "");
    assert.equal(await image.getAttribute("placeholder"), vllmImage);
    await page.getByRole("button", { name: `Use ${vllmImage}` }).click();
    assert.equal(await image.inputValue(), vllmImage);

    await page.locator("input[type=radio][value=CLUSTER_IP]").check();
    // The instance type shows the GPUs it has, read from the offerings.
    const type = page.locator("#f-input-instanceType");
    await type.locator("option", { hasText: /ml\.g5\.12xlarge, 4 × .* — gpus/ }).waitFor({ state: "attached" });
    await type.selectOption("ml.g5.12xlarge");
    await page.locator("#f-input-instanceType-hint").getByText(/4 × .* per node/).waitFor();

    // The GPUs per replica are asked, never guessed.
    const gpus = page.locator("#f-input-gpusPerReplica");
    assert.equal(await gpus.inputValue(), "");
    await page.locator("#f-input-gpusPerReplica-hint").getByText(/ml\.g5\.12xlarge has 4 per node/).waitFor();
    const deploy = page.getByRole("button", { name: "Deploy endpoint" });
    await deploy.click();
    await page.locator("#f-input-gpusPerReplica-error").getByText(/never guessed/).waitFor();
    assert.equal(await gpus.getAttribute("aria-invalid"), "true");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "f-input-gpusPerReplica");

    await gpus.fill("8");
    await deploy.click();
    await page.locator("#f-input-gpusPerReplica-error").getByText(/1 to 4 GPUs per replica/).waitFor();

    // The tensor parallel size must divide the GPUs of a replica.
    await gpus.fill("2");
    await page.locator("#f-input-tensorParallelSize").fill("3");
    await deploy.click();
    await page.locator("#f-input-tensorParallelSize-error").getByText(/does not divide the 2 GPUs/).waitFor();
    await page.locator("#f-input-tensorParallelSize").fill("");
    await gpus.fill("1");
    await screenshot(page, "deploy-endpoint");

    await deploy.click();
    // The deployment's progress shows for moments, then the endpoint's page opens.
    await page.waitForURL(/\/clusters\/[^/]+\/endpoints\/(?!new$)[^/]+$/, { timeout: 90_000 });
    endpointUrl = page.url();
    await page.getByRole("heading", { name: endpointName, level: 1 }).waitFor();
  });

  test("follows the endpoint to READY live, and chats with it: answers with token counts and latency, the conversation kept", async () => {
    await page.evaluate(() => (window.__noReload = true));
    await page.locator(".head-status .badge", { hasText: "READY" }).waitFor({ timeout: 120_000 });
    await page.locator(".head-status .tag", { hasText: "1/1 ready" }).waitFor();
    const pods = page.getByRole("region", { name: "Pods" });
    await pods.locator("tbody tr").first().getByRole("cell", { name: "Yes", exact: true }).waitFor({ timeout: 30_000 });
    await page.getByRole("region", { name: "The endpoint" }).getByText(/vllm-qwen-chat\..*\.svc\.cluster\.local/).first().waitFor();

    const chat = page.getByRole("region", { name: "Chat" });
    const log = chat.getByRole("list", { name: "Conversation" });
    const message = chat.locator("#f-request-messages");
    await message.fill("Say hello.");
    await chat.getByRole("button", { name: "Send" }).click();
    const first = log.locator('li[data-role="assistant"]').first();
    await first.waitFor({ timeout: 60_000 });
    assert.ok((await first.locator(".chat-text").innerText()).trim().length > 0, "the answer has text");
    assert.match(await first.locator(".chat-tokens").innerText(), /^\d+ prompt \+ \d+ completion = \d+ tokens?$/);
    assert.match(await first.locator(".chat-latency").innerText(), /^\d+(\.\d+)? (ms|s)$/);
    assert.equal(await message.inputValue(), "", "the message box is emptied once answered");

    // The next message goes with the conversation so far, which stays on the page.
    const sent = page.waitForRequest((r) => r.url().endsWith("/graphql") && /mutation InvokeEndpoint/.test(r.postData() ?? ""));
    await message.fill("And now in French.");
    await message.press("Enter");
    const { variables } = JSON.parse((await sent).postData());
    assert.deepEqual(
      variables.request.messages.map((m) => m.role),
      ["user", "assistant", "user"],
    );
    assert.equal(variables.request.messages[0].content, "Say hello.");
    await log.locator('li[data-role="assistant"]').nth(1).waitFor({ timeout: 60_000 });
    assert.equal(await log.locator("li").count(), 4);
    assert.equal(await page.evaluate(() => window.__noReload), true, "the page was reloaded");
    await screenshot(page, "endpoint-ready");
  });

  test("opens the endpoint's logs: the model server's start-up, every pod or one; the charts say what OBSERVABILITY gives", async () => {
    const logs = page.getByRole("region", { name: "Logs" });
    await logs.getByText("Application startup complete.").first().waitFor({ timeout: 60_000 });
    await logs.getByText(/vLLM API server version/).first().waitFor();
    const podSelect = logs.getByLabel("Pod");
    const pod = await podSelect.locator("option").nth(1).getAttribute("value");
    assert.ok(pod, "the pod choice lists the endpoint's pod");
    await podSelect.selectOption(pod);
    await logs.getByText("Application startup complete.").first().waitFor({ timeout: 60_000 });
    const charts = page.getByRole("region", { name: "Charts" });
    await charts.getByText(/OBSERVABILITY feature is off/).waitFor({ timeout: 30_000 });
    await screenshot(page, "endpoint-logs");
  });

  test("lists the endpoint on the Endpoints tab, following a change live", async () => {
    await page.locator(".crumbs").getByRole("link", { name: "Endpoints" }).click();
    await page.waitForURL(/\/endpoints$/);
    const row = page.locator(`tr[data-endpoint="${endpointName}"]`);
    await row.locator(".badge", { hasText: "READY" }).waitFor();
    await row.getByText("1/1", { exact: true }).waitFor();
    await row.getByText("vLLM", { exact: true }).waitFor();
    await row.getByText("Cluster IP", { exact: true }).waitFor();
    await row.getByText("Self-managed", { exact: true }).waitFor();
    await row.getByText(/svc\.cluster\.local:\d+/).waitFor();

    // A change made elsewhere (here through the API) shows with no reload.
    const id = new URL(endpointUrl).pathname.split("/").pop();
    const { updateEndpoint } = await gql(`mutation($id: ID!) { updateEndpoint(id: $id, input: { replicas: 2 }) { ${operationFields} } }`, { id });
    await succeeds(updateEndpoint, "updateEndpoint");
    await row.getByText("2/2", { exact: true }).waitFor({ timeout: 120_000 });
    await row.locator(".badge", { hasText: "READY" }).waitFor({ timeout: 60_000 });
    assert.equal(await page.evaluate(() => window.__noReload), true, "the page was reloaded");
    await screenshot(page, "endpoints");
  });

  test("refuses a second endpoint of the same name at its field", async () => {
    await page.getByRole("link", { name: "Deploy an endpoint" }).click();
    await page.waitForURL(/\/endpoints\/new$/);
    await page.locator("#f-input-name").fill(endpointName);
    await page.locator("input[type=radio][value=SELF_MANAGED]").check();
    await page.locator("#f-input-model").locator(`option[value="${model}"]`).waitFor({ state: "attached" });
    await page.locator("#f-input-model").selectOption(model);
    await page.locator("input[type=radio][value=SGLANG]").check();
    await page.locator("#f-input-image").fill("lmsysorg/sglang:v0.5.3-cu126");
    await page.locator("input[type=radio][value=CLUSTER_IP]").check();
    await page.locator("#f-input-instanceType").selectOption("ml.g5.12xlarge");
    await page.locator("#f-input-gpusPerReplica").fill("1");
    await page.getByRole("button", { name: "Deploy endpoint" }).click();
    await page.locator("#f-input-name-error").getByText(/already/).waitFor({ timeout: 30_000 });
    assert.equal(await page.locator("#f-input-name").getAttribute("aria-invalid"), "true");
  });

  test("tells a VIEWER plainly why its chat is refused", async () => {
    const { createToken } = await gql(`mutation { createToken(input: { name: "ui-viewer", role: VIEWER }) { secret } }`);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API token").waitFor();
    await signIn(page, server.base, createToken.secret, "ui-viewer");
    await page.goto(endpointUrl);
    await page.locator(".head-status .badge", { hasText: "READY" }).waitFor({ timeout: 60_000 });
    // Changes are refused before they are tried, with the reason beside them.
    await page.getByRole("button", { name: "Delete endpoint" }).and(page.locator("[disabled]")).waitFor();
    const chat = page.getByRole("region", { name: "Chat" });
    await chat.locator("#f-request-messages").fill("Hello?");
    await chat.getByRole("button", { name: "Send" }).click();
    await chat.locator(".form-errors").getByText(/spends GPU time, so it needs the OPERATOR role; you are signed in as VIEWER/).waitFor({ timeout: 30_000 });
    assert.equal(await chat.locator('li[data-role="assistant"]').count(), 0);
    await screenshot(page, "endpoint-viewer");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API token").waitFor();
    await signIn(page, server.base, adminToken, "admin");
  });

  test("deletes the endpoint from its page", async () => {
    await page.goto(endpointUrl);
    await page.locator(".head-status .badge", { hasText: "READY" }).waitFor({ timeout: 60_000 });
    await page.getByRole("button", { name: "Delete endpoint" }).click();
    const dialog = page.locator("dialog[open]");
    await dialog.getByText(/it stops serving now/).waitFor();
    await dialog.getByRole("button", { name: "Delete endpoint" }).click();
    await page.locator(".head-status .badge", { hasText: "DELETED" }).waitFor({ timeout: 120_000 });
    await page.getByRole("button", { name: "Delete endpoint" }).and(page.locator("[disabled]")).waitFor();
  });

  test("made no request outside the server", () => {
    assert.deepEqual(blocked, []);
  });
});
