// End-to-end test of uploads in the web UI, in Chromium against the real
// binary on the simulator with its AWS endpoint listening
// (--sim-aws-listen), where the signed URLs point. A cluster and its shared
// bucket are set up through the API; from the Storage tab a small dataset
// goes up in one signed PUT and a large one by parts (the bucket's CORS
// answers expose each part's ETag), each with its progress bar, a key
// outside datasets/ and code/ is refused, and the bucket browser lists
// what arrived.
// Run with: node --test e2e/upload.e2e.mjs (needs Go and /usr/bin/chromium).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { adminGraphQL, adminToken, launchBrowser, operationFields, screenshot, signIn, startServer } from "./harness.mjs";

const bucket = "ui-upload-data";

describe("uploads in the web UI", () => {
  let server, browser, context, blocked, page, clusterId, gql, succeeds;

  before(async () => {
    server = await startServer({ simAWS: true });
    ({ gql, succeeds } = adminGraphQL(server));
    ({ browser, context, blocked } = await launchBrowser(server.base, [server.simAWS]));
    page = await context.newPage();
    const { createCluster } = await gql(`mutation($in: CreateClusterInput!) { createCluster(input: $in) { ${operationFields} } }`, {
      in: {
        name: "ui-upload",
        region: "us-west-2",
        zones: ["us-west-2a", "us-west-2b"],
        instanceGroups: [{ name: "gpus", instanceType: "ml.g5.xlarge", count: 1, zone: "us-west-2a" }],
      },
    });
    clusterId = (await succeeds(createCluster, "createCluster")).target.id;
    const { addStorage } = await gql(`mutation($in: AddStorageInput!) { addStorage(input: $in) { ${operationFields} } }`, {
      in: { clusterId, kind: "S3", s3: { bucket, create: true } },
    });
    await succeeds(addStorage, "the shared bucket");
    await signIn(page, server.base, adminToken, "admin");
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("uploads a dataset from the Storage tab and sees it in the bucket browser", async () => {
    await page.goto(`${server.base}/clusters/${clusterId}/storage?prefix=datasets/alpaca/`);
    const card = page.getByRole("region", { name: "Upload", exact: true });
    await card.getByLabel("Subfolder").fill("alpaca");
    const small = '{"instruction": "say hi", "output": "hi"}\n'.repeat(100);
    const large = Buffer.alloc(17 * 1024 * 1024, 7); // over the single-PUT limit: three parts
    await card.locator('input[type=file][aria-label="Choose files"]').setInputFiles([
      { name: "train.jsonl", mimeType: "application/json", buffer: Buffer.from(small) },
      { name: "shards.bin", mimeType: "application/octet-stream", buffer: large },
    ]);
    const uploads = card.getByRole("list", { name: "Uploads" });
    // Each ends uploaded; a failure says why at once.
    const ended = async (key) => {
      const row = uploads.locator(`li[data-key="${key}"]`);
      await uploads.locator(`li[data-key="${key}"]:is([data-state="done"], [data-state="failed"])`).waitFor({ timeout: 120_000 });
      assert.equal(await row.getAttribute("data-state"), "done", `${key}: ${await row.innerText()}`);
    };
    await ended("datasets/alpaca/train.jsonl");
    await ended("datasets/alpaca/shards.bin");
    const bar = uploads.getByRole("progressbar", { name: "Progress of datasets/alpaca/shards.bin" });
    assert.equal(await bar.getAttribute("value"), String(large.length));

    // The browser lists them, read again when they arrived.
    const browse = page.getByRole("region", { name: "Bucket browser" });
    await browse.locator('tr[data-key="datasets/alpaca/train.jsonl"]').waitFor();
    await browse.locator('tr[data-key="datasets/alpaca/shards.bin"]').getByText("17 MiB").waitFor();
    await screenshot(page, "storage-upload");

    // S3 holds the multipart object whole.
    const { s3Objects } = await gql(`query($c: ID!) { s3Objects(clusterId: $c, prefix: "datasets/alpaca/") { edges { node { key size etag } } } }`, { c: clusterId });
    const shards = s3Objects.edges.find((e) => e.node.key === "datasets/alpaca/shards.bin");
    assert.equal(shards.node.size, large.length);
    assert.match(shards.node.etag, /-3$/);

    // A key the server refuses is said at the file, before any upload.
    await card.getByLabel("Subfolder").fill("../models");
    await card.locator('input[type=file][aria-label="Choose files"]').setInputFiles([{ name: "x.txt", mimeType: "text/plain", buffer: Buffer.from("x") }]);
    await uploads.locator('li[data-key="datasets/../models/x.txt"][data-state="failed"]').getByText("not allowed").waitFor();
    assert.deepEqual(blocked, []);
  });
});
