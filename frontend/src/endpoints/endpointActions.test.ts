import { describe, expect, it } from "vitest";
import { generalKey } from "../ui/fieldErrors";
import {
  boundsChanged,
  boundsDraftOf,
  boundsInput,
  boundsServerErrors,
  businessProblem,
  imageEditable,
  kedaDraftOf,
  kedaInput,
  kedaServerErrors,
  poolBusinesses,
  routerRefusal,
  updateDraftOf,
  updateInput,
  updateServerErrors,
  validateKeda,
  validateManagedBounds,
  validateUpdate,
  type EndpointLike,
} from "./endpointActions";

const vllm = (patch: Partial<EndpointLike> = {}): EndpointLike => ({
  path: "SELF_MANAGED",
  engine: "VLLM",
  serviceForm: "CLUSTER_IP",
  modelSource: "BUCKET",
  image: "vllm/vllm-openai:v0.10.1",
  replicas: 2,
  router: null,
  autoscaling: null,
  ...patch,
});

const keda = { minReplicas: 1, maxReplicas: 4, trigger: "REQUESTS_PER_REPLICA", target: 10 };

describe("updateInput", () => {
  it("sends only what differs", () => {
    const e = vllm();
    expect(updateInput(e, updateDraftOf(e))).toEqual({});
    expect(updateInput(e, { replicas: "3", image: "vllm/vllm-openai:v0.10.1" })).toEqual({ replicas: 3 });
    expect(updateInput(e, { replicas: "2", image: " vllm/vllm-openai:v0.10.2 " })).toEqual({ image: "vllm/vllm-openai:v0.10.2" });
  });

  it("never sends an image for a JumpStart model", () => {
    const e = vllm({ path: "MANAGED", engine: null, serviceForm: null, modelSource: "JUMPSTART", image: null });
    expect(imageEditable(e)).toBe(false);
    expect(updateInput(e, { replicas: "2", image: "anything" })).toEqual({});
  });
});

describe("validateUpdate", () => {
  it("checks the replicas and a changed image", () => {
    const e = vllm();
    expect(validateUpdate(e, { replicas: "101", image: e.image! })["input.replicas"]![0]).toMatch(/0 to 100/);
    expect(validateUpdate(e, { replicas: "2", image: "" })["input.image"]![0]).toMatch(/Give the serving container's image/);
    expect(validateUpdate(e, { replicas: "2", image: "Not An Image" })["input.image"]![0]).toMatch(/not a container image/);
    expect(validateUpdate(e, { replicas: "0", image: e.image! })).toEqual({});
  });

  it("refuses replicas KEDA sets", () => {
    const e = vllm({ autoscaling: keda });
    expect(validateUpdate(e, { replicas: "3", image: e.image! })["input.replicas"]![0]).toMatch(/KEDA scales/);
    expect(validateUpdate(e, { replicas: "2", image: "vllm/vllm-openai:v0.10.2" })).toEqual({});
  });

  it("puts the server's errors at the replicas and image, the rest at the top", () => {
    const errors = [
      { message: "KEDA scales it", extensions: { code: "PRECONDITION", field: "input.replicas" } },
      { message: "still being deployed", extensions: { code: "PRECONDITION", field: "id" } },
    ];
    expect(updateServerErrors(errors)).toEqual({ "input.replicas": ["KEDA scales it"], [generalKey]: ["still being deployed (id)"] });
  });
});

describe("KEDA autoscaling", () => {
  it("starts from the endpoint's ScaledObject, or blank", () => {
    expect(kedaDraftOf(vllm())).toEqual({ min: "", max: "", trigger: "", target: "" });
    expect(kedaDraftOf(vllm({ autoscaling: keda }))).toEqual({ min: "1", max: "4", trigger: "REQUESTS_PER_REPLICA", target: "10" });
  });

  it("checks bounds, trigger and target", () => {
    expect(validateKeda({ min: "1", max: "4", trigger: "REQUESTS_PER_REPLICA", target: "" }, false)).toEqual({});
    expect(Object.keys(validateKeda({ min: "", max: "", trigger: "", target: "" }, false))).toEqual(["input.minReplicas", "input.maxReplicas", "input.trigger"]);
    expect(validateKeda({ min: "5", max: "4", trigger: "REQUESTS_PER_REPLICA", target: "" }, false)["input.maxReplicas"]![0]).toMatch(/below the fewest/);
    expect(validateKeda({ min: "0", max: "4", trigger: "ROUTER_QUEUE", target: "" }, false)["input.trigger"]![0]).toMatch(/needs the SGLang router/);
    expect(validateKeda({ min: "0", max: "4", trigger: "ROUTER_QUEUE", target: "" }, true)).toEqual({});
    expect(validateKeda({ min: "0", max: "4", trigger: "REQUESTS_PER_REPLICA", target: "0" }, false)["input.target"]![0]).toMatch(/above 0/);
    expect(validateKeda({ min: "0", max: "4", trigger: "REQUESTS_PER_REPLICA", target: "fast" }, false)["input.target"]![0]).toMatch(/above 0/);
  });

  it("sends the bounds and trigger, and the target when given", () => {
    expect(kedaInput({ min: "0", max: "4", trigger: "REQUESTS_PER_REPLICA", target: "" })).toEqual({ minReplicas: 0, maxReplicas: 4, trigger: "REQUESTS_PER_REPLICA" });
    expect(kedaInput({ min: "1", max: "8", trigger: "ROUTER_QUEUE", target: "2.5" })).toEqual({ minReplicas: 1, maxReplicas: 8, trigger: "ROUTER_QUEUE", target: 2.5 });
  });

  it("puts the server's refusals where they belong", () => {
    const errors = [
      { message: "no router", extensions: { code: "PRECONDITION", field: "input.trigger" } },
      { message: "no KEDA", extensions: { code: "PRECONDITION", field: "endpointId" } },
    ];
    expect(kedaServerErrors(errors)).toEqual({ "input.trigger": ["no router"], [generalKey]: ["no KEDA (endpointId)"] });
  });
});

describe("managed bounds", () => {
  const e = vllm({ path: "MANAGED", engine: null, serviceForm: null, autoscaling: { minReplicas: 1, maxReplicas: 3, trigger: null, target: null } });
  it("starts from the endpoint's bounds and sends both", () => {
    expect(boundsDraftOf(e)).toEqual({ min: "1", max: "3" });
    expect(boundsChanged(e, { min: "1", max: "3" })).toBe(false);
    expect(boundsChanged(e, { min: "1", max: "5" })).toBe(true);
    expect(boundsInput({ min: "0", max: "5" })).toEqual({ autoscaling: { minReplicas: 0, maxReplicas: 5 } });
    expect(validateManagedBounds({ min: "", max: "" })).not.toEqual({});
    expect(boundsServerErrors([{ message: "bad bounds", extensions: { field: "input.autoscaling" } }])).toEqual({ "input.autoscaling": ["bad bounds"] });
  });
});

describe("routerRefusal", () => {
  it("offers the router to self-managed SGLang endpoints that are not pools", () => {
    expect(routerRefusal(vllm({ engine: "SGLANG" }))).toBeNull();
    expect(routerRefusal(vllm())).toMatch(/SGLang workers/);
    expect(routerRefusal(vllm({ path: "MANAGED", engine: null }))).toMatch(/SGLang workers/);
    expect(routerRefusal(vllm({ engine: "SGLANG", serviceForm: "MODEL_POOL" }))).toMatch(/mix them/);
  });
});

describe("pool workers", () => {
  it("checks a business name, with the Service's length", () => {
    expect(businessProblem("qwen", "support")).toBeNull();
    expect(businessProblem("qwen", "unassigned")).toBeNull();
    expect(businessProblem("qwen", "")).toMatch(/Name the business/);
    expect(businessProblem("qwen", "Support")).toMatch(/lower-case/);
    expect(businessProblem("p".repeat(30), "b".repeat(33))).toMatch(/over 63 characters/);
  });

  it("lists the businesses served, without unassigned", () => {
    expect(poolBusinesses([{ business: "sales" }, { business: "unassigned" }, { business: "support" }, { business: "sales" }, { business: null }])).toEqual(["sales", "support"]);
  });
});
