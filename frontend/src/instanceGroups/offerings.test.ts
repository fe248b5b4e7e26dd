import { describe, expect, it } from "vitest";
import { describeOffering, offeringLabel, splitOfferings, type Offering } from "./offerings";

const o = (instanceType: string, acceleratorCount: number, acceleratorMemoryGiB = 0): Offering => ({
  instanceType,
  acceleratorCount,
  acceleratorName: acceleratorCount > 0 ? "nvidia H100" : null,
  acceleratorMemoryGiB,
  vcpus: 8,
  memoryGiB: 32,
});

describe("splitOfferings", () => {
  it("puts accelerated types first, most accelerators and memory first, CPU-only after in server order", () => {
    const { accelerated, cpuOnly } = splitOfferings([o("ml.m5.xlarge", 0), o("ml.g5.12xlarge", 4, 24), o("ml.p5.48xlarge", 8, 80), o("ml.p4d.24xlarge", 8, 40), o("ml.c5.large", 0)]);
    expect(accelerated.map((x) => x.instanceType)).toEqual(["ml.p5.48xlarge", "ml.p4d.24xlarge", "ml.g5.12xlarge"]);
    expect(cpuOnly.map((x) => x.instanceType)).toEqual(["ml.m5.xlarge", "ml.c5.large"]);
  });
});

describe("labels", () => {
  it("names GPU count and memory of accelerated types", () => {
    expect(offeringLabel(o("ml.p5.48xlarge", 8, 80))).toBe("ml.p5.48xlarge — 8 × nvidia H100 80 GiB");
    expect(describeOffering(o("ml.p5.48xlarge", 8, 80))).toMatch(/640 GiB in all/);
  });
  it("names vCPUs and memory of CPU-only types", () => {
    expect(offeringLabel(o("ml.m5.xlarge", 0))).toBe("ml.m5.xlarge — 8 vCPU, 32 GiB");
  });
});
