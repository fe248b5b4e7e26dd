import { describe, expect, it } from "vitest";
import { generalKey } from "../ui/fieldErrors";
import {
  blankDeployDraft,
  deployFormKey,
  deployServerErrors,
  deployVariables,
  divisors,
  endpointNameProblem,
  fileSystemChoices,
  imageProblem,
  instanceTypeChoices,
  servableModels,
  shownPaths,
  validateBounds,
  validateDeploy,
  type DeployDraft,
} from "./endpointForm";

const selfManaged = (patch: Partial<DeployDraft> = {}): DeployDraft => ({
  ...blankDeployDraft(),
  name: "qwen",
  path: "SELF_MANAGED",
  model: "qwen2.5-0.5b-instruct",
  instanceType: "ml.g5.12xlarge",
  replicas: "1",
  gpusPerReplica: "1",
  engine: "VLLM",
  image: "vllm/vllm-openai:v0.10.1",
  serviceForm: "CLUSTER_IP",
  ...patch,
});

const managed = (patch: Partial<DeployDraft> = {}): DeployDraft => ({
  ...blankDeployDraft(),
  name: "llama",
  path: "MANAGED",
  model: "llama-3-8b",
  instanceType: "ml.g5.12xlarge",
  replicas: "2",
  gpusPerReplica: "4",
  ...patch,
});

describe("blankDeployDraft", () => {
  it("guesses no GPUs, no image, no path and no engine", () => {
    const d = blankDeployDraft();
    expect(d.gpusPerReplica).toBe("");
    expect(d.image).toBe("");
    expect(d.path).toBe("");
    expect(d.engine).toBe("");
    expect(d.serviceForm).toBe("");
  });
});

describe("endpointNameProblem", () => {
  it.each(["a", "qwen", "qwen-2", "a".repeat(40)])("takes %s", (n) => expect(endpointNameProblem(n)).toBeNull());
  it.each([
    ["", /Name the endpoint/],
    ["Qwen", /lower-case/],
    ["2qwen", /starting with a letter/],
    ["qwen-", /not ending with '-'/],
    ["qwen_1", /lower-case/],
    ["a".repeat(41), /at most 40/],
  ])("%j: %s", (n, want) => expect(endpointNameProblem(n)).toMatch(want));
});

describe("imageProblem", () => {
  it.each(["vllm/vllm-openai:v0.10.1", "lmsysorg/sglang:v0.5.3-cu126", "123456789012.dkr.ecr.us-west-2.amazonaws.com/vllm@sha256:abc"])("takes %s", (i) =>
    expect(imageProblem(i)).toBeNull(),
  );
  it.each([
    ["", /Give the serving container's image/],
    ["Vllm/Vllm", /not a container image reference/],
    ["vllm openai", /not a container image reference/],
    ["vllm/", /not a container image reference/],
  ])("%j: %s", (i, want) => expect(imageProblem(i)).toMatch(want));
});

describe("validateDeploy", () => {
  it("takes a whole self-managed draft", () => {
    expect(validateDeploy(selfManaged(), 4)).toEqual({});
  });

  it("takes a whole managed draft", () => {
    expect(validateDeploy(managed(), 4)).toEqual({});
  });

  it("asks for the path before anything that depends on it", () => {
    const errors = validateDeploy({ ...blankDeployDraft(), name: "qwen", instanceType: "ml.g5.12xlarge", gpusPerReplica: "1" }, 4);
    expect(Object.keys(errors)).toEqual(["input.path"]);
  });

  it("never guesses the GPUs: empty is an error, with the instance type's count when known", () => {
    const errors = validateDeploy(selfManaged({ gpusPerReplica: "" }), 4);
    expect(Object.keys(errors)).toEqual(["input.gpusPerReplica"]);
    expect(errors["input.gpusPerReplica"]![0]).toMatch(/never guessed/);
    expect(errors["input.gpusPerReplica"]![0]).toMatch(/1 to 4: they are never guessed\. ml\.g5\.12xlarge has 4\./);
    expect(validateDeploy(selfManaged({ gpusPerReplica: "" }), null)["input.gpusPerReplica"]![0]).toMatch(/at least 1/);
  });

  it.each([
    [{ name: "" }, "input.name", /Name the endpoint/],
    [{ instanceType: "" }, "input.instanceType", /Choose the instance type/],
    [{ replicas: "101" }, "input.replicas", /0 to 100/],
    [{ replicas: "-1" }, "input.replicas", /0 to 100/],
    [{ replicas: "1.5" }, "input.replicas", /0 to 100/],
    [{ gpusPerReplica: "8" }, "input.gpusPerReplica", /1 to 4/],
    [{ gpusPerReplica: "0" }, "input.gpusPerReplica", /1 to 4/],
    [{ engine: "" }, "input.engine", /vLLM or SGLang/],
    [{ image: "" }, "input.image", /for example vllm\/vllm-openai:v0\.10\.1/],
    [{ image: "not an image" }, "input.image", /not a container image/],
    [{ serviceForm: "" }, "input.serviceForm", /how the endpoint is reached/],
    [{ model: "" }, "input.model", /Choose the model/],
    [{ gpusPerReplica: "4", tensorParallelSize: "3" }, "input.tensorParallelSize", /3 does not divide the 4 GPUs of a replica: use 1, 2, 4/],
    [{ tensorParallelSize: "0" }, "input.tensorParallelSize", /from 1/],
    [{ serviceForm: "MODEL_POOL", pool: "Pool_1" }, "input.pool", /lower-case/],
  ] as [Partial<DeployDraft>, string, RegExp][])("self-managed %j: at %s", (patch, field, want) => {
    const errors = validateDeploy(selfManaged(patch), 4);
    expect(Object.keys(errors)).toEqual([field]);
    expect(errors[field]![0]).toMatch(want);
  });

  it("suggests the chosen engine's image when the image is empty", () => {
    expect(validateDeploy(selfManaged({ engine: "SGLANG", image: "" }), 4)["input.image"]![0]).toMatch(/lmsysorg\/sglang:v0\.5\.3-cu126/);
  });

  it.each([
    [{ model: "" }, "input.model", /Choose the model/],
    [{ modelSource: "FSX", model: "/models/llama" }, "input.fsxFileSystemId", /Choose the FSx/],
    [{ modelSource: "FSX", fsxFileSystemId: "fs-0123456789abcdef0", model: "models/llama" }, "input.model", /absolute path/],
    [{ modelSource: "FSX", fsxFileSystemId: "fs-0123456789abcdef0", model: "/models/../etc" }, "input.model", /absolute path/],
    [{ modelSource: "JUMPSTART", model: "Meta Llama" }, "input.model", /not a JumpStart model id/],
    [{ kvL2: true, kvBackend: "REDIS", kvUrl: "http://cache:6379" }, "input.kvCache.l2Url", /redis:\/\/host:port/],
    [{ minReplicas: "1" }, "input.autoscaling.maxReplicas", /1 to 100/],
    [{ minReplicas: "3", maxReplicas: "2" }, "input.autoscaling.maxReplicas", /below the fewest/],
    [{ minReplicas: "0", maxReplicas: "0" }, "input.autoscaling.maxReplicas", /1 to 100/],
    [{ tlsBucket: "s3://certs" }, "input.tlsCertificateBucket", /not an S3 bucket name/],
  ] as [Partial<DeployDraft>, string, RegExp][])("managed %j: at %s", (patch, field, want) => {
    const errors = validateDeploy(managed(patch), 4);
    expect(Object.keys(errors)).toEqual([field]);
    expect(errors[field]![0]).toMatch(want);
  });

  it("takes a managed FSx, JumpStart and Redis draft", () => {
    expect(validateDeploy(managed({ modelSource: "FSX", fsxFileSystemId: "fs-0123456789abcdef0", model: "/models/llama" }), 4)).toEqual({});
    expect(validateDeploy(managed({ kvL2: true, kvBackend: "REDIS", kvUrl: "redis://cache.example:6379" }), 4)).toEqual({});
    expect(validateDeploy(managed({ minReplicas: "0", maxReplicas: "4", tlsBucket: "my-certs" }), 4)).toEqual({});
  });

  it("lets a JumpStart model size itself, but checks GPUs that are given", () => {
    const js = managed({ modelSource: "JUMPSTART", model: "meta-textgeneration-llama-3-1-8b-instruct", gpusPerReplica: "" });
    expect(validateDeploy(js, 4)).toEqual({});
    expect(Object.keys(validateDeploy({ ...js, gpusPerReplica: "9" }, 4))).toEqual(["input.gpusPerReplica"]);
  });

  it("takes any GPU count from 1 while the instance type's GPUs are not known", () => {
    expect(validateDeploy(selfManaged({ gpusPerReplica: "8" }), null)).toEqual({});
  });
});

describe("validateBounds", () => {
  const paths = { min: "input.minReplicas", max: "input.maxReplicas" };
  it("asks for both when required", () => {
    expect(Object.keys(validateBounds("", "", paths, true))).toEqual(["input.minReplicas", "input.maxReplicas"]);
    expect(validateBounds("", "", paths, false)).toEqual({});
    expect(validateBounds("0", "3", paths, true)).toEqual({});
  });
});

describe("deployVariables", () => {
  it("sends a self-managed endpoint's decisions and nothing of the managed path", () => {
    expect(deployVariables("c1", selfManaged({ name: " qwen " }), "k1")).toEqual({
      input: {
        clusterId: "c1",
        name: "qwen",
        path: "SELF_MANAGED",
        model: "qwen2.5-0.5b-instruct",
        instanceType: "ml.g5.12xlarge",
        replicas: 1,
        gpusPerReplica: 1,
        engine: "VLLM",
        image: "vllm/vllm-openai:v0.10.1",
        serviceForm: "CLUSTER_IP",
      },
      idempotencyKey: "k1",
    });
  });

  it("sends the tensor parallel size and pool only when given, the pool only for MODEL_POOL", () => {
    const { input } = deployVariables("c1", selfManaged({ gpusPerReplica: "4", tensorParallelSize: "2", serviceForm: "MODEL_POOL", pool: " support " }), "k1");
    expect(input.tensorParallelSize).toBe(2);
    expect(input.pool).toBe("support");
    expect("pool" in deployVariables("c1", selfManaged({ pool: "left-over" }), "k1").input).toBe(false);
  });

  it("sends a managed endpoint's source and leaves KV cache, routing, bounds and TLS at the server's defaults", () => {
    expect(deployVariables("c1", managed(), "k1").input).toEqual({
      clusterId: "c1",
      name: "llama",
      path: "MANAGED",
      model: "llama-3-8b",
      modelSource: "BUCKET",
      instanceType: "ml.g5.12xlarge",
      replicas: 2,
      gpusPerReplica: 4,
    });
  });

  it("sends what a managed endpoint changes from the defaults", () => {
    const { input } = deployVariables(
      "c1",
      managed({ kvL2: true, kvBackend: "REDIS", kvUrl: " redis://cache:6379 ", routing: true, strategy: "KV_AWARE", minReplicas: "1", maxReplicas: "4", tlsBucket: " certs " }),
      "k1",
    );
    expect(input.kvCache).toEqual({ l1: true, l2: true, l2Backend: "REDIS", l2Url: "redis://cache:6379" });
    expect(input.intelligentRouting).toEqual({ enabled: true, strategy: "KV_AWARE" });
    expect(input.autoscaling).toEqual({ minReplicas: 1, maxReplicas: 4 });
    expect(input.tlsCertificateBucket).toBe("certs");
    expect("engine" in input || "serviceForm" in input || "image" in input).toBe(false);
  });

  it("sends the file system for FSX, and a JumpStart model's licence only when accepted", () => {
    expect(deployVariables("c1", managed({ modelSource: "FSX", fsxFileSystemId: "fs-1", model: "/models/x" }), "k").input.fsxFileSystemId).toBe("fs-1");
    const js = deployVariables("c1", managed({ modelSource: "JUMPSTART", model: "meta-x", gpusPerReplica: "", acceptEula: true }), "k").input;
    expect(js.acceptEula).toBe(true);
    expect("gpusPerReplica" in js).toBe(false);
    expect("acceptEula" in deployVariables("c1", managed({ acceptEula: true }), "k").input).toBe(false);
  });

  it("turns the L1 cache off alone", () => {
    expect(deployVariables("c1", managed({ kvL1: false }), "k").input.kvCache).toEqual({ l1: false, l2: false });
  });
});

describe("deployServerErrors", () => {
  const error = (code: string, message: string, field?: string) => ({ message, extensions: field ? { code, field } : { code } });

  it.each([
    ["PRECONDITION", "input.model", "the shared bucket has no model qwen"],
    ["CONFLICT", "input.name", "cluster c has an endpoint named qwen already"],
    ["VALIDATION", "input.gpusPerReplica", "a replica asks for 8 GPUs and instance type ml.g5.12xlarge has 4"],
    ["PRECONDITION", "input.instanceType", "cluster c has no instance group of type ml.p5.48xlarge"],
    ["VALIDATION", "input.tensorParallelSize", "tensor parallel size 3 does not divide the 4 GPUs"],
    ["VALIDATION", "input.image", "not a container image reference"],
  ])("puts a %s error about %s at its field", (code, field, message) => {
    expect(deployServerErrors([error(code, message, field)], selfManaged())).toEqual({ [field]: [message] });
  });

  it("puts a managed field's error at the nearest field shown", () => {
    expect(deployFormKey("input.kvCache.l2Backend", managed())).toBe("input.kvCache");
    expect(deployFormKey("input.kvCache.l2Url", managed({ kvL2: true, kvBackend: "REDIS" }))).toBe("input.kvCache.l2Url");
    expect(deployFormKey("input.autoscaling", managed())).toBe("input.autoscaling");
    expect(deployFormKey("input.path", managed())).toBe("input.path");
  });

  it("puts errors about what the form does not show at the top, naming the field", () => {
    expect(deployServerErrors([error("PRECONDITION", "cluster c has no shared bucket ready", "input.clusterId"), error("FORBIDDEN", "needs OPERATOR")], selfManaged())).toEqual({
      [generalKey]: ["cluster c has no shared bucket ready (input.clusterId)", "needs OPERATOR"],
    });
    expect(deployFormKey("input.kvCache", selfManaged())).toBe(generalKey);
    expect(deployFormKey("input.pool", selfManaged())).toBe(generalKey);
    expect(deployFormKey("input.pool", selfManaged({ serviceForm: "MODEL_POOL" }))).toBe("input.pool");
  });

  it("shows only the path's fields", () => {
    const self = shownPaths(selfManaged());
    expect(self.has("input.engine")).toBe(true);
    expect(self.has("input.modelSource")).toBe(false);
    const mine = shownPaths(managed({ modelSource: "FSX" }));
    expect(mine.has("input.fsxFileSystemId")).toBe(true);
    expect(mine.has("input.engine")).toBe(false);
  });
});

describe("choices", () => {
  it("lists each instance type once, with its groups and nodes, leaving deleted groups out", () => {
    const groups = [
      { name: "gpus", instanceType: "ml.g5.12xlarge", status: "INSERVICE", currentCount: 2 },
      { name: "cpu", instanceType: "ml.m5.xlarge", status: "INSERVICE", currentCount: 1 },
      { name: "more-gpus", instanceType: "ml.g5.12xlarge", status: "INSERVICE", currentCount: 0 },
      { name: "old", instanceType: "ml.p5.48xlarge", status: "DELETED", currentCount: 0 },
    ];
    expect(instanceTypeChoices(groups)).toEqual([
      { instanceType: "ml.g5.12xlarge", groups: ["gpus", "more-gpus"], nodes: 2 },
      { instanceType: "ml.m5.xlarge", groups: ["cpu"], nodes: 1 },
    ]);
  });

  it("offers the file systems pods can mount now, with their ids", () => {
    const storages = [
      { kind: "S3", status: "AVAILABLE", mountPath: "/s3", fsx: null },
      { kind: "FSX_LUSTRE", status: "AVAILABLE", mountPath: "/fsx/scratch", fsx: { name: "scratch", fileSystemId: "fs-1" } },
      { kind: "FSX_LUSTRE", status: "CREATING", mountPath: "/fsx/new", fsx: { name: "new", fileSystemId: null } },
    ];
    expect(fileSystemChoices(storages)).toEqual([{ fileSystemId: "fs-1", name: "scratch", mountPath: "/fsx/scratch" }]);
  });

  it("serves models that are ready or present", () => {
    const models = [{ status: "READY" }, { status: "PRESENT" }, { status: "DOWNLOADING" }, { status: "FAILED" }];
    expect(servableModels(models)).toEqual([{ status: "READY" }, { status: "PRESENT" }]);
  });

  it("lists the divisors of a replica's GPUs", () => {
    expect(divisors(8)).toEqual([1, 2, 4, 8]);
    expect(divisors(1)).toEqual([1]);
  });
});
