// End-to-end test of "Connect with kubectl" on a cluster's page, in
// Chromium against the real binary on the simulator: the cluster is made
// through the API; then, from the UI, a grant with a bad ARN is refused at
// its field, a VIEW grant in a namespace is followed to its end and listed
// beside InstantStart's own entry, the kubeconfig is copied to the
// clipboard, and the grant is revoked.
// Run with: npm run e2e (needs Go and /usr/bin/chromium).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { adminGraphQL, adminToken, launchBrowser, operationFields, screenshot, signIn, startServer } from "./harness.mjs";

const alice = "arn:aws:iam::123456789012:user/alice";

describe("kubectl access in the web UI", () => {
  let server, browser, context, blocked, page, clusterId;

  before(async () => {
    server = await startServer();
    ({ browser, context, blocked } = await launchBrowser(server.base));
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.base });
    page = await context.newPage();
    const { gql, succeeds } = adminGraphQL(server);
    const { createCluster } = await gql(`mutation($in: CreateClusterInput!) { createCluster(input: $in) { ${operationFields} } }`, {
      in: { name: "ui-kubectl", region: "us-west-2", zones: ["us-west-2a", "us-west-2b"] },
    });
    clusterId = (await succeeds(createCluster, "createCluster")).target.id;
    await signIn(page, server.base, adminToken, "admin");
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("grants VIEW in a namespace, follows it, and lists it", async () => {
    await page.goto(`${server.base}/clusters/${encodeURIComponent(clusterId)}`);
    const card = page.getByRole("region", { name: "Connect with kubectl" });
    await card.locator('tr[data-principal$=":role/InstantStartManagement"]').getByText("InstantStart itself").waitFor();
    const form = card.getByRole("form", { name: "Grant kubectl access" });

    // A role session's ARN is refused at its field before anything is sent.
    await form.getByLabel("IAM role or user ARN").fill("arn:aws:sts::123456789012:assumed-role/alice/laptop");
    await form.getByRole("button", { name: "Grant access" }).click();
    await form.locator("#f-principalArn-error").getByText(/role session/).waitFor();

    await form.getByLabel("IAM role or user ARN").fill(alice);
    await form.getByLabel("Access").selectOption("VIEW");
    await form.getByLabel("Namespaces (optional)").fill("team-a");
    await form.getByRole("button", { name: "Grant access" }).click();
    const progress = card.getByRole("region", { name: `Granting VIEW to ${alice}` });
    await progress.locator("h2 .badge").getByText("SUCCEEDED").waitFor({ timeout: 60_000 });
    const row = card.locator(`tr[data-principal="${alice}"]`);
    await row.getByText("VIEW").waitFor();
    assert.equal((await row.locator("td").nth(2).innerText()).trim(), "team-a");
    assert.match(await row.locator("td").nth(3).innerText(), /granted here/);
    await screenshot(page, "kubectl-access");
  });

  test("copies the kubeconfig", async () => {
    const card = page.getByRole("region", { name: "Connect with kubectl" });
    const shown = await card.getByLabel("Kubeconfig").inputValue();
    assert.match(shown, /get-token/);
    assert.match(shown, /--cluster-name/);
    await card.getByRole("button", { name: "Copy kubeconfig" }).click();
    await card.getByText("Copied to the clipboard.").waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), shown);
  });

  test("revokes the grant", async () => {
    const card = page.getByRole("region", { name: "Connect with kubectl" });
    const row = card.locator(`tr[data-principal="${alice}"]`);
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: "Confirm revoke" }).click();
    await card.getByRole("region", { name: `Revoking the access of ${alice}` }).locator("h2 .badge").getByText("SUCCEEDED").waitFor({ timeout: 60_000 });
    await row.waitFor({ state: "detached" });
    assert.equal(await card.locator('tr[data-principal$=":role/InstantStartManagement"]').count(), 1);
  });

  test("made no request outside the server", () => {
    assert.deepEqual(blocked, []);
  });
});
