import { describe, expect, it } from "vitest";
import { addressWords, deletedObjectsWords, deployEndpointPath, endpointPath, openAiBase, replicasWords, servedBy } from "./endpointWords";

describe("addressWords", () => {
  it("says host and port, or why there is no host", () => {
    expect(addressWords({ kind: "CLUSTER_IP", host: "vllm-qwen.default.svc.cluster.local", port: 80, service: "vllm-qwen" })).toBe("vllm-qwen.default.svc.cluster.local:80");
    expect(addressWords({ kind: "LOAD_BALANCER", host: "k8s-default-x.elb.us-west-2.amazonaws.com", port: null })).toBe("k8s-default-x.elb.us-west-2.amazonaws.com");
    expect(addressWords({ kind: "LOAD_BALANCER", host: null })).toBe("load balancer being made");
    expect(addressWords({ kind: "POOL", host: null })).toBe("per business (a Service each)");
    expect(addressWords(null)).toBe("—");
  });

  it("gives the OpenAI-compatible base URL of an address with a host", () => {
    expect(openAiBase({ kind: "CLUSTER_IP", host: "svc.ns.svc.cluster.local", port: 8000 })).toBe("http://svc.ns.svc.cluster.local:8000/v1");
    expect(openAiBase({ kind: "POOL", host: null })).toBeNull();
  });
});

describe("words", () => {
  it("says what serves an endpoint and how many replicas are ready", () => {
    expect(servedBy({ path: "SELF_MANAGED", engine: "SGLANG" })).toBe("SGLang");
    expect(servedBy({ path: "MANAGED", engine: null })).toBe("Inference operator");
    expect(replicasWords({ readyReplicas: 1, replicas: 2 })).toBe("1/2");
  });

  it("says what deleting an endpoint deletes", () => {
    const self = { path: "SELF_MANAGED", object: "Deployment/vllm-qwen", router: null, autoscaling: null };
    expect(deletedObjectsWords(self)).toBe("the Deployment, its Services");
    expect(deletedObjectsWords({ ...self, router: { name: "r" }, autoscaling: { trigger: "ROUTER_QUEUE" } })).toBe(
      "the Deployment, its Services, the SGLang router and the ScaledObject",
    );
    expect(deletedObjectsWords({ ...self, autoscaling: { trigger: null } })).toBe("the Deployment, its Services");
    expect(deletedObjectsWords({ path: "MANAGED", object: "InferenceEndpointConfig/qwen" })).toBe("the operator's InferenceEndpointConfig and what it made");
  });

  it("makes the pages' paths", () => {
    expect(endpointPath("c 1", "e1")).toBe("/clusters/c%201/endpoints/e1");
    expect(deployEndpointPath("c1")).toBe("/clusters/c1/endpoints/new");
  });
});
